/** Pure: quote a word for a POSIX shell (left bare when it holds nothing a shell would read). */
export function shellQuote(word: string): string {
  return /^[\w%@./:=+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}
