import {PaneId, TmuxSessionId} from '../model/ids.js'
import {lstatSync, mkdirSync, renameSync, rmdirSync, unlinkSync} from 'node:fs'
import {join} from 'node:path'

import {correlate} from '../listing/pairing.js'
import {SessionRow} from '../model/contract.js'
import {Applied, Outcome, World, applyEvents, worldOf} from '../events/events.js'
import {PkError} from '../model/errors.js'
import {identityFromStat, sessionIdOf} from '../proc/identity.js'
import {processSource} from '../proc/source.js'
import {appendRegularFile} from '../registry/files.js'
import {namesMe, releaseWriterMark} from '../events/writer-mark.js'
import {HeldLock, LockBusyError} from '../registry/lock.js'
import {mayWrite, withWriteAccess} from '../registry/ownership.js'
import {RECORD_VERSION, SessionRecord, createRecord, readRecords, replaceRecord} from '../registry/records.js'
import {UsageRules, readCache, readOn, transcriptOf, writeCache} from '../usage/usage.js'
import {Env, StateDir} from '../registry/state-dir.js'
import {bootMs, usageRules} from '../listing/sessions.js'
import {Snapshot, takeSnapshot} from '../listing/snapshot.js'
import {bucketFiles, checkedSpool, compactSpool, hasPending, readSpoolFile, readSpoolFiles, spoolLayout, strayNames, sweepTemps} from '../events/spool.js'
import {Context} from '../config/context.js'

/**
 * The one writer of events: applies pending spool events to the records, then removes them; nothing else
 * does (the registry's other writers leave them alone). It lists the spool once per pass, bucket by bucket
 * (oldest first), and applies each bucket's events in batches, the lock taken per batch, so a backlog
 * drains in time linear in its size and bg or stop get their turn between batches. It waits for a live
 * lock holder (never overtakes one) up to a bound, then leaves the events for the next writer.
 * An event leaves the spool only once applied, or judged nobody's and logged (hook.log); a file that is
 * truly not an event goes to `quarantine/` with why; one that cannot be read now stays where it is.
 */

export interface FoldResult {
  /** A live process held the lock past the writer's wait: what is pending stays for the next writer. */
  busy: boolean
  /** A tmux server did not answer in time: the writer judged no event, and left them pending. */
  blind?: boolean
  /** Who held the lock, when busy (the lock's own words). */
  heldBy?: string
  outcomes: Outcome[]
  /** Ids of sessions whose new state may need the user (a turn ended, it waits). */
  mayNeedYou: string[]
  /** Whether anything left the spool (applied, judged nobody's, or quarantined). */
  progressed?: boolean
}

/** How many events one batch applies under one hold of the lock (one look at the world each). */
const BATCH = 2000
/** The writer runs in the background: it waits this long for a slow tmux server before leaving events pending. */
export const WRITER_TMUX_DEADLINE_MS = 20_000

export interface FoldOptions {
  /** How long to wait for a live lock holder (ms); LOCK_WAIT_MS when not given. */
  waitMs?: number
}

export async function foldPending(ctx: Context, state: StateDir | null = ctx.readState(), opts: FoldOptions = {}): Promise<FoldResult> {
  const result: FoldResult = {busy: false, outcomes: [], mayNeedYou: []}
  if (state === null || checkedSpool(state) === null || !mayWrite(state)) return result
  const dir = checkedSpool(state)!
  // Each pass lists the spool once; a pass that applies nothing (all pending files deferred) ends it.
  for (let pass = 0; pass < 100; pass++) {
    const {buckets, loose} = spoolLayout(dir)
    let progressed = false
    const visited: string[] = []
    for (const group of [null, ...buckets]) {
      // An event that landed in a bucket this pass went through already was sent before this bucket's: it
      // goes first (the next pass), so that the writer applies events in the order readers see them.
      if (group !== null && visited.some((bucket) => bucketFiles(dir, bucket).some((name) => isEvent(readSpoolFile(dir, name))))) {
        progressed = true
        break
      }
      const names = group === null ? loose : bucketFiles(dir, group)
      for (let at = 0; at < names.length; at += BATCH) {
        const batch = await applyBatchLocked(ctx, state, dir, names.slice(at, at + BATCH), opts)
        if (typeof batch === 'object' && 'heldBy' in batch) return {...result, busy: true, heldBy: batch.heldBy}
        if (batch === 'blind') return {...result, blind: true}
        merge(result, batch)
        if (batch.progressed) progressed = result.progressed = true
      }
      if (group !== null && !dropBucket(dir, group)) visited.push(group)
    }
    if (!progressed) break
  }
  // What killed hooks and writers left half written is nobody's now; a name that is not UTF-8 was no hook's.
  sweepTemps(dir)
  compactSpool(dir)
  const strays = strayNames(dir)
  if (strays.length > 0)
    logHook(
      state,
      strays.map(
        (name) =>
          `spool ${JSON.stringify(name.toString('utf8'))}: not an event (its name is not UTF-8); ${quarantine(state, dir, name) ? 'moved to quarantine/' : 'left in place (it could not be moved)'}`,
      ),
    )
  return result
}

