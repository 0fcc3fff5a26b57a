import {startPkDetached} from '../exec/run.js'
import {join} from 'node:path'

import {HOOKS_REPORT_WORK} from '../agents/presets.js'
import {SessionRow} from '../model/contract.js'
import {ScreenObservation, SCREEN_EVENT, isEventDate} from './events.js'
import {PkError} from '../model/errors.js'
import {isUntold, markerName, markerState} from '../registry/markers.js'
import {mayWrite} from '../registry/ownership.js'
import {Env, StateDir} from '../registry/state-dir.js'
import {enqueue} from './spool.js'
import {eventsStranded} from './writer-mark.js'
import {Context} from '../config/context.js'

/**
 * Watchers (`pk ls --watch`, the dashboard) look again and again, so they see what no single look can: a
 * screen that went from working to idle (a turn of an agent without hooks ended), or a dialog appearing.
 * They write nothing themselves (a reader never writes): they hand what they saw to the one writer, a
 * `pk notify` they start, which records it once (whoever else saw it too) and tells the user.
 */

/** What a watcher hands in: which process, and what its screen showed. */
export interface Observation extends ScreenObservation {
  pid: number
  startTime: number
}

/** Pure: the observation text `pk notify --observe` takes, checked. */
export function parseObservation(text: string): Observation {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    throw new PkError('bad-payload', '--observe takes a JSON object')
  }
  const o = data as Record<string, unknown>
  const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0
  if (
    typeof data !== 'object' ||
    data === null ||
    !count(o.pid) ||
    !count(o.startTime) ||
    (o.state !== 'idle' && o.state !== 'waiting' && o.state !== 'limited') ||
    !count(o.firstSeen) ||
    !isEventDate(o.firstSeen) ||
    (count(o.lastOther) && !isEventDate(o.lastOther))
  ) {
    throw new PkError('bad-payload', '--observe needs pid, startTime, state (idle, waiting or limited) and firstSeen (ms since the epoch, before 2100)')
  }
  return {
    pid: o.pid as number,
    startTime: o.startTime as number,
    state: o.state,
    from: typeof o.from === 'string' ? o.from : null,
    firstSeen: o.firstSeen as number,
    lastOther: count(o.lastOther) ? (o.lastOther as number) : null,
  }
}

/** Put an observation into the spool, for the writer to apply like any event. */
export function spoolObservation(ctx: Context, text: string): void {
  const o = parseObservation(text)
  const state = ctx.readState()
  if (state === null || !mayWrite(state)) throw new PkError('foreign-namespace', 'this pk may not write the state directory; the observation is not kept')
  const payload: ScreenObservation = {state: o.state, from: o.from, firstSeen: o.firstSeen, lastOther: o.lastOther}
  enqueue(state, SCREEN_EVENT, [{pid: o.pid, startTime: o.startTime}], JSON.stringify(payload))
}

interface Seen {
  state: string
  since: number
  /** When this watcher last looked and saw it (any state). */
  lastLook: number
  /** The last look that saw another state: an earlier episode ended after it. */
  lastOther: number | null
  /** The episode (state and since) handed in already. */
  handed: string | null
}

/**
 * Pure: since when a state this watcher sees anew has been there: now, for a change it saw happen; for a limit
 * already on the screen at its first look of the session, since the pane last changed (a screen stopped at its
 * limit does not move): its reset, a clock time with no date, is read from that moment (issue 70: a Codex
 * limit first seen after its reset was dated to the next day).
 */
export function firstSight(row: SessionRow, before: {state: string} | undefined, now: number): number {
  const activity = row.tmux?.activity ?? null
  if (before === undefined && row.state === 'limited' && activity !== null) return Math.min(now, activity * 1000)
  return now
}

/** Pure-ish bookkeeping of one watcher: what each session showed, and what it handed to the writer. */
export class ScreenWatch {
  private seen = new Map<string, Seen>()
  /** When each event was last handed to a notifier (`pk notify --check`). */
  private asked = new Map<string, number>()

