import {Known} from '../events/events.js'
import {PaneId} from '../model/ids.js'
import {AgentPreset} from '../agents/presets.js'
import {applyPaneRules} from '../agents/pane-rules.js'
import {readDialog} from '../agents/dialogs.js'
import {sortRows} from './pairing.js'
import {SessionRow, State, StateSource} from '../model/contract.js'
import {HookStatus, ScreenEpisode} from '../registry/records.js'
import {HOOKS_REPORT_WORK} from '../agents/presets.js'
import {LimitShown, limitFromMessage, readLimit, resetInstant, resetZone} from '../agents/limits.js'
import {SessionLimit} from '../model/contract.js'
import {OwnState, OwnWord} from '../agents/own-state.js'

/**
 * Pure status decisions (README, "pk hook": where a state comes from). Sources, strongest first: a fresh hook state; the preset's
 * pane rules over one capture; process facts; else `unknown`. Nothing here samples twice or guesses.
 */

/** Agents that end a turn at a limit with a plain turn end (Codex's notify, Pi's agent_end): only the screen tells it apart. */
const LIMIT_BY_SCREEN: ReadonlySet<string> = new Set(['codex', 'pi'])

/** A `working` report goes stale: an agent killed mid-turn never says it stopped. Others hold until the next event. */
export const WORKING_FRESH_MS = 10 * 60 * 1000

export function freshHookStatus(status: HookStatus | null, now: number): HookStatus | null {
  if (status === null) return null
  if (status.state === 'working' && now - Date.parse(status.at) > WORKING_FRESH_MS) return null
  return status
}

/** Whether the pane's window showed output after the hook report: then its screen is newer evidence. */
const screenIsNewer = (row: SessionRow, hook: HookStatus) =>
  row.tmux?.activity !== null && row.tmux !== null && row.tmux.activity * 1000 > Date.parse(hook.at) + 1000

/**
 * A report that cannot speak for a dialog on the screen, read though the screen did not change clearly after
 * it (tmux dates a window's output to the second): the agent's start (Claude Code 2.1.332 opens on its offer
 * of auto mode as its SessionStart fires); work whose screen changed within about its second (a tool call that
 * asks draws its dialog a moment after its PreToolUse, which a loaded machine can date after its
 * PermissionRequest); a wait whose screen changed within about its second (a dialog answered at once leaves
 * the screen within it: Claude's "No" leaves "Interrupted" at its prompt, and no hook fires). A dialog come
 * or gone on such a screen is the newer evidence (see decide).
 */
function screenMayAsk(row: SessionRow, hook: HookStatus): boolean {
  if (hook.state === 'idle') return !hook.turnEnded
  const activity = row.tmux?.activity ?? null
  return (hook.state === 'working' || hook.state === 'waiting') && activity !== null && activity * 1000 >= Date.parse(hook.at) - 2000
}

/**
 * Pure: the screen overrules a report that cannot speak for it (screenMayAsk): a dialog is there where the
 * last report was a start (a start screen that reads waiting) or work (only where pk reads the dialog there:
 * a look-alike in its output is not one); or the dialog a wait was reported for is gone, its prompt back.
 */
function dialogCameOrWent(row: SessionRow, hook: HookStatus, fromPane: string | null, screen: string | undefined): boolean {
  if (fromPane === null || screen === undefined || !screenMayAsk(row, hook)) return false
  if (fromPane === 'waiting' && hook.state !== 'waiting') return hook.state === 'idle' || readDialog(row.agent, screen) !== null
  return fromPane === 'idle' && hook.state === 'waiting' && readDialog(row.agent, screen) === null
}

/**
 * Pure: a limit on the screen as the agent's last word is newer than a report that cannot speak for it: a
 * turn end (Codex and Pi end their turn at a limit with a plain one), or work the screen is not older than
 * (Gemini CLI's limit dialog comes during its turn, with no report). Work reported after the screen last
 * changed (a prompt typed at the limit, the screen not yet redrawn) is newer.
 */
