import {AgentPreset} from './agents/presets.js'
import {applyPaneRules} from './agents/pane-rules.js'
import {SessionRow, State, StateSource, sortRows} from './correlate.js'
import {HookStatus, SessionRecord} from './registry/records.js'

/**
 * Pure status decisions (README, "pk hook": where a state comes from). Sources, strongest first: a fresh hook state; the preset's
 * pane rules over one capture; process facts; else `unknown`. Nothing here samples twice or guesses.
 */

/** A `working` report goes stale: an agent killed mid-turn never says it stopped. Others hold until the next event. */
export const WORKING_FRESH_MS = 10 * 60 * 1000

export function freshHookStatus(status: HookStatus | null, now: number): HookStatus | null {
  if (status === null) return null
  if (status.state === 'working' && now - Date.parse(status.at) > WORKING_FRESH_MS) return null
  return status
}

/** Whether the pane's window showed output after the hook report: then its screen is newer evidence. */
const screenIsNewer = (row: SessionRow, hook: HookStatus) => row.tmux?.activity !== null && row.tmux !== null && row.tmux.activity * 1000 > Date.parse(hook.at) + 1000

/**
 * Rows whose screen is worth reading: live, verified agents with pane rules, and no fresh hook state or
 * one the screen has changed since (precedence is by time, not by source).
 */
export function needsCapture(row: SessionRow, record: SessionRecord | null, presets: readonly AgentPreset[], now: number): boolean {
  if (!row.verified || row.state === 'exited' || row.tmux === null || row.agent === null) return false
  const hook = freshHookStatus(record?.status ?? null, now)
  if (hook && hook.state !== 'exited' && !screenIsNewer(row, hook)) return false
  return (presets.find((p) => p.name === row.agent)?.paneRules.length ?? 0) > 0
}

export interface StatusInput {
  rows: SessionRow[]
  /** Records by file path. */
  records: Map<string, SessionRecord>
  /** Screens by `socket\0paneId`. */
  captures: Map<string, string>
  presets: readonly AgentPreset[]
  now: number
}

export const captureKey = (socket: string, paneId: string) => `${socket}\0${paneId}`

export function applyStatus(input: StatusInput): SessionRow[] {
  return sortRows(input.rows.map((row) => decide(row, input)))
}

function decide(row: SessionRow, input: StatusInput): SessionRow {
  const record = row.record ? (input.records.get(row.record) ?? null) : null
  let state: State = row.state
  let stateSource: StateSource = row.stateSource
  let since: number | null = null
  let turnEnded = false
  if (row.verified && row.state !== 'exited' && row.tmux !== null) {
    // A hook's `exited` is believed only when the process is gone, and that is the kernel's to say.
    const reported = freshHookStatus(record?.status ?? null, input.now)
    const hook = reported?.state === 'exited' ? null : reported
    const screen = input.captures.get(captureKey(row.tmux.socket, row.tmux.pane))
    const rules = input.presets.find((p) => p.name === row.agent)?.paneRules ?? []
    const fromPane = screen === undefined ? null : applyPaneRules(screen, rules)
    // The newest evidence wins: a screen that changed after the hook report and reads differently.
    if (hook && fromPane && fromPane !== hook.state && screenIsNewer(row, hook)) {
      state = fromPane
      stateSource = 'pane'
      since = row.tmux.activity! * 1000
      turnEnded = fromPane !== 'working' && hook.state === 'working'
    } else if (hook) {
      state = hook.state
      stateSource = 'hook'
      since = Date.parse(hook.at)
      turnEnded = hook.turnEnded
    } else if (fromPane) {
      state = fromPane
      stateSource = 'pane'
      // What the screen says began with its last output.
      since = row.tmux.activity === null ? null : row.tmux.activity * 1000
    }
  }
  const attention = needsAttention(row, state, since, turnEnded)
  const mayNeedYou = state === 'waiting' || (state === 'idle' && turnEnded)
  const attentionSince = mayNeedYou && since !== null ? new Date(since).toISOString() : null
  // Unchanged rows stay the same objects: a watcher that reused its pairing then compares nothing.
  if (state === row.state && stateSource === row.stateSource && attention === row.attention && attentionSince === row.attentionSince) return row
  return {...row, state, stateSource, attention, attentionSince}
}

/**
 * Waiting, or finished a turn, while no client is attached; cleared once someone attached after the
 * state began (tmux's session_last_attached), even if they detached again.
 */
export function needsAttention(row: SessionRow, state: State, since: number | null, turnEnded: boolean): boolean {
  if (row.attached || row.tmux === null) return false
  if (state !== 'waiting' && !(state === 'idle' && turnEnded)) return false
  const lastAttached = row.tmux.lastAttached
  if (since !== null && lastAttached !== null && lastAttached * 1000 >= since) return false
  return true
}
