import {randomBytes} from '../model/random.js'
import {closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmdirSync, statSync, unlinkSync} from 'node:fs'
import {join} from 'node:path'

import {errnoCode, PkError} from '../model/errors.js'
import {ProcStat} from '../proc/parse.js'
import {CLOCK_TICKS_PER_SECOND, readWholeBytes} from '../proc/reader.js'
import {processSource} from '../proc/source.js'
import {writeFileAtomic} from '../registry/atomic.js'
import {isPrivateDir} from '../registry/files.js'
import {StateDir} from '../registry/state-dir.js'

/**
 * The spool: events the agents' hooks left without starting node (`assets/pk-hook.sh`, or `pk hook`),
 * one file per event, named `STAMP-PID` by when it was sent, in a folder per second of uptime
 * (`spool/SECOND/STAMP-PID`), so that a reader lists only the newest few however large a backlog is. Readers take pending events into account in
 * memory and change nothing here; the one writer (`fold.ts`) applies them to the records and only then
 * removes them. A file's first line says who sent it and when:
 *
 *   pk-spool 2 AGENT UPTIME PID:START,PID:START,... [LENGTH]   the sender's ancestry, nearest first, up to pid 1
 *   pk-spool 3 AGENT EPOCH PID:START,... [LENGTH]              the same where there is no /proc: seconds since
 *                                                              the epoch, and start times as the ps source reads them
 *   pk-spool 1 AGENT PID START UPTIME                          (earlier pk: the sender alone)
 *
 * The rest is the agent's payload. A file that ends its first line with the payload's LENGTH in bytes was
 * written in place by the sh hook (no rename: a process less per event), and is an event only once it is
 * whole; one without was written aside and renamed into place whole.
 */

export interface Link {
  pid: number
  startTime: number
}

export interface SpoolEvent {
  /** The file's name in the spool directory. */
  name: string
  agent: string
  /** Seconds since boot when the hook ran (/proc/uptime), or since the epoch (`clock`): the event's time where the agent gives none. */
  uptime: number
  /** Which clock `uptime` is on: since boot (/proc), or since the epoch (the ps source's spool, version 3). */
  clock?: 'epoch'
  /** The process ancestry at the event, nearest first (pid and kernel start time of each). */
  chain: Link[]
  payload: string
  /** The agent's payload was longer than MAX_EVENT_BYTES and was cut there: only what identifies it is taken. */
  truncated?: boolean
  /** The payload's length in bytes as its first line gives it (a file written in place), when it does. */
  length?: number
}

const parseChain = (text: string): Link[] | null => {
  const links: Link[] = []
  for (const part of text.split(',')) {
    const match = /^(\d+):(\d+)$/.exec(part)
    if (!match) return null
    links.push({pid: Number(match[1]), startTime: Number(match[2])})
  }
  return links.length > 0 ? links : null
}

/** Pure: one spool file's text -> the event, or null when it is not one. */
export function parseSpoolText(name: string, text: string): SpoolEvent | null {
  const newline = text.indexOf('\n')
  const head = newline === -1 ? text : text.slice(0, newline)
  const payload = newline === -1 ? '' : text.slice(newline + 1)
  const v2 = /^pk-spool ([23]) ([a-z0-9_-]+) (\d+(?:\.\d+)?) ([\d:,]+)(?: (\d{1,9}))?$/.exec(head)
  if (v2) {
    const chain = parseChain(v2[4]!)
    if (chain === null) return null
    return {
      name,
      agent: v2[2]!,
      uptime: Number(v2[3]),
      chain,
      payload,
      ...(v2[1] === '3' ? {clock: 'epoch' as const} : {}),
      ...(v2[5] === undefined ? {} : {length: Number(v2[5])}),
    }
  }
  const v1 = /^pk-spool 1 ([a-z0-9_-]+) (\d+) (\d+) (\d+(?:\.\d+)?)$/.exec(head)
  if (v1) return {name, agent: v1[1]!, uptime: Number(v1[4]), chain: [{pid: Number(v1[2]), startTime: Number(v1[3])}], payload}
  return null
}

