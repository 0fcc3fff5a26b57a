import {closeSync, constants, openSync, readFileSync, readSync, readdirSync, readlinkSync, statSync} from 'node:fs'

import {errnoCode, PkError} from '../model/errors.js'
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
  return readWholeBytes(fd, path, limit).toString('utf8')
}

/** readWhole's bytes: valid until the next read (they are the reader's shared buffer). */
export function readWholeBytes(fd: number, path: string, limit = 1024 * 1024): Buffer {
  let length = 0
  for (;;) {
    if (length === shared.length) {
      if (shared.length >= limit) throw new RangeError(`${path} is larger than ${limit} bytes`)
      const bigger = Buffer.alloc(Math.min(limit, shared.length * 2))
      shared.copy(bigger)
      shared = bigger
    }
    // At most 64 KB a read, however large the buffer grew for an earlier file: /proc allocates what a
    // read asks for in the kernel, and a read of megabytes there fails with ENOMEM.
    const wanted = Math.min(shared.length - length, 64 * 1024)
    const n = readSync(fd, shared, length, wanted, null)
    length += n
    // A short read is the end: for regular files, and for /proc's per-process files, which the
    // kernel hands out in one piece. That saves the second read() a thousand times per listing.
    if (n < wanted) break
  }
  if (length > limit) throw new RangeError(`${path} is larger than ${limit} bytes`)
  return shared.subarray(0, length)
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
  // Through readFileSync's own path for UTF-8, which opens, reads and closes in C++: about a fifth less
  // than readSmallFile's steps from JS, which counts at a thousand processes per listing. (The file is
  // one short line; its reads are the kernel's, whatever the size.)
  const text = orNull(() => readFileSync(`${PROC_ROOT}/${pid}/stat`, 'utf8'))
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
    throw new PkError(
      'no-boot-id',
      `cannot read ${PROC_ROOT}/sys/kernel/random/boot_id; pk needs it to tell sessions of this boot from older ones. Run pk where /proc is mounted and readable (a Linux host, or a container with procfs).`,
    )
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

/**
 * Whether anyone still reads the pipe on this process's `fd` (true), nobody does (false), or it is not a
 * pipe or cannot be told (null). A reader that went away (`pk logs --follow | head -1`) is otherwise seen
 * only at the next write, which a quiet pane may never make: `tail -f` watches its output the same way.
 * Looks through the processes of this user for a descriptor open for reading on the same pipe.
 */
export function pipeHasReader(fd = 1): boolean | null {
  const target = readlinkOrNull(`${PROC_ROOT}/self/fd/${fd}`)
  if (target === null || !target.startsWith('pipe:')) return null
  const uid = process.getuid?.()
  let pids: string[]
  try {
    pids = readdirSync(PROC_ROOT).filter((n) => /^\d+$/.test(n) && n !== String(process.pid))
  } catch {
    return null
  }
  for (const pid of pids) {
    try {
      if (uid !== undefined && statSync(`${PROC_ROOT}/${pid}`).uid !== uid && uid !== 0) continue
      for (const n of readdirSync(`${PROC_ROOT}/${pid}/fd`)) {
        if (readlinkOrNull(`${PROC_ROOT}/${pid}/fd/${n}`) !== target) continue
        // flags are octal: the access mode is its last digit (0 read, 1 write, 2 both)
        const flags = /flags:\s*(\d+)/.exec(readOrNull(`${PROC_ROOT}/${pid}/fdinfo/${n}`) ?? '')?.[1]
        if (flags === undefined || Number.parseInt(flags, 8) % 4 !== 1) return true
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return false
}
