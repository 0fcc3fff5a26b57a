import {readdirSync} from 'node:fs'
import {servesSessions} from '../proc/ancestry.js'
import {basename} from 'node:path'

import {SessionRow} from '../model/contract.js'
import {PkError} from '../model/errors.js'
import {HookReport, nextStatus, parseHookPayload, salvage} from './hook.js'
import {sessionIdOf} from '../proc/identity.js'
import {View} from '../proc/view.js'
import {HookStatus, ScreenEpisode, SessionRecord} from '../registry/records.js'
import {Env} from '../registry/state-dir.js'
import {Link, SpoolEvent} from './spool.js'
import {codexSessions, findRollout} from '../usage/usage.js'

/**
 * Events, from a pending spool file to the session they belong to. Pure decisions over a `World` (what
 * the caller's one snapshot says), shared by readers (which apply pending events in memory) and by the
 * one writer (which applies them to the records). An event is the right session's or nobody's: it is
 * attributed only on evidence that names one session, never guessed.
 */

/** An observer's report of what a screen showed (`pk-screen` events): handed to the writer by watchers. */
export interface ScreenObservation {
  state: 'idle' | 'waiting' | 'limited'
  /** The state the observer saw before, on the same session: a turn ends when it was `working`. */
  from: string | null
  /** When the observer first saw this state (ms since the epoch). */
  firstSeen: number
  /** When it last saw another state (ms), or null: an earlier episode of the same state ended then. */
  lastOther: number | null
}

export type ParsedEvent = {kind: 'report'; report: HookReport} | {kind: 'screen'; observation: ScreenObservation} | {kind: 'ignored'; reason: string}

/** The agent name of observations in the spool (never an agent's: agent names have no such prefix in presets). */
export const SCREEN_EVENT = 'pk-screen'

/**
 * The dates pk takes from an event (ms since the epoch): from 1970 to 2100. Outside them a date is not
 * one (1e300 passes isFinite, and JavaScript cannot even print it) or would outrank every real report
 * for ever: the event is ignored, and every reader and the writer judge it alike.
 */
const LATEST_DATE_MS = Date.UTC(2100, 0, 1)
export const isEventDate = (ms: unknown): ms is number => typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 && ms <= LATEST_DATE_MS

/** Pure: a spool event's meaning. `bootMs`: when this boot began, for events the agent did not date itself. */
export function parseEvent(event: SpoolEvent, bootMs: number | null): ParsedEvent {
  if (event.agent === SCREEN_EVENT) {
    const data = safeJson(event.payload)
    const state = data?.state
    if ((state !== 'idle' && state !== 'waiting' && state !== 'limited') || typeof data?.firstSeen !== 'number')
      return {kind: 'ignored', reason: 'a malformed screen observation'}
    if (!isEventDate(data.firstSeen) || (data.lastOther !== undefined && data.lastOther !== null && !isEventDate(data.lastOther)))
      return {kind: 'ignored', reason: 'a screen observation dated out of range'}
    return {
      kind: 'screen',
      observation: {
        state,
        from: typeof data.from === 'string' ? data.from : null,
        firstSeen: data.firstSeen,
        lastOther: typeof data.lastOther === 'number' ? data.lastOther : null,
      },
    }
  }
  let parsed: HookReport | null
  try {
    parsed = parseHookPayload(event.agent, event.truncated ? salvage(event.payload) : event.payload)
  } catch (error) {
    if (error instanceof PkError) return {kind: 'ignored', reason: error.message}
    throw error
  }
  if (parsed === null) return {kind: 'ignored', reason: 'the event says nothing about state'}
  if (parsed.sentAt !== null && !isEventDate(parsed.sentAt)) return {kind: 'ignored', reason: `its date (${parsed.sentAt}) is out of range`}
  // Where the agent sends no time of its own, the moment its hook ran dates the event: every reader and
  // the writer then date it alike, so one event is one notification whoever sees it first.
  const hookMs = event.clock === 'epoch' ? Math.round(event.uptime * 1000) : bootMs === null ? null : Math.round(bootMs + event.uptime * 1000)
  const sentAt = parsed.sentAt ?? hookMs
  if (sentAt !== null && !isEventDate(sentAt))
    return {kind: 'ignored', reason: `its hook's time (${event.uptime} s after ${event.clock === 'epoch' ? 'the epoch' : 'boot'}) is out of range`}
  return {kind: 'report', report: {...parsed, sentAt}}
}

const safeJson = (text: string): Record<string, unknown> | null => {
  try {
    const data = JSON.parse(text)
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? data : null
  } catch {
    return null
  }
}