async function applyBatchLocked(
  ctx: Context,
  state: StateDir,
  dir: string,
  names: string[],
  opts: FoldOptions,
): Promise<BatchResult | {heldBy: string} | 'blind'> {
  try {
    return await withWriteAccess(state, (lock) => applyBatch(state, dir, ctx, names, lock), {waitMs: opts.waitMs})
  } catch (error) {
    if (error instanceof LockBusyError) return {heldBy: error.message}
    if (error instanceof BlindError) return 'blind'
    throw error
  }
}

/** Whether a spool file, as read, is an event (whole): not gone, not being written, not one that cannot be read or is no event. */
const isEvent = (outcome: ReturnType<typeof readSpoolFile>) => outcome !== null && 'event' in outcome

/** A drained bucket of an earlier second goes (a hook of this second may still be about to write into it; it makes it again if not); whether it went. */
function dropBucket(dir: string, bucket: string): boolean {
  const now = processSource().clock()
  if (now === null || Number(bucket) >= Math.floor(now.seconds) - 1) return false
  try {
    rmdirSync(join(dir, bucket))
    return true
  } catch {
    return false // not empty (an event arrived): the next pass takes it
  }
}

function merge(into: FoldResult, from: Omit<FoldResult, 'busy'>): void {
  into.outcomes.push(...from.outcomes)
  for (const id of from.mayNeedYou) if (!into.mayNeedYou.includes(id)) into.mayNeedYou.push(id)
}

interface BatchResult extends Omit<FoldResult, 'busy'> {
  /** Whether anything left the spool (applied, judged nobody's, or quarantined). */
  progressed: boolean
}

/** The writer could not see the world in time (a tmux server did not answer): it judges no event blind. */
class BlindError extends Error {}

/**
 * Apply one batch of pending events, the lock held: one look at the world (tmux, /proc, the records:
 * listed once however many events there are), each changed record written once, then the applied files
 * removed. Before it writes, it checks it still holds the lock; if not, it writes nothing.
 */
