/**
 * Pure parsers for what `ps` and `sysctl` print, for the process source that does without /proc (macOS, or
 * `PK_PROCESS_SOURCE=ps`). No I/O here: each format is tested on recorded outputs of the real tools.
 *
 * Identity under this source is the pid, the second it started (`lstart`, read in UTC), the boot and, where
 * the system has them, the pid namespace. A second is coarser than /proc's hundredth: a pid handed out again
 * within the second its previous holder started cannot be told from it. pk fails closed where it can tell it
 * cannot tell (a line it cannot read whole is no process at all, see parsePsTable).
 */

import {ProcStat} from './parse.js'

/** What one `ps` line says of a process. `startTime` is `lstart` in seconds since the epoch (UTC). */
export interface PsRow extends ProcStat {
  /** argv as `ps` prints it: joined with spaces, so an argument that holds a space reads as two. */
  argv: string[]
}

export type PsDialect = 'procps' | 'bsd'

/**
 * The columns asked for, in order, with empty headers. `comm` sits before `lstart` and the command line
 * last, so every column can be found: the fixed ones by whitespace, `comm` up to the date, the command
 * line after it. procps' `comm` is the kernel's name (at most 15 bytes); BSD's is the executable's path.
 * The pid namespace is not a column of the table: procps reads every namespace link of every process for
 * it (half the table's cost at a thousand processes); it is asked for the few pids that need it (psNsArgs).
 */
export const PS_COLUMNS: Record<PsDialect, readonly string[]> = {
  procps: ['pid', 'ppid', 'pgid', 'stat', 'comm', 'lstart', 'args'],
  bsd: ['pid', 'ppid', 'pgid', 'stat', 'comm', 'lstart', 'command'],
}

/** `ps` arguments for the pid namespaces of a few pids (procps' `pidns`; Linux only). */
export const psNsArgs = (pids: readonly number[]) => [...selectPids('procps', pids), '-o', 'pid=', '-o', 'pidns=']

/** `ps` arguments for the signals one process catches (`caught`: procps' name, and BSD's alias of `sigcatch`). */
export const psCaughtArgs = (dialect: PsDialect, pid: number) => [...selectPids(dialect, [pid]), '-o', 'caught=']

/** Pure: `ps -o pid=,pidns=` -> each pid's namespace inode, or null where ps could not read it (`-`). */
export function parsePsNamespaces(text: string): Map<number, string | null> {
  const out = new Map<number, string | null>()
  for (const line of text.split('\n')) {
    const match = /^\s*(\d+)\s+(\S+)\s*$/.exec(line)
    if (match) out.set(Number(match[1]), WHOLE.test(match[2]!) ? match[2]! : null)
  }
  return out
}

/**
 * How to ask for a few pids: procps' `-q` reads only those (its `-p` reads every process and filters, which
 * costs as much as the whole table); BSD's `-p` asks the kernel for those alone.
 */
const selectPids = (dialect: PsDialect, pids: readonly number[]) => [dialect === 'procps' ? '-q' : '-p', pids.join(',')]

/** `ps` arguments for the whole table (`-A`, unlimited width), or for the listed pids. */
export function psArgs(dialect: PsDialect, pids?: readonly number[]): string[] {
  const select = pids === undefined ? ['-A'] : selectPids(dialect, pids)
  return [...select, '-ww', ...PS_COLUMNS[dialect].flatMap((c) => ['-o', `${c}=`])]
}

/** The environment `ps` runs in: dates in UTC and English, so that `lstart` parses the same everywhere. */
export const PS_ENV = {TZ: 'UTC0', LC_ALL: 'C'} as const

const DAYS = 'Sun|Mon|Tue|Wed|Thu|Fri|Sat'
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
/** `lstart` as both procps and BSD ps print it under LC_ALL=C: `Mon Dec  1 22:07:15 2026`. */
const LSTART = new RegExp(`(?:${DAYS}) (${MONTHS.join('|')}) ([ \\d]\\d) (\\d\\d):(\\d\\d):(\\d\\d) (\\d{4})`, 'g')

/** Pure: one `lstart` (read as UTC) -> seconds since the epoch, or null. */
export function parseLstart(text: string): number | null {
  const match = new RegExp(LSTART.source).exec(text.trim())
  if (!match || match.index !== 0 || match[0].length !== text.trim().length) return null
  return lstartSeconds(match)
}