/** What attribution may look at: the caller's one snapshot of the world. */
export interface World {
  view: Pick<View, 'bootId' | 'pidNs'>
  rowsById: ReadonlyMap<string, SessionRow>
  stat(pid: number): {startTime: number} | null
  argv(pid: number): string[] | null
  /** The executable the kernel names (/proc/PID/exe, ps' `comm`). */
  exe(pid: number): string | null
  /** Whether a Codex thread is a conversation of the user's (it has a rollout file); null when that cannot be told. */
  codexThreadIsConversation(threadId: string, at: number | null): boolean | null
  /** The conversation id a session has (its record's, or one applied earlier in the same pass). */
  conversationOf(row: SessionRow): string | null
}

export type Attribution =
  /** The session's row; `agent` names the process to record for a pane nobody recorded yet. */
  {kind: 'session'; row: SessionRow; agent: Link | null; by: 'ancestry' | 'conversation' | 'cwd'} | {kind: 'none'; reason: string}

/**
 * Pure: whether the ancestry passes through Codex's shared app-server daemon, alive: a process that runs
 * Codex's own program (the kernel's word for what it runs, /proc/PID/exe) as `app-server`. The daemon
 * serves every Codex window of the user's: started by the first, it outlives it (its parent is then pid 1),
 * and the windows after go on sending their turns through it.
 */
function throughCodexDaemon(chain: Link[], world: World): boolean {
  return chain.some((link) => alive(world, link) && servesSessions(world.argv(link.pid)) && isCodexProgram(world.exe(link.pid)))
}

/** Pure: an executable path that is Codex's program (`codex`, perhaps replaced on disk since it started). */
const isCodexProgram = (exe: string | null) => exe !== null && basename(exe.replace(/ \(deleted\)$/, '')) === 'codex'

export {servesSessions}

const alive = (world: World, link: Link) => world.stat(link.pid)?.startTime === link.startTime

/** Walk the event's ancestry (as noted at the event) to the first process that is a session's. */
function byAncestry(chain: Link[], world: World): Attribution | null {
  for (let i = 0; i < chain.length; i++) {
    const link = chain[i]!
    // A live process that serves several sessions names none of them; nor does anything above it.
    if (alive(world, link) && servesSessions(world.argv(link.pid)))
      return {kind: 'none', reason: `the event came through a process that serves several sessions (pid ${link.pid})`}
    const row = world.rowsById.get(sessionIdOf({...world.view, ...link}))
    if (!row) continue
    if (row.conflict) return {kind: 'none', reason: `session ${row.id} is claimed by more than one record`}
    if (row.kind !== 'pane') return {kind: 'session', row, agent: null, by: 'ancestry'}
    // A pane whose process no preset names: the agent is its child on the way up (or the pane process).
    const below = i > 0 ? chain[i - 1]! : link
    if (!row.verified || !alive(world, below)) return {kind: 'none', reason: `the pane's process ${below.pid} is gone`}
    return {kind: 'session', row, agent: below, by: 'ancestry'}
  }
  return null
}

/**
 * Pure: the session an event belongs to, or none. Every agent: the sender's ancestry, noted by the hook
 * at the event (so a shell in between, gone since, is harmless). Codex: its notify program runs from a
 * shared app-server daemon, so its ancestry names no session; what does is the thread id of a recorded
 * conversation, else the one live Codex session in the event's directory. A thread that is no
 * conversation of the user's (the side thread that writes a title) is nobody's.
 */
export function attribute(event: SpoolEvent, report: HookReport, world: World): Attribution {
  if (event.agent !== 'codex') return byAncestry(event.chain, world) ?? {kind: 'none', reason: "no session in the sender's ancestry"}
  const thread = report.conversationId
  if (thread !== null && world.codexThreadIsConversation(thread, report.sentAt) === false)
    return {kind: 'none', reason: `codex thread ${thread} is not a conversation (no rollout file): a side thread`}
  // The notifier itself must be a process that can be checked and serves one session: Codex before 0.171
  // ran notify from the window's own process.
  const notifier = event.chain[0]!
  const direct = alive(world, notifier) && !servesSessions(world.argv(notifier.pid)) ? byAncestry(event.chain, world) : null
  if (direct?.kind === 'session') return direct
  // What follows (a recorded thread, a directory) holds only for an event that came through Codex's shared
  // daemon, whichever window started it and whether that one still runs. From anywhere else (a cron job, a
  // forged call, a program that only calls itself app-server) a thread id and a directory are claims anyone
  // can write: nobody's.
  if (!throughCodexDaemon(event.chain, world)) return {kind: 'none', reason: "a codex event from outside every session, not through Codex's app-server daemon"}
  const live = [...world.rowsById.values()].filter((r) => r.agent === 'codex' && r.verified && r.state !== 'exited' && !r.conflict)
  if (thread !== null) {
    const owners = live.filter((r) => world.conversationOf(r) === thread)
    if (owners.length === 1) return {kind: 'session', row: owners[0]!, agent: null, by: 'conversation'}
    if (owners.length > 1) return {kind: 'none', reason: `codex thread ${thread} is recorded on ${owners.length} live sessions`}
  }
  const cwd = report.cwd ?? null
  if (cwd !== null) {
    // A window already on another conversation is not this thread's.
    const here = live.filter((r) => r.cwd === cwd && (thread === null || world.conversationOf(r) === null))
    if (here.length === 1) return {kind: 'session', row: here[0]!, agent: null, by: 'cwd'}
    return {kind: 'none', reason: `${here.length} codex sessions in ${cwd} could have sent thread ${thread ?? '(none)'}`}
  }
  return {kind: 'none', reason: 'a codex event that names neither a known thread nor a directory'}
}