async function applyBatch(state: StateDir, dir: string, ctx: Context, names: string[], lock: HeldLock): Promise<BatchResult> {
  const read = readSpoolFiles(dir, names)
  const log: string[] = read.deferred.map((d) => `spool ${d.name}: cannot be read now (${d.reason}); left for the next writer`)
  let outcomes: Outcome[] = []
  const mayNeedYou: string[] = []
  const records = new Map<string, SessionRecord>()
  const changes: {id: string; row: SessionRow; entry: Applied}[] = []
  let snap: Snapshot | null = null
  let world: World | null = null
  if (read.events.length > 0) {
    snap = await takeSnapshot(ctx, {state, deadlineMs: WRITER_TMUX_DEADLINE_MS})
    // Slow is not absent: a server that did not answer would make every event of its sessions look nobody's.
    const silent = snap.servers.filter((s) => s.status === 'unresponsive')
    if (silent.length > 0) {
      logHook(state, [
        `tmux server ${silent.map((s) => s.socket).join(', ')} did not answer in ${WRITER_TMUX_DEADLINE_MS / 1000} s; ${read.events.length} event(s) left pending`,
      ])
      throw new BlindError()
    }
    for (const s of snap.records) records.set(s.file, s.record)
    const {rows} = correlate({
      view: snap.view,
      servers: snap.servers,
      records: snap.records,
      source: snap.proc,
      presets: snap.presets,
      trustRecords: snap.trust.trusted,
    })
    world = worldOf(snap.view, rows, snap.proc, records, ctx.env)
    const applied = applyEvents(read.events, world, records, bootMs())
    outcomes = applied.outcomes
    for (const [id, entry] of applied.applied) if (entry.changed) changes.push({id, row: world.rowsById.get(id)!, entry})
  }
  if (!lock.stillHeld()) throw new PkError('state-locked', 'the state lock was taken from this writer (its entry is gone); it wrote nothing')
  const touched: string[] = []
  for (const {id, row, entry} of changes) {
    const written = row.record
      ? update(row.record, records.get(row.record)!, entry)
      : create(state, snap!.view, snap!.servers.find((s) => s.socket === row.tmux?.socket)?.serverPid ?? undefined, row, entry)
    if (written === null) {
      log.push(`session ${id}: ${entry.agentLink ? 'its agent process is gone' : 'nothing to record it by'}; its events are dropped`)
      continue
    }
    if (entry.mayNeedYou) mayNeedYou.push(written)
    touched.push(written)
  }
  for (const o of outcomes) if (o.id === null) log.push(`${o.event.agent} event ${o.event.name}: nobody's (${o.reason})`)
  if (touched.length > 0) rememberUsage(state, touched, ctx.env, await usageRules(ctx))
  for (const r of read.rejected)
    log.push(
      `spool ${r.name}: not an event (${r.reason}); ${quarantine(state, dir, r.name) ? 'moved to quarantine/' : 'left in place (it could not be moved)'}`,
    )
  logHook(state, log)
  for (const event of read.events) {
    try {
      unlinkSync(join(dir, event.name))
    } catch {
      // gone already
    }
  }
  return {outcomes, mayNeedYou, progressed: read.events.length + read.rejected.length > 0}
}

/** The quarantine folder, made where missing: a real directory of this user's, or null. */
function quarantineDir(state: StateDir): string | null {
  const into = join(state.root, 'quarantine')
  try {
    mkdirSync(into, {mode: 0o700})
  } catch {
    // there already
  }
  try {
    const stats = lstatSync(into)
    return stats.isDirectory() && stats.uid === process.getuid!() ? into : null
  } catch {
    return null
  }
}

/**
 * Move a file that is not an event out of the spool, kept for a person to look at (never deleted). The
 * name as a string, or as its bytes where it is not UTF-8 (then kept under its bytes in hex).
 */
function quarantine(state: StateDir, dir: string, name: string | Buffer): boolean {
  const into = quarantineDir(state)
  if (into === null) return false
  try {
    if (typeof name === 'string') renameSync(join(dir, name), join(into, `${Date.now()}-${name.replaceAll('/', '-')}`))
    else renameSync(Buffer.concat([Buffer.from(`${dir}/`), name]), join(into, `${Date.now()}-${name.toString('hex')}`))
    return true
  } catch {
    return false
  }
}

/**
 * How long the writer keeps coming back for events it could not apply (the lock held past its wait, a tmux
 * server silent, a file still being written), counted from the last time it applied any: no later hook may
 * come to start another writer. The last event of a turn, its Stop, would wait for the next turn, and its
 * end would never be told; a backlog it drains for longer than this would stay where it stopped.
 */
export const WRITER_PERSIST_MS = 5 * 60_000
/** Between two tries of a writer that comes back. */
const WRITER_RETRY_MS = 1500

/**
 * The writer's whole run (`pk notify --fold`): apply what is pending, coming back (`persistMs` after it last
 * applied anything) while events stay pending, take its name away, and look once more (an event whose hook
 * saw the name did not start another writer).
 */