function limitAfter(row: SessionRow, hook: HookStatus, shown: LimitShown | null): boolean {
  if (shown === null || hook.state === 'limited' || hook.state === 'waiting') return false
  if (hook.state === 'idle') return true
  const activity = row.tmux?.activity ?? null
  return activity !== null && activity * 1000 >= Date.parse(hook.at) - 2000
}

/**
 * Rows whose screen is worth reading: live, verified agents with pane rules, and no fresh hook state or
 * one the screen has changed since (precedence is by time, not by source), or one that cannot speak for a
 * dialog on it (screenMayAsk).
 */
export function needsCapture(row: SessionRow, known: Known | undefined, presets: readonly AgentPreset[], now: number): boolean {
  if (!row.verified || row.state === 'exited' || row.tmux === null || row.agent === null) return false
  const hook = freshHookStatus(known?.status ?? null, now)
  // A limit's screen says more than its report (whether the agent continues by itself, its reset); a turn
  // end of an agent whose limit has no report of its own (Codex's, Pi's) may be one.
  if (hook?.state === 'limited' || (hook?.state === 'idle' && hook.turnEnded && LIMIT_BY_SCREEN.has(row.agent))) return true
  if (hook && hook.state !== 'exited' && !screenIsNewer(row, hook) && !screenMayAsk(row, hook)) return false
  return (presets.find((p) => p.name === row.agent)?.paneRules.length ?? 0) > 0
}

/**
 * Pure: an observer saw a turn end on the screen after the report's event, with work seen after that event
 * too: a later turn end than the report's, where the hooks do not report work (Codex's failed turn: work on
 * the screen, then its prompt again, and no notify since the last turn's). The report's event is its own
 * time, or the earlier sighting it took the date of (sameTurnEnd): work seen after that sighting is a later
 * turn, even where this report came after that work (Codex 0.171.0 in CI: a 15 s turn's notify took the date
 * of the last turn's end, seen 14.9 s before it; the turn's own end, seen by the watcher, was never told).
 * (An episode whose observer saw no work after the report is the report's own turn end, seen late; where
 * the hooks report work starting, a new turn has a report of its own, and work seen after a turn end's
 * report is the screen catching up with the hook, not a new turn.)
 */
function turnEndSeenAfter(row: SessionRow, hook: HookStatus, fromPane: State | null, episode: ScreenEpisode | null | undefined): boolean {
  if (HOOKS_REPORT_WORK.has(row.agent ?? '') || fromPane === null || episode?.state !== fromPane || !episode.turnEnded) return false
  const reportedAt = Date.parse(hook.since ?? hook.at)
  if (Date.parse(episode.since) <= reportedAt || (episode.lastOther !== undefined && Date.parse(episode.lastOther) <= reportedAt)) return false
  // Newer than the report's arrival by what tmux dates output by (the second); a report that took an older
  // sighting's date is older than the work seen after that sighting whatever its arrival.
  return screenIsNewer(row, hook) || hook.since !== undefined
}

export interface StatusInput {
  rows: SessionRow[]
  /** By row id: from its record, with pending events applied. */
  known: ReadonlyMap<string, Known>
  /** Screens by `socket\0paneId`. */
  captures: Map<string, string>
  presets: readonly AgentPreset[]
  now: number
  /** The time zone a session's agent reads clocks in (its TZ): a reset it shows is read in it. Default: pk's own. */
  zoneOf?: (row: SessionRow) => string
  /** By row id: what the agent publishes about itself, read by identity (agents/own-sources.ts). */
  own?: ReadonlyMap<string, OwnWord>
  /** Where given, each row whose screen has read otherwise than its agent's own word for longer than a moment. */
  disagreements?: Disagreement[]
}

/** A screen rule that reads otherwise than the agent's own word (a release whose screen moved): reported, not shown. */
export interface Disagreement {
  id: string
  agent: string | null
  own: OwnState
  channel: string
  screen: State
  since: string
}