function lstartSeconds(match: RegExpExecArray): number | null {
  const [, month, day, hour, minute, second, year] = match
  const ms = Date.UTC(Number(year), MONTHS.indexOf(month!), Number(day!.trim()), Number(hour), Number(minute), Number(second))
  const date = new Date(ms)
  // `Feb 31` would roll over into March: a date that does not exist is not read as another one.
  if (date.getUTCDate() !== Number(day!.trim()) || date.getUTCHours() !== Number(hour)) return null
  return ms / 1000
}

const WHOLE = /^\d+$/

/**
 * Pure: one line of the table -> a row, or null when it cannot be read whole. The date is found by its
 * shape, the first one after the fixed columns: procps' `comm` is at most 15 bytes, too short to hold a
 * date, so that is always `lstart`. BSD's `comm` is a path of any length, and a path can be made to look
 * like a date: there a line with a second date in it (in the path, or in the arguments) cannot be split
 * for sure, so it is no row: that process cannot be checked, rather than misread.
 */
export function parsePsLine(line: string, dialect: PsDialect): PsRow | null {
  const fixed = 4
  const head = line.trim().split(/\s+/, fixed)
  if (head.length < fixed) return null
  const [pid, ppid, pgrp, stat] = head
  if (!WHOLE.test(pid!) || !WHOLE.test(ppid!) || !WHOLE.test(pgrp!) || !/^[A-Za-z]/.test(stat!)) return null
  // Past the fixed columns: `comm`, then the date, then the command line.
  let rest = line.trimStart()
  for (let i = 0; i < fixed; i++) rest = rest.replace(/^\S+\s+/, '')
  const dates = [...rest.matchAll(new RegExp(LSTART.source, 'g'))] // a fresh one: matchAll starts at a shared regex's lastIndex
  if (dates.length === 0 || (dialect === 'bsd' && dates.length > 1)) return null
  const date = dates[0]!
  if (dialect === 'procps' && date.index! > 16 * 4) return null // 15 bytes of `comm`, as wide as ps may print them
  const startTime = lstartSeconds(date)
  if (startTime === null) return null
  const comm = rest.slice(0, date.index).replace(/ +$/, '')
  const command = rest.slice(date.index! + date[0].length).replace(/^ /, '')
  const argv = command === '' ? [] : command.split(' ').filter((a) => a !== '')
  return {pid: Number(pid), ppid: Number(ppid), pgrp: Number(pgrp), state: stat![0]!, startTime, comm, argv}
}

/** Pure: the whole table -> rows by pid, and how many lines could not be read. */
export function parsePsTable(text: string, dialect: PsDialect): {rows: Map<number, PsRow>; rejected: number} {
  const rows = new Map<number, PsRow>()
  let rejected = 0
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    const row = parsePsLine(line, dialect)
    if (row === null || rows.has(row.pid)) rejected++
    else rows.set(row.pid, row)
  }
  return {rows, rejected}
}

/**
 * Pure: `sysctl -n kern.boottime` on macOS and the BSDs: `{ sec = 1764620835, usec = 123456 } Mon Dec  1
 * 20:27:15 2025` -> the boot's time, to the microsecond: it names the boot.
 */
export function parseKernBoottime(text: string): {sec: number; usec: number} | null {
  const match = /^\{\s*sec\s*=\s*(\d+),\s*usec\s*=\s*(\d+)\s*\}/.exec(text.trim())
  return match ? {sec: Number(match[1]), usec: Number(match[2])} : null
}

/** Pure: the boot's name from `sysctl` output: Linux's boot id as it is, or `boottime:SEC.USEC` (BSD). */
export function bootIdFromSysctl(text: string, platform: 'linux' | 'darwin'): string | null {
  if (platform === 'linux') {
    const id = text.trim()
    return /^[0-9a-f-]{36}$/.test(id) ? id : null
  }
  const boot = parseKernBoottime(text)
  return boot === null ? null : `boottime:${boot.sec}.${String(boot.usec).padStart(6, '0')}`
}

/** Pure: `ps -o caught=` (procps: 16 hex digits; BSD's `sigcatch`: 8) -> the mask of caught signals, or null. */
export function parseCaught(text: string): bigint | null {
  const hex = text.trim().replace(/^0x/i, '')
  return /^[0-9a-fA-F]{1,16}$/.test(hex) ? BigInt(`0x${hex}`) : null
}