/** Pure: a screen observation applied to the episode a session has: a new episode, or null (the same one). */
export function nextEpisode(previous: ScreenEpisode | null | undefined, observed: ScreenObservation): ScreenEpisode | null {
  const sameEpisode = previous && previous.state === observed.state && (observed.lastOther === null || observed.lastOther < Date.parse(previous.since))
  if (sameEpisode) return null
  return {
    state: observed.state,
    since: new Date(observed.firstSeen).toISOString(),
    turnEnded: observed.state === 'waiting' || observed.from === 'working',
    ...(observed.lastOther === null ? {} : {lastOther: new Date(observed.lastOther).toISOString()}),
  }
}

/**
 * How far apart a screen's sighting of a turn end and a hook's report of one may be and still be one turn
 * end, for an agent whose hooks do not say when work starts (Codex's notify): seen on loaded machines, the
 * hook came 1-15 s after the screen. Where the hook reported the work, no such bound is needed.
 */
export const SAME_TURN_MS = 15_000

/**
 * Pure: a hook's report of a turn end (or a wait) that an observer saw on the screen first is the same
 * event: its date is the episode's, so it is told once with one PK_SINCE. The same turn: the episode shows
 * the state reported, and began after the report before this one and not after this one; where that
 * report was the work this one ends (`working`), that is certain; else only when the two are close.
 */
export function sameTurnEnd(status: HookStatus, previous: HookStatus | null, episode: ScreenEpisode | null | undefined): HookStatus {
  if (!episode || !episode.turnEnded || episode.state !== status.state || (status.state === 'idle' && !status.turnEnded)) return status
  const since = Date.parse(episode.since)
  const at = Date.parse(status.at)
  if (previous !== null && since < Date.parse(previous.at)) return status
  // After a report of a turn end, an episode whose observer saw nothing else since that report is that
  // report's own sighting, not this turn's end (Codex 0.171: a turn that failed at once, its work never
  // seen, was dated as the turn before, and never told).
  if (previous?.state === 'idle' && previous.turnEnded && (episode.lastOther === undefined || Date.parse(episode.lastOther) < Date.parse(previous.at)))
    return status
  // After a report of the work, the first turn end on the screen is this turn's, even when the observer
  // dated it after the hook did: a hook's report can reach the spool seconds after its date, on a loaded
  // machine, and a new turn would have been reported first.
  if (previous?.state !== 'working' && (since > at || at - since > SAME_TURN_MS)) return status
  return {...status, since: episode.since}
}

/** What pending events leave on one session: its status, its conversation, its screen episode. */
export interface Applied {
  status: HookStatus | null
  conversationId: string | null
  transcript: string | null
  observed: ScreenEpisode | null
  agent: string | null
  /** The process to record for a session nobody recorded yet. */
  agentLink: Link | null
  /** Whether any event changed something. */
  changed: boolean
  /** The newest change may need the user. */
  mayNeedYou: boolean
}

export interface Outcome {
  event: SpoolEvent
  id: string | null
  reason: string
}

/**
 * Pure: replay events, oldest first, over what the sessions' records say. Returns each touched session's
 * result (by row id) and what became of each event. Readers show the result; the writer stores it.
 */
