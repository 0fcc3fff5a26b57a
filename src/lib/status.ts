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

/** Rows whose state the pane rules should decide: live, verified agents without a fresh hook state. */
export function needsCapture(row: SessionRow, record: SessionRecord | null, presets: readonly AgentPreset[], now: number): boolean {
  if (!row.verified || row.state === 'exited' || row.tmux === null || row.agent === null) return false
  if (freshHookStatus(record?.status ?? null, now)) return false
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
    const hook = freshHookStatus(record?.status ?? null, input.now)
    const screen = input.captures.get(captureKey(row.tmux.socket, row.tmux.pane))
    const rules = input.presets.find((p) => p.name === row.agent)?.paneRules ?? []
    const fromPane = screen === undefined ? null : applyPaneRules(screen, rules)
    if (hook) {
      state = hook.state
      stateSource = 'hook'
      since = Date.parse(hook.at)
      turnEnded = hook.turnEnded
    } else if (fromPane) {
      state = fromPane
      stateSource = 'pane'
    }
  }
  return {...row, state, stateSource, attention: needsAttention(row, state, since, turnEnded)}
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
