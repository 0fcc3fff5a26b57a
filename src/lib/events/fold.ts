import {PaneId, TmuxSessionId} from '../model/ids.js'
import {unlinkSync} from 'node:fs'
import {join} from 'node:path'

import {correlate} from '../model/correlate.js'
import {Applied, Outcome, applyEvents, worldOf} from './events.js'
import {PkError} from '../model/errors.js'
import {identityFromStat, sessionIdOf} from '../proc/identity.js'
import {readCmdline, readCwd, readStat, startTimeToDate} from '../proc/reader.js'
import {appendRegularFile} from '../registry/files.js'
import {mayWrite, withWriteAccess} from '../registry/ownership.js'
import {RECORD_VERSION, SessionRecord, createRecord, readRecords, replaceRecord} from '../registry/records.js'
import {UsageRules, readCache, readOn, transcriptOf, writeCache} from '../usage/usage.js'
import {Env, StateDir} from '../registry/state-dir.js'
import {bootMs} from '../listing/sessions.js'
import {takeSnapshot} from '../listing/snapshot.js'
import {checkedSpool, pendingNames, readPending} from './spool.js'
import {Context} from '../model/context.js'

/**
 * The one writer of events: applies pending spool events to the records, then removes them. Single
 * flight: it never waits for the registry lock (whoever holds it applies what is pending before letting
 * go, see `applyPendingHeld`), and after letting go it looks once more, so an event that arrived while the
 * lock was held is not left behind. An event leaves the spool only once applied, or judged nobody's and
 * logged (hook.log).
 */

export interface FoldResult {
  /** Another pk held the lock: it applies what is pending before it lets go. */
  busy: boolean
  outcomes: Outcome[]
  /** Ids of sessions whose new state may need the user (a turn ended, it waits). */
  mayNeedYou: string[]
}

/** How long a pending batch may be: a huge spool is applied in slices, the lock let go between them. */
const BATCH = 5000

export async function foldPending(ctx: Context, state: StateDir | null = ctx.readState()): Promise<FoldResult> {
  const result: FoldResult = {busy: false, outcomes: [], mayNeedYou: []}
  if (state === null || checkedSpool(state) === null || !mayWrite(state)) return result
  for (let round = 0; round < 100; round++) {
    if (pendingNames(checkedSpool(state)!).length === 0) break
    let got = false
    try {
      await withWriteAccess(
        state,
        async () => {
          got = true
          merge(result, await applyPendingHeld(state, ctx))
        },
        {wait: false, pending: null},
      )
    } catch (error) {
      if (!got && error instanceof PkError && error.code === 'state-locked') return {...result, busy: true}
      throw error
    }
  }
  return result
}

function merge(into: FoldResult, from: Omit<FoldResult, 'busy'>): void {
  into.outcomes.push(...from.outcomes)
  for (const id of from.mayNeedYou) if (!into.mayNeedYou.includes(id)) into.mayNeedYou.push(id)
}

/**
 * Apply every pending event (up to a batch), the lock held by the caller: one look at the world (tmux,
 * /proc, the records: listed once however many events there are), each changed record written once, then
 * the applied files removed.
 */
export async function applyPendingHeld(state: StateDir, ctx: Context): Promise<Omit<FoldResult, 'busy'>> {
  const dir = checkedSpool(state)
  if (dir === null) return {outcomes: [], mayNeedYou: []}
  const pending = readPending(state, BATCH, 'oldest')
  if (pending.events.length === 0 && pending.unreadable.length === 0) return {outcomes: [], mayNeedYou: []}
  const log: string[] = pending.unreadable.map((name) => `spool ${name}: not an event; removed`)
  let outcomes: Outcome[] = []
  const mayNeedYou: string[] = []
  if (pending.events.length > 0) {
    const snap = await takeSnapshot(ctx, {state})
    const records = new Map(snap.records.map((s) => [s.file, s.record]))
    const {rows} = correlate({view: snap.view, servers: snap.servers, records: snap.records, source: snap.proc, presets: snap.presets, trustRecords: snap.trust.trusted})
    const world = worldOf(snap.view, rows, snap.proc, records, ctx.env)
    const applied = applyEvents(pending.events, world, records, bootMs())
    const touched: string[] = []
    outcomes = applied.outcomes
    for (const [id, entry] of applied.applied) {
      if (!entry.changed) continue
      const row = world.rowsById.get(id)!
      const written = row.record ? update(row.record, records.get(row.record)!, entry) : create(state, snap.view, snap.servers.find((s) => s.socket === row.tmux?.socket)?.serverPid ?? undefined, row, entry)
      if (written === null) {
        log.push(`session ${id}: ${entry.agentLink ? 'its agent process is gone' : 'nothing to record it by'}; its events are dropped`)
        continue
      }
      if (entry.mayNeedYou) mayNeedYou.push(written)
      touched.push(written)
    }
    for (const o of outcomes) if (o.id === null) log.push(`${o.event.agent} event ${o.event.name}: nobody's (${o.reason})`)
    if (touched.length > 0) rememberUsage(state, touched, ctx.env, await (await import('../listing/sessions.js')).usageRules(ctx))
  }
  writeLog(state, log)
  for (const name of [...pending.events.map((e) => e.name), ...pending.unreadable]) {
    try {
      unlinkSync(join(dir, name))
    } catch {
      // gone already
    }
  }
  return {outcomes, mayNeedYou}
}

function update(file: string, record: SessionRecord, entry: Applied): string {
  replaceRecord(file, {...record, agent: record.agent ?? entry.agent, status: entry.status, conversationId: entry.conversationId, observed: entry.observed, transcript: entry.transcript})
  return sessionIdOf(record.identity)
}

/** A session nobody recorded (an agent started by hand in a pane): its record, from the process the events name. */
function create(state: StateDir, view: {bootId: string; pidNs: string}, serverPid: number | undefined, row: {id: string; pid: number | null; tmux: {socket: string; pane: PaneId; sessionId: TmuxSessionId} | null}, entry: Applied): string | null {
  const pid = entry.agentLink?.pid ?? row.pid
  const stat = pid === null ? null : readStat(pid)
  if (stat === null || row.tmux === null || serverPid === undefined || (entry.agentLink && stat.startTime !== entry.agentLink.startTime)) return null
  const identity = identityFromStat(view, stat)
  const record: SessionRecord = {
    version: RECORD_VERSION,
    identity,
    tmux: {socket: row.tmux.socket, paneId: row.tmux.pane, sessionId: row.tmux.sessionId, serverPid},
    cwd: readCwd(identity.pid) ?? '/',
    argv: readCmdline(identity.pid) ?? [],
    agent: entry.agent,
    label: null,
    createdAt: new Date().toISOString(),
    startedAt: startTimeToDate(identity.startTime)?.toISOString() ?? null,
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

function writeLog(state: StateDir, lines: string[]): void {
  if (lines.length === 0) return
  const at = new Date().toISOString()
  try {
    appendRegularFile(join(state.root, 'hook.log'), lines.map((l) => `${at} ${l}\n`).join(''))
  } catch {
    // nowhere safe to log
  }
}