export const captureKey = (socket: string, paneId: PaneId) => `${socket}\0${paneId}`

export function applyStatus(input: StatusInput): SessionRow[] {
  return sortRows(input.rows.map((row) => decide(row, input)))
}

/** What the hooks and the screen say of a row, before the agent's own word (see withOwnWord). */
export interface Evidence {
  state: State
  stateSource: StateSource
  since: number | null
  /**
   * Whether `since` names the event (a report's time, a screen episode's first sight), or only the window's
   * last output, which every redraw moves: then the event has no stable name to be told by.
   */
  dated: boolean
  turnEnded: boolean
  shown: LimitShown | null
  hookDetail?: string
  /** When the report that decided arrived (ms), where a report decided. */
  reportedAt: number | null
}

function decide(row: SessionRow, input: StatusInput): SessionRow {
  const known = input.known.get(row.id)
  let e = evidenceOf(row, known, input)
  const own = input.own?.get(row.id)
  if (own !== undefined && row.verified && row.state !== 'exited' && row.tmux !== null) {
    const screenSays = e.stateSource === 'pane' ? e.state : null
    e = withOwnWord(e, own, known?.observed)
    if (screenSays !== null && screenSays !== 'unknown' && screenSays !== 'limited' && screenSays !== e.state && input.now - own.since > DISAGREE_MS)
      input.disagreements?.push({
        id: row.id,
        agent: row.agent,
        own: own.state,
        channel: own.channel,
        screen: screenSays,
        since: new Date(own.since).toISOString(),
      })
  }
  if (row.notVerifiedJustNow !== null && row.state !== 'exited') {
    // Its server did not answer in time: what its agent last reported still stands (not verified, and
    // nobody can tell whether someone looks: no attention, nothing to tell).
    const reported = freshHookStatus(known?.status ?? null, input.now)
    if (reported && reported.state !== 'exited') e = {...e, state: reported.state, stateSource: 'hook'}
  }
  const {state, stateSource, since, dated, turnEnded} = e
  const attention = needsAttention(row, state, since, turnEnded)
  const mayNeedYou = state === 'waiting' || state === 'limited' || (state === 'idle' && turnEnded)
  const attentionSince = mayNeedYou && since !== null && dated ? new Date(since).toISOString() : null
  // A limit nobody saw appear is shown since the pane last changed (a screen stopped at its limit does not move):
  // its episode, and its reset, a clock time with no date, read from then (one that passed means now, not
  // tomorrow: issue 70). It is told once a watcher dates it (attentionSince), as any state of the screen is.
  const limit = state === 'limited' ? limitOf(e.shown, e.hookDetail, since, since ?? input.now, input.zoneOf?.(row) ?? localZone()) : null
  // Unchanged rows stay the same objects: a watcher that reused its pairing then compares nothing.
  if (
    state === row.state &&
    stateSource === row.stateSource &&
    attention === row.attention &&
    attentionSince === row.attentionSince &&
    JSON.stringify(limit) === JSON.stringify(row.limit)
  )
    return row
  return {...row, state, stateSource, attention, attentionSince, limit}
}