  /** Observations to hand in for this listing: a screen state that needs the user and has no date of its own. */
  observe(rows: SessionRow[], identity: (row: SessionRow) => {pid: number; startTime: number} | null, now: number): Observation[] {
    const out: Observation[] = []
    const present = new Set<string>()
    for (const row of rows) {
      present.add(row.id)
      const before = this.seen.get(row.id)
      const current: Seen =
        before && before.state === row.state
          ? before
          : {state: row.state, since: firstSight(row, before, now), lastLook: now, lastOther: before ? before.lastLook : null, handed: null}
      current.lastLook = now
      this.seen.set(row.id, current)
      if (row.state !== 'idle' && row.state !== 'waiting' && row.state !== 'limited') continue
      const from = before && before.state !== row.state ? before.state : null
      // A state the screen alone shows, not dated yet; or one dated before the work this watcher saw, which
      // ended since (a failed Codex turn: the last hook report is the previous turn's). Only for an agent
      // whose hooks do not report work: where they do, work is a report of its own, and an older report
      // coming back (a pending report of the new turn a reader did not take in this time, under a storm)
      // is no turn end; the turn's end is a report, or a screen that reads idle against it (undated).
      // (The agent's own word is dated, but its idle does not say whether a turn ended: work seen to end is.)
      const undated = (row.stateSource === 'pane' || row.stateSource === 'agent') && row.attentionSince === null
      const olderThanWork =
        from === 'working' && !HOOKS_REPORT_WORK.has(row.agent ?? '') && row.attentionSince !== null && Date.parse(row.attentionSince) < before!.since
      if (!undated && !olderThanWork) continue
      // Idle is worth handing in only after work was seen: the end of a turn.
      if (row.state === 'idle' && from !== 'working') continue
      const episode = `${row.state}@${current.since}`
      if (current.handed === episode) continue
      const who = identity(row)
      if (who === null) continue
      current.handed = episode
      out.push({...who, state: row.state, from, firstSeen: current.since, lastOther: current.lastOther})
    }
    for (const id of this.seen.keys()) if (!present.has(id)) this.seen.delete(id)
    return out
  }

  private rescued = Number.NEGATIVE_INFINITY

  /** Whether to start a writer for events stranded in the spool (see eventsStranded): at most once per ASK_AGAIN_MS. */
  rescues(state: StateDir | null, now = Date.now()): boolean {
    if (state === null || now - this.rescued < ASK_AGAIN_MS || !eventsStranded(state)) return false
    this.rescued = now
    return true
  }

  /**
   * Rows that need the user, with a dated event nobody has told of yet (a marker read, no write): each asked
   * once, and again after ASK_AGAIN_MS while still untold (the notifier asked died before it claimed the
   * event, or after it claimed it and before it told it).
   */
  untold(rows: SessionRow[], state: StateDir | null, now = Date.now()): SessionRow[] {
    if (state === null) return []
    const dir = join(state.root, 'notified')
    const current = new Set(rows.filter((row) => row.attentionSince !== null).map(markerName))
    for (const name of this.asked.keys()) if (!current.has(name)) this.asked.delete(name)
    return rows.filter((row) => {
      if (!row.attention || row.attentionSince === null) return false
      const name = markerName(row)
      const asked = this.asked.get(name)
      if ((asked !== undefined && now - asked < ASK_AGAIN_MS) || !isUntold(markerState(join(dir, name)))) return false
      this.asked.set(name, now)
      return true
    })
  }
}

/** How long a watcher gives the notifier it asked, or the writer it started, before starting another. */
export const ASK_AGAIN_MS = 30_000

/** One watcher pass: hand in new screen episodes, and ask the writer to tell what nobody told yet. */
export function watchPass(
  watch: ScreenWatch,
  rows: SessionRow[],
  state: StateDir | null,
  env: Env,
  identity: (row: SessionRow) => {pid: number; startTime: number} | null,
): void {
  for (const o of watch.observe(rows, identity, Date.now())) startPkDetached(['notify', '--observe', JSON.stringify(o)], env)
  for (const row of watch.untold(rows, state)) startPkDetached(['notify', '--check', row.id], env)
  // (through a pk notify, which starts the writer and names it: a watcher writes nothing itself)
  if (watch.rescues(state)) startPkDetached(['notify'], env)
}
