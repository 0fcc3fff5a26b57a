/**
 * Where a listing's milliseconds go, for `npm run bench`: with PK_BENCH_TIMINGS set, each mark notes the
 * time since the previous one, and the command layer prints them as one JSON line on stderr at exit. Unset (as
 * always outside the benchmark) a mark costs one comparison.
 */
const enabled = Boolean(process.env.PK_BENCH_TIMINGS)
const marks: Record<string, number> = {}
let last = 0

export function mark(phase: string): void {
  if (!enabled) return
  const now = performance.now()
  marks[phase] = (marks[phase] ?? 0) + now - last
  last = now
}

if (enabled) {
  last = performance.now()
  marks.start = last // from the process's start to this module's first evaluation: node and loading pk's code
}

/** The marks as one line (`pk-timings {...}`), for the command layer to print at exit; null when not measuring. */
export const timingsLine = () => (enabled ? `pk-timings ${JSON.stringify(marks)}\n` : null)
export const measuring = enabled