/** Pure: the time a spool file's name says it was sent (its stamp: /proc/uptime's digits), for ordering before reading. */
export function stampOf(name: string): number {
  // pk 0.1's names: PID-START-STAMP-HOOKPID
  const old = /^\d+-\d+-(\d+)-\d+$/.exec(name)
  if (old) return Number(old[1])
  const match = /^(\d+)-/.exec(name)
  return match ? Number(match[1]) : 0
}

/** Pure: the hook's pid a spool file's name ends in (`STAMP-PID`), or 0. */
const senderPidOf = (name: string) => Number(/-(\d+)(?:-[0-9a-f]+)?$/.exec(name)?.[1] ?? 0)

/**
 * Pure: events in the order they were sent: the sender's clock (hundredths of a second), then, within one
 * hundredth, the hook's pid (the hooks of one agent run one after another, and pids are handed out in
 * increasing order), then the name.
 */
export const inSentOrder = (events: SpoolEvent[]) =>
  [...events].sort((a, b) => a.uptime - b.uptime || senderPidOf(a.name) - senderPidOf(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))

export const spoolDir = (state: StateDir) => join(state.root, 'spool')

/**
 * The spool directory, only when it is a real directory of this user's (never a link: pk would read,
 * and its writer delete, whatever the link points at); else null.
 */
export function checkedSpool(state: StateDir): string | null {
  const dir = spoolDir(state)
  return isPrivateDir(dir) ? dir : null
}

/** Pure: whether a name in the spool is a bucket (a folder of one second's events, by /proc/uptime's seconds). */
const isBucketName = (name: string) => /^\d+$/.test(name)

/**
 * The spool's layout, read with one listing: buckets (one folder per second of uptime in which events were
 * sent, oldest first) and loose files (events of an earlier pk, which wrote them straight into the spool).
 * A bucket is listed only when its events are wanted, so a reader of a huge backlog lists a few of them.
 * Temporary files (`.tmp-*`) are hooks still writing, and never events.
 */
export function spoolLayout(dir: string): {buckets: string[]; loose: string[]} {
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => !n.startsWith('.'))
  } catch {
    return {buckets: [], loose: []}
  }
  const buckets = names.filter(isBucketName).sort((a, b) => Number(a) - Number(b))
  const loose = names.filter((n) => !isBucketName(n))
  return {buckets, loose: sortByStamp(loose)}
}

/**
 * Pure: names in the order their events were sent (stamp, then the sender's pid, then the name). Each
 * name's keys are worked out once, not at each comparison: a backlog of an earlier pk can hold 200,000.
 */
