/**
 * Pure: edit distance with transpositions (insertions, deletions, substitutions, and two neighbours swapped,
 * the commonest typo: `pk sl` is one from `ls`, two from `bg`). Written here: a dozen lines, for one use.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({length: b.length + 1}, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1)
    }
    rows.push(row)
  }
  return rows[a.length]![b.length]!
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

/**
 * Flags a person types for what pk calls otherwise: the meaning, not the spelling, names the one they meant
 * (`--port` is closest to `--host` by its letters, and means `--listen`).
 */
const SAME_MEANING: Readonly<Record<string, string[]>> = {
  port: ['listen'],
  bind: ['listen'],
  address: ['listen'],
  addr: ['listen'],
  dir: ['cwd'],
  directory: ['cwd'],
  label: ['name'],
}

/**
 * Pure: oclif's message for a usage error (a flag it does not know, a value it does not take, flags that
 * do not go together) as one line in pk's words, with the closest flag when one was mistyped. `flags` are
 * the command's own, without their dashes.
 */
export function usageLine(message: string, flags: readonly string[]): string {
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^See more help/.test(l))
  const first = (lines[0] ?? message).replace(/^Error: /, '')
  const unknown = /^Nonexistent flags?: (--?[^\s,]+)/.exec(first)
  if (unknown) {
    const typed = unknown[1]!.replace(/^-+/, '').split('=')[0]!
    const meant = SAME_MEANING[typed]?.find((flag) => flags.includes(flag))
    const near = meant ?? (typed.length > 1 ? closestWord(typed, [...flags]) : null)
    return `unknown flag ${unknown[1]}${near ? `; did you mean --${near}?` : ''}`
  }
  const parsing = /^Parsing (--\S+)/.exec(first)
  if (parsing && lines[1]) {
    const got = /^Expected (an integer.*?) but received: (.*)$/.exec(lines[1])
    return got?.[1] !== undefined
      ? `${parsing[1]} takes ${got[1].replace('an integer', 'a whole number')}, not ${JSON.stringify(got[2])}`
      : `${parsing[1]}: ${lines[1]}`
  }
  const errors = /^The following errors? occurred:?\s*(.*)$/.exec(first)
  if (errors) {
    const said = [errors[1], ...lines.slice(1)].filter((l): l is string => Boolean(l))
    // oclif says an exclusive pair once from each side: once, in words.
    const pairs = said.map((l) => /^(--[\w-]+)=\S+ cannot also be provided when using (--[\w-]+)$/.exec(l))
    if (pairs.every(Boolean)) return [...new Set(pairs.map((m) => [m![1], m![2]].sort().join(' and ')))].map((p) => `${p} do not go together`).join('; ')
    return said.join('; ')
  }
  // "Missing 1 required arg:" names the argument on the next line.
  if (first.endsWith(':') && lines[1]) return `${first} ${lines[1].split(/\s{2,}/)[0]}`
  return first
}

/** Pure: ` (did you mean NEAR?)` for the closest of `words` to a mistyped `word`, or nothing. */
export const didYouMean = (word: string, words: readonly string[]) => {
  const near = closestWord(word, [...words])
  return near === null || near === word ? '' : ` (did you mean ${near}?)`
}