/** The hooks' report and the screen, weighed by time (README, "pk hook": where a state comes from). */
function evidenceOf(row: SessionRow, known: Known | undefined, input: StatusInput): Evidence {
  const none: Evidence = {state: row.state, stateSource: row.stateSource, since: null, dated: true, turnEnded: false, shown: null, reportedAt: null}
  if (!row.verified || row.state === 'exited' || row.tmux === null) return none
  // A hook's `exited` is believed only when the process is gone, and that is the kernel's to say.
  const reported = freshHookStatus(known?.status ?? null, input.now)
  const hook = reported?.state === 'exited' ? null : reported
  const screen = input.captures.get(captureKey(row.tmux.socket, row.tmux.pane))
  const rules = input.presets.find((p) => p.name === row.agent)?.paneRules ?? []
  // A limit as the agent's last word outranks its pane rules (its prompt is back: they read idle).
  const shown = screen === undefined ? null : readLimit(row.agent, screen)
  const fromPane: State | null = screen === undefined ? null : shown !== null ? 'limited' : applyPaneRules(screen, rules)
  // The newest evidence wins: a screen that changed after the hook report and reads differently; or
  // reads the same but an observer saw a later turn end on it (see turnEndSeenAfter).
  const episode = known?.observed
  const seenAfter = hook !== null && turnEndSeenAfter(row, hook, fromPane, episode)
  if (
    hook &&
    fromPane &&
    ((fromPane !== hook.state && screenIsNewer(row, hook)) || seenAfter || dialogCameOrWent(row, hook, fromPane, screen) || limitAfter(row, hook, shown))
  )
    return {...screenOverHook(row, hook, fromPane, episode, seenAfter), shown}
  if (hook)
    return {
      state: hook.state,
      stateSource: 'hook',
      since: Date.parse(hook.since ?? hook.at),
      dated: true,
      turnEnded: hook.turnEnded,
      shown,
      hookDetail: hook.detail,
      reportedAt: Date.parse(hook.at),
    }
  if (fromPane === null) return none
  // What the screen says began when an observer first saw it (a redraw moves nothing); without an
  // observation, with the window's last output.
  if (episode && episode.state === fromPane)
    return {state: fromPane, stateSource: 'pane', since: Date.parse(episode.since), dated: true, turnEnded: episode.turnEnded, shown, reportedAt: null}
  const since = row.tmux.activity === null ? null : row.tmux.activity * 1000
  return {state: fromPane, stateSource: 'pane', since, dated: false, turnEnded: false, shown, reportedAt: null}
}

/** The screen, newer than the hook's report (see evidenceOf): dated by what dates it best. */
function screenOverHook(row: SessionRow, hook: HookStatus, fromPane: State, episode: ScreenEpisode | null | undefined, seenAfter: boolean): Evidence {
  const turnEnded = fromPane !== 'working' && fromPane !== 'limited' && (hook.state === 'working' || seenAfter)
  const at = {state: fromPane, stateSource: 'pane' as const, turnEnded, shown: null, reportedAt: null}
  if (episode && episode.state === fromPane && Date.parse(episode.since) >= Date.parse(hook.since ?? hook.at))
    return {...at, since: Date.parse(episode.since), dated: true}
  // (a limit shown with a turn end's report, the screen no newer, came with it: Pi ends its turn after its
  // tries; one drawn after the report is a later turn's, which reported nothing: Codex 0.171.0 at its usage
  // limit fires no notify. That one is dated by a watcher's sight of it, as any screen state is. Where the
  // hooks report work, a later turn would have reported its start: the limit is the report's own, whatever
  // moved the screen since (a draft typed into its input).)
  if (fromPane === 'limited' && hook.state === 'idle' && hook.turnEnded && (!screenIsNewer(row, hook) || HOOKS_REPORT_WORK.has(row.agent ?? '')))
    return {...at, since: Date.parse(hook.since ?? hook.at), dated: true}
  return {...at, since: row.tmux!.activity! * 1000, dated: false}
}

/** How long a report may come before the agent's own record of the same change (Claude writes within about 0.25 s). */
export const OWN_MOMENT_MS = 1500
/** How long the screen may read otherwise than the agent's own word before pk reports it (not a moment's lag). */
export const DISAGREE_MS = 5000

/**
 * Pure: the agent's own word (agents/own-state.ts) over what the hooks and screen say. It outranks a screen
 * rule on working / waiting / idle (a rule is a fact about one release); a hook report newer than it by more
 * than a moment is newer evidence (a very short turn may leave no write); and what only the screen or the
 * hooks show stands: a limit (Claude's record reads idle at a 429) unless work began after it, and a turn's
 * end or failure, which the record's `idle` does not tell apart from any other.
 */