export function sortByStamp(names: string[]): string[] {
  const keyed = names.map((name) => ({name, stamp: stampOf(name), pid: senderPidOf(name)}))
  keyed.sort((a, b) => a.stamp - b.stamp || a.pid - b.pid || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (let i = 0; i < keyed.length; i++) names[i] = keyed[i]!.name
  return names
}

/** One bucket's files, as paths relative to the spool, oldest first; none when it is not a folder of this user's. */
export function bucketFiles(dir: string, bucket: string): string[] {
  if (!isPrivateDir(join(dir, bucket))) return []
  try {
    return sortByStamp(readdirSync(join(dir, bucket)).filter((n) => !n.startsWith('.'))).map((n) => `${bucket}/${n}`)
  } catch {
    return []
  }
}

/**
 * How many seconds ago, on the spool's clock, the oldest pending event was sent (by its bucket: to the
 * second), or null when none is pending. Loose files (of an earlier pk) count as long ago. Lists the spool
 * and its oldest buckets only.
 */
export function oldestPendingAge(dir: string, nowSeconds: number): number | null {
  const {buckets, loose} = spoolLayout(dir)
  if (loose.length > 0) return Number.POSITIVE_INFINITY
  for (const bucket of buckets) if (bucketFiles(dir, bucket).length > 0) return Math.max(0, nowSeconds - Number(bucket))
  return null
}

/** Every pending file, oldest first (paths relative to the spool). Lists every bucket: for the writer and tests, not readers. */
export function pendingNames(dir: string): string[] {
  const {buckets, loose} = spoolLayout(dir)
  return [...loose, ...buckets.flatMap((b) => bucketFiles(dir, b))]
}

/** Whether anything is pending, listing as little as it can. */
export function hasPending(dir: string): boolean {
  const {buckets, loose} = spoolLayout(dir)
  return loose.length > 0 || buckets.some((b) => bucketFiles(dir, b).length > 0)
}

/** The most pending events a reader takes into account: the newest ones. */
export const READER_PENDING_LIMIT = 256

/**
 * The largest event the spool keeps whole: the sh hook reads at most one byte more of an agent's payload,
 * so a payload of exactly MAX_EVENT_BYTES + 1 bytes is one that was cut (then only what identifies the
 * event, its kind and session, is taken from its beginning).
 */
export const MAX_EVENT_BYTES = 8 * 1024 * 1024

export interface Pending {
  events: SpoolEvent[]
  /** Files that are truly not events (garbage, too large, not regular, another user's), with why: the writer quarantines them. */
  rejected: {name: string; reason: string}[]
  /** Files that could not be read just now (not gone, not judged): left for the next writer. */
  deferred: {name: string; reason: string}[]
  /**
   * Whether every pending event was read. A reader takes only the newest; when there were more, what it
   * shows of the sessions those events touch may differ from what all of them say (see listing/sessions).
   */
  complete: boolean
}

/**
 * Why a spool file is not an event, that it cannot be read now, or that its hook is still writing it; null
 * when it is gone (applied meanwhile).
 */
type ReadOutcome = {event: SpoolEvent} | {rejected: string} | {deferred: string} | {writing: true} | null

/** Pure: whether a file's bytes so far could be the start of a spool file's first line (one being written). */
const mayBeHeadSoFar = (bytes: Buffer) => {
  const start = bytes.subarray(0, SPOOL_MAGIC.length).toString('latin1')
  return SPOOL_MAGIC.startsWith(start)
}
const SPOOL_MAGIC = 'pk-spool '

/**
 * Pure: whether the hook that made a spool file (its name's STAMP-PID) may still be writing it: a process
 * of that pid runs (not a zombie) and had started by the stamp it put in the name, so it is not a process
 * that was handed the pid later. `startSeconds` is the process' start on the stamp's clock (seconds after
 * boot for /proc, after the epoch for ps, whose start times are whole seconds: `slack`).
 */
export function makerMayBeWriting(name: string, stat: ProcStat | null, startSeconds: (startTime: number) => number, slack: number): boolean {
  const pid = senderPidOf(name)
  if (pid <= 0 || stat === null || stat.pid !== pid || stat.state.startsWith('Z')) return false
  return startSeconds(stat.startTime) <= stampOf(name.slice(name.lastIndexOf('/') + 1)) / 100 + slack
}

/** Whether a spool file's maker may still be writing it, asked of the kernel now (see makerMayBeWriting). */
function stillWriting(name: string): boolean {
  const source = processSource()
  const pid = senderPidOf(name)
  if (pid <= 0) return false
  const proc = source.name === 'proc'
  return makerMayBeWriting(name, source.stat(pid), (start) => (proc ? start / CLOCK_TICKS_PER_SECOND : start), proc ? 0.01 : 1)
}

/**
 * How much of an event's payload a reader reads: what identifies an event (its kind, its session, its
 * date) comes first in every agent's payload, and a reader needs no more (salvage takes it from there).
 * A tool's 8 MiB output is the writer's to read once, never every reader's at every look.
 */
export const READER_BODY_BYTES = 16 * 1024

/**
 * One spool file, judged: an event; truly not one (with why); not readable now; or gone. With `bodyBytes`
 * (a reader), no more of its payload than that is read: a longer one is an event cut there (`truncated`).
 */
export function readSpoolFile(dir: string, name: string, opts: {bodyBytes?: number} = {}): ReadOutcome {
  const path = join(dir, name)
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'ENOENT') return null
    if (code === 'ELOOP') return {rejected: 'a symbolic link'}
    if (code === 'EISDIR') return {rejected: 'a directory'}
    if (code === 'ENXIO') return {rejected: 'a FIFO'}
    return {deferred: code ?? String(error)}
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) return {rejected: stats.isFIFO() ? 'a FIFO' : stats.isDirectory() ? 'a directory' : 'not a regular file'}
    // Another user's file in a spool they could write (a bad mode): never applied, whatever it says.
    if (stats.uid !== process.getuid!()) return {rejected: `owned by uid ${stats.uid}, not by you`}
    if (stats.size > MAX_EVENT_BYTES + 64 * 1024) return {rejected: `too large (${stats.size} bytes)`}
    // A first line is short (an ancestry of a few dozen links): 64 KiB more than the body leaves room for it.
    const cap = opts.bodyBytes === undefined ? MAX_EVENT_BYTES + 64 * 1024 : opts.bodyBytes + 64 * 1024
    let bytes: Buffer
    try {
      bytes = stats.size > cap ? readPrefix(fd, cap) : readWholeBytes(fd, path, MAX_EVENT_BYTES + 64 * 1024)
    } catch (error) {
      return error instanceof RangeError ? {rejected: 'too large'} : {deferred: errnoCode(error) ?? String(error)}
    }
    // A file written in place (the sh hook's) is an event once it is whole: until then its hook is still
    // writing it, or died before it was done.
    const headBytes = bytes.indexOf(10) + 1
    if (headBytes === 0 && mayBeHeadSoFar(bytes))
      return stillWriting(name) ? {writing: true} : {rejected: 'cut short in its first line (its hook ended before it was written whole)'}
    const read = opts.bodyBytes === undefined ? bytes : bytes.subarray(0, headBytes + opts.bodyBytes)
    const event = parseSpoolText(name, read.toString('utf8'))
    if (event === null) return {rejected: 'not a pk spool event (its first line)'}
    // (the file's size, not what was read: a reader reads only the start of a long payload)
    const payloadBytes = Math.max(bytes.length, stats.size) - headBytes
    if (event.length !== undefined && payloadBytes !== event.length) {
      if (payloadBytes > event.length) return {rejected: `longer than its first line says (${payloadBytes} bytes, not ${event.length})`}
      return stillWriting(name)
        ? {writing: true}
        : {rejected: `cut short: ${payloadBytes} of its ${event.length} bytes (its hook ended before it was written whole)`}
    }
    const cut = payloadBytes > MAX_EVENT_BYTES || read.length < headBytes + payloadBytes
    return {event: cut ? {...event, truncated: true} : event}
  } finally {
    closeSync(fd)
  }
}