export async function runWriter(ctx: Context, state: StateDir | null = ctx.readState(), opts: {persistMs?: number} = {}): Promise<FoldResult> {
  const persist = opts.persistMs ?? 0
  const result = await foldPending(ctx, state)
  if (state === null) return result
  let until = Date.now() + persist
  let last: FoldResult = result
  // Only the writer a hook started and named comes back: it runs in the background, and hooks start no other while it does.
  while ((last.busy || last.blind || spoolHasPending(state)) && Date.now() + WRITER_RETRY_MS < until && namesMe(state)) {
    if (last.busy) logHook(state, [`events pending: ${last.heldBy ?? 'the state lock is held'}; the writer tries again`])
    await new Promise((r) => setTimeout(r, WRITER_RETRY_MS))
    last = await foldPending(ctx, state)
    merge(result, last)
    if (last.progressed) until = Date.now() + persist
  }
  await releaseWriterMark(state)
  if (!spoolHasPending(state)) return {...result, busy: false, blind: false}
  last = await foldPending(ctx, state)
  merge(result, last)
  return {...result, busy: last.busy, blind: last.blind}
}

/** Whether events are pending (the writer's last look after letting go of its name). */
export function spoolHasPending(state: StateDir | null): boolean {
  const dir = state === null ? null : checkedSpool(state)
  return dir !== null && hasPending(dir)
}

function update(file: string, record: SessionRecord, entry: Applied): string {
  replaceRecord(file, {
    ...record,
    agent: record.agent ?? entry.agent,
    status: entry.status,
    conversationId: entry.conversationId,
    observed: entry.observed,
    transcript: entry.transcript,
  })
  return sessionIdOf(record.identity)
}

/** A session nobody recorded (an agent started by hand in a pane): its record, from the process the events name. */
function create(
  state: StateDir,
  view: {bootId: string; pidNs: string},
  serverPid: number | undefined,
  row: {id: string; pid: number | null; tmux: {socket: string; pane: PaneId; sessionId: TmuxSessionId} | null},
  entry: Applied,
): string | null {
  const pid = entry.agentLink?.pid ?? row.pid
  const table = processSource().table()
  const stat = pid === null ? null : table.stat(pid)
  if (stat === null || row.tmux === null || serverPid === undefined || (entry.agentLink && stat.startTime !== entry.agentLink.startTime)) return null
  // Not while the second it started in lasts, where start times are read to the second (ps): another
  // process could still take its pid in that second and read alike. Once it is over, the process must
  // still be there, or it is gone like any other (the writer runs in the background: the wait is its own).
  const source = processSource()
  const wait = (source.startDate(stat.startTime)?.getTime() ?? 0) + source.startResolutionMs - Date.now()
  if (wait > 0) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait)
    if (source.stat(stat.pid)?.startTime !== stat.startTime) return null
  }
  const identity = identityFromStat(view, stat)
  const record: SessionRecord = {
    version: RECORD_VERSION,
    identity,
    tmux: {socket: row.tmux.socket, paneId: row.tmux.pane, sessionId: row.tmux.sessionId, serverPid},
    cwd: table.cwd(identity.pid) ?? '/',
    argv: table.argv(identity.pid) ?? [],
    agent: entry.agent,
    label: null,
    createdAt: new Date().toISOString(),
    startedAt: processSource().startDate(identity.startTime)?.toISOString() ?? null,
    conversationId: entry.conversationId,
    status: entry.status,
    observed: entry.observed,
    transcript: entry.transcript,
  }
  try {
    createRecord(state, record)
  } catch {
    return null // a record of the same process appeared meanwhile: the next fold applies to it
  }
  return sessionIdOf(identity)
}

/**
 * How far each touched session's transcript was read, and what it said: kept, so that readers read only what
 * is appended after (a transcript grows to tens of megabytes). Records are read afresh: they were just written.
 */
function rememberUsage(state: StateDir, ids: string[], env: Env, rules: UsageRules): void {
  const all = readRecords(state).records
  for (const id of ids) {
    try {
      const stored = all.find((r) => sessionIdOf(r.record.identity) === id)
      if (!stored) continue
      const file = transcriptOf(stored.record, env)
      const cache = file === null ? null : readOn(stored.record.agent!, file, readCache(state, id), rules)
      if (cache !== null) writeCache(state, id, cache)
    } catch {
      // usage is a nicety: never in the way of applying events
    }
  }
}

/** Lines for hook.log, each dated: what the writer did not apply, and why. */
export function logHook(state: StateDir, lines: string[]): void {
  if (lines.length === 0) return
  const at = new Date().toISOString()
  try {
    appendRegularFile(join(state.root, 'hook.log'), lines.map((l) => `${at} ${l}\n`).join(''))
  } catch {
    // nowhere safe to log
  }
}
