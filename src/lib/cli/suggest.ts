/** Pure: edit distance (insertions, deletions, substitutions). Written here: ten lines, for one use. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    previous = current
  }
  return previous[b.length]!
}

/** Pure: the closest of `words` to `word`, or null when none is close (more than half of it differs). */
export function closestWord(word: string, words: string[]): string | null {
  let best: string | null = null
  let bestDistance = Infinity
  for (const candidate of words) {
    const distance = editDistance(word, candidate)
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance]
  }
  return best !== null && bestDistance <= Math.max(2, Math.ceil(word.length / 2)) ? best : null
}