let prefixBuffer = Buffer.alloc(0)

/** The first `bytes` bytes of an open file (fewer when it is shorter): valid until the next call (one buffer, reused). */
function readPrefix(fd: number, bytes: number): Buffer {
  if (prefixBuffer.length < bytes) prefixBuffer = Buffer.allocUnsafe(bytes)
  const buffer = prefixBuffer
  let length = 0
  for (;;) {
    const n = readSync(fd, buffer, length, bytes - length, length)
    length += n
    if (n === 0 || length === bytes) return buffer.subarray(0, length)
  }
}

/** Read the named files (relative to the spool), in the order they were sent. Reads only. */
export function readSpoolFiles(dir: string, names: string[], opts: {bodyBytes?: number} = {}): Omit<Pending, 'complete'> {
  const events: SpoolEvent[] = []
  const rejected: Pending['rejected'] = []
  const deferred: Pending['deferred'] = []
  for (const name of names) {
    const outcome = readSpoolFile(dir, name, opts)
    if (outcome === null || 'writing' in outcome) continue // applied and removed meanwhile, or not yet whole
    if ('event' in outcome) events.push(outcome.event)
    else if ('rejected' in outcome) rejected.push({name, reason: outcome.rejected})
    else deferred.push({name, reason: outcome.deferred})
  }
  return {events: inSentOrder(events), rejected, deferred}
}

/**
 * A spool folder this large (its size as the file system reports it: about 20 bytes a name on tmpfs, more
 * on ext4, xfs and btrfs) holds thousands of names: loose files of an earlier pk, or buckets of hours
 * without a writer. A reader does not list it (200,000 names cost more than the whole listing).
 */
export const LARGE_SPOOL_BYTES = 512 * 1024
/** How many seconds back from the spool's last change a reader of a large spool looks for buckets. */
export const LARGE_SPOOL_SECONDS = 3600

/**
 * A reader's pending events: the newest `limit`, in the order they were sent, listing only the newest
 * buckets it needs. Reads only, and of each payload only what identifies the event (READER_BODY_BYTES);
 * `complete` says whether that was all of them.
 */
