import {mkdirSync, readdirSync, renameSync, unlinkSync, writeFileSync, lstatSync, existsSync} from 'node:fs'
import {randomBytes} from '../model/random.js'
import {join} from 'node:path'

import {errnoCode, PkError} from '../model/errors.js'
import {judgeLiveness} from '../proc/identity.js'
import {ProcStat} from '../proc/parse.js'
import {processSource} from '../proc/source.js'
import {View} from '../proc/view.js'
import {measureView} from '../proc/source.js'
import {StateDir} from './state-dir.js'

/**
 * The state directory's lock, held by a process and judged by kernel facts: its holder is alive or dead by
 * pid, start time, pid namespace and boot, never by a file's age. A holder that is slow, stopped (SIGSTOP)
 * or on a suspended laptop is alive and never overtaken; a dead one is passed over at once.
 *
 * The lock is a directory (`registry.lock/`) of entries named by the processes in it:
 *   `W_BOOT_NS_PID_START_RAND`   a process that wants the lock
 *   `H_BOOT_NS_PID_START_RAND`   the process that holds it
 * To take the lock, a process creates its `W_` entry, then lists the directory: when no other entry names
 * a live process, it holds the lock (its entry becomes `H_`, a rename); otherwise it removes its entry and
 * tries again later. Two processes can never both hold it: whichever listed second saw the other's entry.
 * Entries of dead processes are removed by whoever sees them (a dead process never comes back: a recycled
 * pid has another start time). Nothing here is ever taken from a live process, so no holder can lose the
 * lock behind its back; `stillHeld` is there for a holder to check before it writes, against an entry
 * removed by hand.
 */

export interface LockEntry {
  kind: 'W' | 'H'
  bootId: string
  pidNs: string
  pid: number
  startTime: number
}

/** Pure: an entry's name -> who it names, or null for a name that is not an entry (left alone). */
export function parseLockEntry(name: string): LockEntry | null {
  const match = /^([WH])_([0-9a-z.:-]+)_(\d+|ps|ps:\d+)_(\d+)_(\d+)_[0-9a-f]+$/.exec(name)
  if (!match) return null
  return {kind: match[1] as 'W' | 'H', bootId: match[2]!, pidNs: match[3]!, pid: Number(match[4]), startTime: Number(match[5])}
}

/** Pure: whether an entry's process is alive, dead, or cannot be told from here (another pid namespace: counted alive). */
export function entryLiveness(view: Pick<View, 'bootId' | 'pidNs'>, entry: LockEntry, stat: ProcStat | null): 'alive' | 'dead' | 'unknown' {
  const judged = judgeLiveness(view, {bootId: entry.bootId, pidNs: entry.pidNs, pid: entry.pid, startTime: entry.startTime}, stat)
  if (judged.alive) return 'alive'
  // A process of another pid namespace (of this boot) cannot be checked from here: fail closed, never take its lock.
  return judged.reason === 'foreign-namespace' ? 'unknown' : 'dead'
}

export const lockDir = (state: StateDir) => join(state.root, 'registry.lock')

export interface LockHolder {
  pid: number
  /** What is known of it: 'holds' the lock, 'wants' it, or 'unknown' (another pid namespace). */
  what: string
}

/** Thrown when another process holds the lock (and the caller would not wait, or waited long enough). */
export class LockBusyError extends PkError {
  constructor(
    readonly holder: LockHolder,
    message: string,
  ) {
    super('state-locked', message)
  }
}

export interface HeldLock {
  /** Whether this process still holds the lock: its entry is there (checked before writing). */
  stillHeld(): boolean
}

interface Me {
  view: View
  startTime: number
}

let me: Me | null = null
function whoAmI(): Me {
  if (me !== null) return me
  const measured = measureView()
  const stat = processSource().stat(process.pid)
  if (!measured.ok || stat === null)
    throw new PkError(
      'no-view',
      `cannot lock the state directory: this process cannot name itself (${measured.ok ? '/proc/self/stat is unreadable' : measured.reason})`,
    )
  me = {view: measured.view, startTime: stat.startTime}
  return me
}

/**
 * Who stands in the way in the lock's directory, but `own` (this process's entry, when it made one): a live
 * holder rather than a contender. Entries of dead processes are removed on the way.
 */
function blockerIn(dir: string, self: Me, stat: (pid: number) => ProcStat | null, own: string | null): LockHolder | null {
  let blocker: LockHolder | null = null
  for (const name of readdirSync(dir)) {
    if (name === own) continue
    const entry = parseLockEntry(name)
    if (entry === null) continue
    const liveness = entryLiveness(self.view, entry, entry.bootId === self.view.bootId && entry.pidNs === self.view.pidNs ? stat(entry.pid) : null)
    if (liveness === 'dead') {
      try {
        unlinkSync(join(dir, name))
      } catch {
        // removed by another that saw it dead too
      }
      continue
    }
    // A holder outranks a contender as the one to name; either stands in the way.
    if (blocker === null || (blocker.what !== 'holds' && entry.kind === 'H'))
      blocker = {pid: entry.pid, what: liveness === 'unknown' ? 'unknown' : entry.kind === 'H' ? 'holds' : 'wants'}
  }
  return blocker
}