export function applyEvents(
  events: SpoolEvent[],
  world: World,
  records: ReadonlyMap<string, SessionRecord>,
  bootMs: number | null,
): {applied: Map<string, Applied>; outcomes: Outcome[]} {
  const applied = new Map<string, Applied>()
  const outcomes: Outcome[] = []
  const current = (row: SessionRow): Applied => {
    let entry = applied.get(row.id)
    if (!entry) {
      const record = row.record ? (records.get(row.record) ?? null) : null
      entry = {
        status: record?.status ?? null,
        conversationId: record?.conversationId ?? null,
        transcript: record?.transcript ?? null,
        observed: record?.observed ?? null,
        agent: record?.agent ?? row.agent,
        agentLink: null,
        changed: false,
        mayNeedYou: false,
      }
      applied.set(row.id, entry)
    }
    return entry
  }
  const conversationWorld: World = {...world, conversationOf: (row) => applied.get(row.id)?.conversationId ?? world.conversationOf(row)}
  for (const event of events) {
    const parsed = parseEvent(event, bootMs)
    if (parsed.kind === 'ignored') {
      outcomes.push({event, id: null, reason: parsed.reason})
      continue
    }
    if (parsed.kind === 'screen') {
      const row = conversationWorld.rowsById.get(sessionIdOf({...world.view, ...event.chain[0]!}))
      if (!row || row.conflict || !row.verified) {
        outcomes.push({event, id: null, reason: 'the observed session is gone or cannot be verified'})
        continue
      }
      const entry = current(row)
      const episode = nextEpisode(entry.observed, parsed.observation)
      if (episode !== null)
        Object.assign(entry, {
          observed: episode,
          changed: true,
          mayNeedYou: episode.turnEnded,
          agentLink: entry.agentLink ?? (row.kind === 'pane' ? event.chain[0]! : null),
        })
      outcomes.push({event, id: row.id, reason: episode === null ? 'the same screen episode' : `screen ${episode.state}`})
      continue
    }
    const target = attribute(event, parsed.report, conversationWorld)
    if (target.kind === 'none') {
      outcomes.push({event, id: null, reason: target.reason})
      continue
    }
    const entry = current(target.row)
    const next = nextStatus(entry.status, parsed.report)
    const status = next === null ? null : sameTurnEnd(next, entry.status, entry.observed)
    // A thread found by directory alone names the conversation only where none is known yet.
    const conversationId = parsed.report.conversationId ?? entry.conversationId
    const transcript = parsed.report.transcript ?? entry.transcript
    if (status !== null || conversationId !== entry.conversationId || transcript !== entry.transcript) {
      Object.assign(entry, {
        status: status ?? entry.status,
        conversationId,
        transcript,
        agent: entry.agent ?? event.agent,
        changed: true,
        agentLink: entry.agentLink ?? target.agent,
      })
      if (status !== null) entry.mayNeedYou = status.state === 'waiting' || (status.state === 'idle' && status.turnEnded)
    }
    outcomes.push({
      event,
      id: target.row.id,
      reason: status === null ? 'an older or repeated report; the newer state stands' : `${status.state} (${status.event}, by ${target.by})`,
    })
  }
  return {applied, outcomes}
}

/**
 * Whether a Codex thread is one of the user's conversations: Codex writes every conversation to a rollout
 * file (usage.ts finds it); the side thread that writes a title has none. null when Codex keeps no
 * sessions directory here at all, or the id is no Codex thread id (then it cannot be told).
 */
export function codexThreadLookup(env: Env): World['codexThreadIsConversation'] {
  return (threadId) => {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(threadId)) return null
    try {
      if (readdirSync(codexSessions(env)).length === 0) return null
    } catch {
      return null
    }
    return findRollout(threadId, env) !== null
  }
}

/** The world attribution looks at, from one listing: its rows, its memoised /proc, its records. */
export function worldOf(
  view: World['view'],
  rows: SessionRow[],
  proc: {stat: World['stat']; argv: World['argv']; exe: World['exe']},
  records: ReadonlyMap<string, SessionRecord>,
  env: Env,
): World {
  return {
    view,
    rowsById: new Map(rows.map((r) => [r.id, r])),
    stat: proc.stat,
    argv: proc.argv,
    exe: proc.exe,
    codexThreadIsConversation: codexThreadLookup(env),
    conversationOf: (row) => (row.record ? (records.get(row.record)?.conversationId ?? null) : null),
  }
}

/** What is known of a session beyond its pane: the agent's last report, and the screen episode an observer handed in. */
export interface Known {
  status: HookStatus | null
  observed: ScreenEpisode | null
}

/**
 * Pure: what is known of each session beyond its pane, by row id: its record's status and screen
 * episode, with pending events applied in memory (what a reader shows; nothing is written).
 */
export function knownOf(rows: SessionRow[], records: ReadonlyMap<string, SessionRecord>, applied: ReadonlyMap<string, Applied>): Map<string, Known> {
  const known = new Map<string, Known>()
  for (const row of rows) {
    const record = row.record ? records.get(row.record) : undefined
    const pending = applied.get(row.id)
    if (pending?.changed) known.set(row.id, {status: pending.status, observed: pending.observed})
    else if (record) known.set(row.id, {status: record.status, observed: record.observed ?? null})
  }
  return known
}