export function readPending(state: StateDir | null, limit = READER_PENDING_LIMIT): Pending {
  const dir = state === null ? null : checkedSpool(state)
  if (dir === null) return {events: [], rejected: [], deferred: [], complete: true}
  const large = largeSpool(dir)
  const {buckets, loose} = large === null ? spoolLayout(dir) : {buckets: large, loose: []}
  // Newest bucket first, then the loose files of an earlier pk (older than any bucket). No list is ever
  // spread into a call's arguments: a backlog of 200,000 names overflows the stack.
  const newestFirst: string[][] = []
  let count = 0
  let i = buckets.length - 1
  for (; i >= 0 && count < limit; i--) {
    const files = bucketFiles(dir, buckets[i]!)
    newestFirst.push(files)
    count += files.length
  }
  // (a large spool was not listed: what is older than the buckets found may be there)
  const complete = large === null && i < 0 && count + loose.length <= limit
  if (i < 0 && count < limit) newestFirst.push(loose.slice(Math.max(0, loose.length - (limit - count))))
  const names = newestFirst.reverse().flat()
  return {...readSpoolFiles(dir, names.slice(Math.max(0, names.length - limit)), {bodyBytes: READER_BODY_BYTES}), complete}
}

/**
 * The most pending files whose senders a wait reads (SpoolSender), past the few a reader reads whole: a
 * first line costs 30-60 µs a file (5000: a tenth to a quarter of a second a look, beside a full CPU).
 */
export const SENDER_SCAN_LIMIT = 5000

/** Who sent a pending event: its agent and the ancestry its hook noted, from the file's first line. */
export interface SpoolSender {
  agent: string
  chain: Link[]
}

/**
 * The senders of every pending event, from the first line of each file (no more of a long payload);
 * null when that cannot be told cheaply: a spool too large to list, or more than `limit` files. For a wait
 * behind a backlog (which sessions' events may wait beyond what a reader read). Reads only.
 */
export function pendingSenders(state: StateDir | null, limit = SENDER_SCAN_LIMIT): SpoolSender[] | null {
  const dir = state === null ? null : checkedSpool(state)
  if (dir === null) return []
  if (largeSpool(dir) !== null) return null
  const {buckets, loose} = spoolLayout(dir)
  const names: string[] = loose
  for (const bucket of buckets) {
    for (const name of bucketFiles(dir, bucket)) names.push(name)
    if (names.length > limit) return null
  }
  if (names.length > limit) return null
  const senders: SpoolSender[] = []
  for (const name of names) {
    // (no payload: the first line names the sender; a file not yet whole, or no event, names nobody yet)
    const outcome = readSpoolFile(dir, name, {bodyBytes: 0})
    if (outcome !== null && 'event' in outcome) senders.push({agent: outcome.event.agent, chain: outcome.event.chain})
  }
  return senders
}

/**
 * The buckets of a spool too large to list (LARGE_SPOOL_BYTES), oldest first, found by their names: the
 * seconds on the spool's clock, back from when the folder last changed (a bucket made then changed it),
 * LARGE_SPOOL_SECONDS of them. Null for a spool of ordinary size: it is listed.
 */
function largeSpool(dir: string): string[] | null {
  const stats = statSync(dir, {throwIfNoEntry: false})
  if (stats === undefined || stats.size < LARGE_SPOOL_BYTES) return null
  const clock = processSource().clock()
  if (clock === null) return null
  const changed = Math.floor(clock.seconds - (Date.now() - stats.mtimeMs) / 1000) + 2
  const found: string[] = []
  for (let second = Math.min(changed, Math.floor(clock.seconds) + 2); second >= 0 && second > changed - LARGE_SPOOL_SECONDS; second--) {
    if (statSync(join(dir, String(second)), {throwIfNoEntry: false})?.isDirectory()) found.push(String(second))
  }
  return found.reverse()
}

/**
 * A drained spool folder the file system keeps large (ext4 never shrinks a folder) would keep readers from
 * listing it: an empty one takes its place. rename(2) replaces a folder only when it is empty, so one a hook
 * wrote into meanwhile (a bucket, a file being written) stays as it is, and the next writer tries again.
 */