/**
 * One try at the lock: its entry when held now, else who stands in the way. A try makes its `W_` entry only
 * where a first look found nobody in the way: an entry of a process stopped between making it and taking
 * it away keeps everyone else out (15 s, under SIGSTOP), and a waiter that made one every pause, many
 * waiting on a loaded machine, made that likely.
 */
function tryOnce(dir: string, self: Me, stat: (pid: number) => ProcStat | null): {entry: string} | {blocker: LockHolder} {
  const before = blockerIn(dir, self, stat, null)
  if (before !== null) return {blocker: before}
  const tag = `${self.view.bootId}_${self.view.pidNs}_${process.pid}_${self.startTime}_${randomBytes(4).toString('hex')}`
  const want = join(dir, `W_${tag}`)
  writeFileSync(want, '', {flag: 'wx', mode: 0o600})
  const blocker = blockerIn(dir, self, stat, `W_${tag}`)
  if (blocker === null) {
    const held = join(dir, `H_${tag}`)
    renameSync(want, held)
    return {entry: held}
  }
  unlinkSync(want)
  return {blocker}
}

export interface LockOptions {
  /**
   * How long to wait for a live holder (ms): 0 tries once (the caller leaves the work to the holder).
   * Contenders that are only trying, as this process is, are waited out in any case (a short while).
   */
  waitMs?: number
  /** Read a process's stat (tests hand in a clock-free fake). */
  stat?: (pid: number) => ProcStat | null
  sleep?: (ms: number) => Promise<unknown>
}

/** How long a writer waits for a live holder by default: a stopped holder makes it fail with a clear error, never overtakes it. */
export const LOCK_WAIT_MS = 15_000
/** Contention with others that only try (none holds) is waited out this long even by a caller that does not wait. */
const CONTENTION_MS = 3_000

/**
 * Run `fn` holding the state directory's lock, so that writers never interleave. Throws LockBusyError
 * (exit 1, code state-locked) when a live process holds it past `waitMs`.
 */
export async function withStateLock<T>(state: StateDir, fn: (lock: HeldLock) => T | Promise<T>, opts: LockOptions = {}): Promise<T> {
  // Two writers of one process contend like two processes do (the same pid, two entries): never nested.
  const entry = await acquire(lockDir(state), opts)
  const lock: HeldLock = {stillHeld: () => existsSync(entry)}
  try {
    return await fn(lock)
  } finally {
    try {
      unlinkSync(entry)
    } catch {
      // removed by hand: nothing to let go
    }
  }
}

async function acquire(dir: string, opts: LockOptions): Promise<string> {
  const self = whoAmI()
  const stat = opts.stat ?? ((pid: number) => processSource().stat(pid))
  const sleep = opts.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)))
  const waitMs = opts.waitMs ?? LOCK_WAIT_MS
  try {
    mkdirSync(dir, {mode: 0o700})
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw cannotLock(dir, error)
  }
  const stats = lstatSync(dir)
  if (!stats.isDirectory() || stats.uid !== process.getuid!())
    throw new PkError(
      'state-locked',
      `cannot lock the state directory: ${dir} is not a directory of yours (${stats.isSymbolicLink() ? 'a link' : stats.isDirectory() ? `uid ${stats.uid}` : 'a file'}); pk doctor explains`,
    )
  const started = Date.now()
  for (let attempt = 0; ; attempt++) {
    let got: ReturnType<typeof tryOnce>
    try {
      got = tryOnce(dir, self, stat)
    } catch (error) {
      throw cannotLock(dir, error)
    }
    if ('entry' in got) return got.entry
    const waited = Date.now() - started
    const holding = got.blocker.what !== 'wants'
    if ((holding && waited >= waitMs) || (!holding && waited >= Math.max(waitMs, CONTENTION_MS))) {
      // (a pid of another namespace means nothing here: no advice to signal it, only where to look)
      const message =
        got.blocker.what === 'unknown'
          ? `the state directory is locked by an entry of another pid namespace (pid ${got.blocker.pid} there), which pk cannot check from here; nothing was written. pk doctor names it (--fix removes it once you confirm that no pk runs there)`
          : `the state directory is locked by pid ${got.blocker.pid}, alive${waitMs > 0 ? ` for over ${Math.round(waitMs / 1000)} s (is it stopped? kill -CONT ${got.blocker.pid}; pk doctor says whether it is a pk)` : ''}; nothing was written`
      throw new LockBusyError(got.blocker, message)
    }
    // Random, growing pauses: two that only try at once do not meet again in step.
    await sleep(Math.min(250, 5 + Math.random() * 10 * 2 ** Math.min(attempt, 5)))
  }
}

const cannotLock = (dir: string, error: unknown) =>
  new PkError('state-locked', `cannot lock the state directory (${dir}): ${errnoCode(error) ?? (error as Error).message}`)
