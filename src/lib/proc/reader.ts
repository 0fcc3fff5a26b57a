import {closeSync, constants, openSync, readSync, readlinkSync} from 'node:fs'

import {PkError, errnoCode} from '../errors.js'
import {ProcStat, parseBootTime, parseCaughtSignals, parseChildren, parseCmdline, parseNamespaceLink, parseStat} from './parse.js'

/** Thin readers over /proc. A process that is gone reads as null; nothing here guesses. */

export const PROC_ROOT = '/proc'

let shared = Buffer.alloc(64 * 1024)

/**
 * Read an open file whole through one reused buffer. Cheaper than readFileSync (no fstat, no fresh
 * buffer, no second read), which counts at a thousand files per listing. Not for pipes or sockets.
 * Files larger than `limit` bytes throw RangeError. Closes nothing: the caller owns the fd.
 */
export function readWhole(fd: number, path: string, limit = 1024 * 1024): string {
  let length = 0
  for (;;) {
    if (length === shared.length) {
      if (shared.length >= limit) throw new RangeError(`${path} is larger than ${limit} bytes`)
      const bigger = Buffer.alloc(Math.min(limit, shared.length * 2))
      shared.copy(bigger)
      shared = bigger
    }
    const wanted = shared.length - length
    const n = readSync(fd, shared, length, wanted, null)
    length += n
    // A short read is the end: for regular files, and for /proc's per-process files, which the
    // kernel hands out in one piece. That saves the second read() a thousand times per listing.
    if (n < wanted) break
  }
  if (length > limit) throw new RangeError(`${path} is larger than ${limit} bytes`)
  return shared.toString('utf8', 0, length)
}

/** Open, read whole (see readWhole), close. */
export function readSmallFile(path: string, flags: number = constants.O_RDONLY, limit = 1024 * 1024): string {
  const fd = openSync(path, flags)
  try {
    return readWhole(fd, path, limit)
  } finally {
    closeSync(fd)
  }
}

/** Errors that mean: the process is gone, or not ours to look at. Nothing else is swallowed. */
const GONE = new Set(['ENOENT', 'ESRCH', 'EACCES', 'EPERM', 'ENOTDIR'])

function orNull<T>(read: () => T): T | null {
  try {
    return read()
  } catch (error) {
    if (GONE.has(errnoCode(error) ?? '')) return null
    throw error
  }
}

/** A /proc file's text, or null when it is gone or not ours to read. */
export const readOrNull = (path: string): string | null => orNull(() => readSmallFile(path))

const readlinkOrNull = (path: string): string | null => orNull(() => readlinkSync(path))

export function readStat(pid: number): ProcStat | null {
  const text = readOrNull(`${PROC_ROOT}/${pid}/stat`)
  return text === null ? null : parseStat(text)
}

export function readCmdline(pid: number): string[] | null {
  const text = readOrNull(`${PROC_ROOT}/${pid}/cmdline`)
  return text === null ? null : parseCmdline(text)
}

/** The signals `pid` has a handler for, or null when it is gone. */
export function readCaughtSignals(pid: number): bigint | null {
  const text = readOrNull(`${PROC_ROOT}/${pid}/status`)
  return text === null ? null : parseCaughtSignals(text)
}

export function readExe(pid: number): string | null {
  return readlinkOrNull(`${PROC_ROOT}/${pid}/exe`)
}

export function readCwd(pid: number): string | null {
  return readlinkOrNull(`${PROC_ROOT}/${pid}/cwd`)
}

/**
 * Children of the process's main thread. Children forked by other threads are not listed here; agents
 * spawn from their main thread, and this keeps the read to one file per process.
 */
export function readChildren(pid: number): number[] {
  const text = readOrNull(`${PROC_ROOT}/${pid}/task/${pid}/children`)
  return text === null ? [] : parseChildren(text)
}

export function readBootId(): string {
  const text = readOrNull(`${PROC_ROOT}/sys/kernel/random/boot_id`)
  if (text === null || text.trim() === '') {
    throw new PkError('no-boot-id', `cannot read ${PROC_ROOT}/sys/kernel/random/boot_id; pk needs it to tell sessions of this boot from older ones. Run pk where /proc is mounted and readable (a Linux host, or a container with procfs).`)
  }
  return text.trim()
}

/** Inode of the pid namespace `pid` lives in, as a decimal string. */
export function readPidNamespace(pid: number | 'self' = 'self'): string | null {
  const link = readlinkOrNull(`${PROC_ROOT}/${pid}/ns/pid`)
  return link === null ? null : parseNamespaceLink(link)
}

let bootTimeCache: number | null | undefined
/** Boot time in seconds since the epoch, to turn start ticks into a date. */
export function readBootTime(): number | null {
  if (bootTimeCache === undefined) {
    const text = readOrNull(`${PROC_ROOT}/stat`)
    bootTimeCache = text === null ? null : parseBootTime(text)
  }
  return bootTimeCache
}

/** Seconds since boot (/proc/uptime's first number), as the sh hook stamps its events. */
export function readUptime(): number | null {
  const match = /^(\d+(?:\.\d+)?) /.exec(readOrNull(`${PROC_ROOT}/uptime`) ?? '')
  return match ? Number(match[1]) : null
}

/** Linux has reported process times in USER_HZ = 100 ticks per second on every mainstream architecture. */
export const CLOCK_TICKS_PER_SECOND = 100

export function startTimeToDate(startTicks: number): Date | null {
  const boot = readBootTime()
  return boot === null ? null : new Date((boot + startTicks / CLOCK_TICKS_PER_SECOND) * 1000)
}