export function compactSpool(dir: string): void {
  const stats = statSync(dir, {throwIfNoEntry: false})
  if (stats === undefined || stats.size < LARGE_SPOOL_BYTES) return
  const fresh = `${dir}.fresh-${process.pid}`
  try {
    mkdirSync(fresh, {mode: 0o700})
    renameSync(fresh, dir)
  } catch {
    try {
      rmdirSync(fresh)
    } catch {
      // not made, or gone
    }
  }
}

/**
 * Put one event into the spool (the writer's side of it, as the sh hook does): written whole, then
 * renamed into place under a name that orders it by when it was sent. The caller checked that it may write.
 */
export function enqueue(state: StateDir, agent: string, chain: Link[], payload: string): string {
  const clock = processSource().clock()
  if (clock === null || chain.length === 0) throw new PkError('no-view', 'cannot date the event: /proc/uptime is unreadable')
  const uptime = clock.seconds
  const dir = spoolDir(state)
  mkdirSync(dir, {recursive: true, mode: 0o700})
  if (checkedSpool(state) === null) throw new PkError('unsafe-state-dir', `${dir} is not a directory of this user's (a link?); pk doctor explains`)
  const head = `pk-spool ${clock.kind === 'epoch' ? 3 : 2} ${agent} ${uptime.toFixed(2)} ${chain.map((l) => `${l.pid}:${l.startTime}`).join(',')}\n`
  const bucket = join(dir, String(Math.floor(uptime)))
  mkdirSync(bucket, {recursive: true, mode: 0o700})
  const file = join(bucket, `${uptime.toFixed(2).replace('.', '')}-${process.pid}-${randomBytes(3).toString('hex')}`)
  writeFileAtomic(file, head + payload, 'create')
  return file
}

/** Pure: the pid of the process that made a temporary file in the spool (the sh hook's `.tmp-PID-STAMP`, pk hook's `.tmp-STAMP-PID-RAND-RAND`), or null. */
export function tempMaker(name: string): number | null {
  const sh = /^\.tmp-(\d+)-\d+$/.exec(name)
  if (sh) return Number(sh[1])
  const node = /^\.tmp-\d+-(\d+)-[0-9a-f]+-[0-9a-f]+$/.exec(name)
  return node ? Number(node[1]) : null
}

/** Whether any process has this pid now (a signal 0 asks the kernel, with or without /proc). */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errnoCode(error) !== 'ESRCH'
  }
}

/**
 * Temporary files in the spool (and its folders) whose maker is gone: a hook or writer killed mid-write.
 * A file whose maker still runs (however long it is stopped) is its own; one that names no maker is left
 * to a person (pk doctor names it). Paths relative to the spool.
 */
export function orphanTemps(dir: string): string[] {
  const found: string[] = []
  const look = (sub: string) => {
    let names: string[]
    try {
      names = readdirSync(join(dir, sub))
    } catch {
      return
    }
    for (const name of names) {
      if (!name.startsWith('.tmp-')) continue
      const pid = tempMaker(name)
      if (pid !== null && !pidExists(pid)) found.push(sub === '' ? name : `${sub}/${name}`)
    }
  }
  look('')
  for (const bucket of spoolLayout(dir).buckets) look(bucket)
  return found
}

/** Remove the orphaned temporary files (see orphanTemps); their names. */
export function sweepTemps(dir: string): string[] {
  const removed: string[] = []
  for (const name of orphanTemps(dir)) {
    try {
      unlinkSync(join(dir, name))
      removed.push(name)
    } catch {
      // gone meanwhile
    }
  }
  return removed
}

/**
 * Names in the spool (or a bucket of it) that are not UTF-8: no hook writes one, and as a string such a
 * name opens nothing (it reads as U+FFFD), so it is neither an event nor removable by name. Their exact
 * bytes, relative to the spool, for the writer to move to quarantine.
 */
export function strayNames(dir: string): Buffer[] {
  const found: Buffer[] = []
  const look = (sub: string) => {
    let names: Buffer[]
    try {
      names = readdirSync(join(dir, sub), {encoding: 'buffer'})
    } catch {
      return
    }
    for (const name of names)
      if (!Buffer.from(name.toString('utf8'), 'utf8').equals(name)) found.push(sub === '' ? name : Buffer.concat([Buffer.from(`${sub}/`), name]))
  }
  look('')
  for (const bucket of spoolLayout(dir).buckets) look(bucket)
  return found
}
