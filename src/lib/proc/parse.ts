/** Pure parsers for /proc text. No I/O here, so every tricky input can be tested with data. */

export interface ProcStat {
  pid: number
  /** The kernel's command name (at most 15 bytes, may hold spaces and parentheses). A label, not an identity. */
  comm: string
  state: string
  ppid: number
  /** Field 5: the process group; a pane's process leads its own. */
  pgrp: number
  /** Field 22: clock ticks after boot at which the process started. With the pid, it names one process. */
  startTime: number
}

/**
 * Parse /proc/<pid>/stat. The command name sits in parentheses and may itself contain spaces and
 * parentheses, so the fixed fields are read after the *last* ')'.
 */
export function parseStat(text: string): ProcStat | null {
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 1 || close < open) return null
  const pid = Number(text.slice(0, open).trim())
  // Fields 3 to 22 only: the split stops there (a whole line is some fifty fields, fifty thousand strings
  // for a listing of a thousand sessions). rest[0] is field 3 (state), so field N is rest[N - 3].
  const rest = text.slice(close + 2).split(' ', 20)
  if (rest.length < 20 || rest[19]!.trim() === '') return null
  const state = rest[0]!
  const ppid = Number(rest[1])
  const pgrp = Number(rest[2])
  const startTime = Number(rest[19])
  if (!isWholeNumber(pid) || !isWholeNumber(ppid) || !isWholeNumber(pgrp) || !isWholeNumber(startTime) || !/^[A-Za-z]$/.test(state)) return null
  return {pid, comm: text.slice(open + 1, close), state, ppid, pgrp, startTime}
}

/**
 * /proc/<pid>/cmdline: NUL-separated argv. Trailing empty strings are dropped: a process that sets its
 * title (node's process.title, as pi does) leaves its old argv as NUL padding, indistinguishable from
 * empty trailing arguments.
 */
export function parseCmdline(text: string): string[] {
  const parts = text.split('\0')
  while (parts.length > 0 && parts.at(-1) === '') parts.pop()
  return parts
}

/** `pid:[4026531836]` -> `4026531836`. */
export function parseNamespaceLink(link: string): string | null {
  const match = /^[a-z_]+:\[(\d+)\]$/.exec(link.trim())
  return match ? match[1]! : null
}

/** /proc/<pid>/task/<pid>/children: space-separated child pids. */
export function parseChildren(text: string): number[] {
  return text
    .split(/\s+/)
    .filter((s) => s !== '')
    .map(Number)
    .filter((n) => isWholeNumber(n))
}

/** The `btime` line of /proc/stat: boot time in seconds since the epoch. */
export function parseBootTime(text: string): number | null {
  const match = /^btime\s+(\d+)$/m.exec(text)
  return match ? Number(match[1]) : null
}

/** The `NSpid:` line of /proc/<pid>/status: this process's pid in each nested namespace, outermost first. */
export function parseNsPids(statusText: string): number[] | null {
  const match = /^NSpid:\s*(.*)$/m.exec(statusText)
  if (!match) return null
  return parseChildren(match[1]!)
}

function isWholeNumber(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0
}

/** The `SigCgt:` mask of /proc/<pid>/status: the signals the process has a handler for. */
export function parseCaughtSignals(statusText: string): bigint | null {
  const match = /^SigCgt:\s*([0-9a-fA-F]+)$/m.exec(statusText)
  return match ? BigInt(`0x${match[1]}`) : null
}

/** Pure: whether a SigCgt mask includes signal number `signal` (bit signal - 1). */
export const catches = (mask: bigint, signal: number) => ((mask >> BigInt(signal - 1)) & 1n) === 1n