export function withOwnWord(e: Evidence, own: OwnWord, episode: ScreenEpisode | null | undefined): Evidence {
  if (e.state === 'limited' && !(own.state === 'working' && own.since > (e.since ?? 0) + OWN_MOMENT_MS)) return e
  if (e.stateSource === 'hook' && e.reportedAt !== null && e.reportedAt > own.since + OWN_MOMENT_MS) return e
  if (e.state === own.state) return e.dated ? {...e, stateSource: 'agent'} : {...e, stateSource: 'agent', since: own.since, dated: true}
  // A turn ended where the word is idle after work was reported, or an observer saw work end since.
  const observedEnd = episode?.state === 'idle' && episode.turnEnded && Date.parse(episode.since) >= own.since - OWN_MOMENT_MS
  const turnEnded = own.state === 'idle' && ((e.state === 'working' && e.stateSource === 'hook') || observedEnd)
  const since = observedEnd && turnEnded ? Date.parse(episode.since) : own.since
  return {state: own.state, stateSource: 'agent', since, dated: true, turnEnded, shown: null, reportedAt: null}
}

/** The zone pk itself reads clocks in. */
export const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'

/**
 * Pure: a limited session's limit, from its screen or else its report's words: its reset read in the zone
 * the agent names or the agent's own, the next such moment after it was shown. Who continues it is the
 * agent where it says it will; whether pk does is decided later (continue/plan.ts), from your settings.
 */
export function limitOf(shown: LimitShown | null, detail: string | undefined, since: number | null, shownAt: number, agentZone: string): SessionLimit {
  const said = shown ?? (detail === undefined ? null : limitFromMessage(detail))
  const reset = said?.reset ?? null
  return {
    what: said?.what ?? 'usage limit',
    resetsAt: reset === null ? null : new Date(resetInstant(reset, shownAt, resetZone(reset, agentZone))).toISOString(),
    shown: said?.resetText ?? null,
    since: since === null ? null : new Date(since).toISOString(),
    continuedBy: shown?.agentContinues ? 'agent' : 'nobody',
    continueAt: null,
    why: null,
  }
}

/**
 * Waiting, or finished a turn, while no client is attached; cleared once someone looked after the state
 * began: a client attached since (tmux's session_last_attached), or one was attached when it began and
 * detached later (the detach time pk's own servers keep, see tmux/session.ts), even if they left again.
 */
export function needsAttention(row: SessionRow, state: State, since: number | null, turnEnded: boolean): boolean {
  if (state !== 'waiting' && state !== 'limited' && !(state === 'idle' && turnEnded)) return false
  return unseenSince(row, since)
}

/** Whether nobody is looking at the session's window and nobody looked since `since`. */
export function unseenSince(row: SessionRow, since: number | null): boolean {
  if (row.attached || row.tmux === null) return false
  const looked = Math.max(row.tmux.lastAttached ?? -1, row.tmux.lastDetached ?? -1)
  if (since !== null && looked >= 0 && looked * 1000 >= since) return false
  return true
}

/**
 * Pure: a session past one of your usage thresholds (`usage.attention`: its context share, or its spending)
 * needs you like one waiting: an event of its own, dated by the transcript line that passed it, so it is
 * told once (notify.ts tells the state's event and the usage event apart). `attentionSince` names the
 * event that needs you now, the state's first.
 */
export function applyUsageAttention(rows: SessionRow[]): SessionRow[] {
  let changed = false
  const out = rows.map((row) => {
    const alert = row.usage?.attention
    if (!alert || row.state === 'exited' || !row.verified) return row
    const since = Date.parse(alert.since)
    if (Number.isNaN(since)) return row
    const unseen = unseenSince(row, since)
    if (row.attention || !unseen) return row
    changed = true
    return {...row, attention: true, attentionSince: new Date(since).toISOString()}
  })
  return changed ? sortRows(out) : rows
}
