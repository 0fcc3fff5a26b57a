import {JSON_SCHEMA_VERSION, SessionRow, State} from '../correlate.js'
import {Problem} from '../registry/records.js'
import {renderTable} from './table.js'

/** How `pk ls` output looks: what the flags ask for. */
export interface LsOptions {
  json: boolean
  all: boolean
  format: 'table' | 'short'
  color: boolean
}

/** Where it goes: a terminal or not, colours or not, and what "now" and HOME are for ages and paths. */
export interface Terminal {
  tty: boolean
  colour: boolean
  now: number
  home: string | undefined
}

export interface Output {
  stdout: string
  stderr: string
}

/**
 * Pure: one line for a tmux status bar, like `1 need you · 2 waiting · 3 working`. Each live session is
 * counted once: the ones that need you, then the others by state; exited and unknown ones are not counted.
 */
export function shortSummary(rows: SessionRow[], tmuxColours = false): string {
  const order: State[] = ['waiting', 'working', 'idle']
  const colour: Record<string, string> = {waiting: 'yellow', working: 'green', idle: 'blue'}
  const parts: string[] = []
  const attention = rows.filter((r) => r.attention).length
  if (attention > 0) parts.push(tmuxColours ? `#[fg=red,bold]${attention} need you#[default]` : `${attention} need you`)
  for (const state of order) {
    const n = rows.filter((r) => !r.attention && r.state === state).length
    if (n > 0) parts.push(tmuxColours ? `#[fg=${colour[state]}]${n} ${state}#[default]` : `${n} ${state}`)
  }
  return parts.length === 0 ? 'no agents' : parts.join(' · ')
}

/**
 * Pure: a listing as `pk ls` prints it. JSON carries the problems; the table and the short line leave
 * them to stderr, one per line. Shared by the command, the fast path, the dashboard without a terminal
 * and the fleet listing.
 */
export function presentListing(rows: SessionRow[], problems: Problem[], opts: LsOptions, term: Terminal): Output {
  if (opts.format === 'short') return {stdout: shortSummary(rows, opts.color) + '\n', stderr: ''}
  if (opts.json) return {stdout: JSON.stringify({schema: JSON_SCHEMA_VERSION, sessions: rows, problems}, null, 2) + '\n', stderr: ''}
  let stdout = ''
  let stderr = ''
  if (rows.length > 0) stdout = renderTable(rows, {colour: term.colour, now: term.now, home: term.home})
  else if (term.tty) stderr = `no agent sessions${opts.all ? '' : ' (pk ls --all shows every pane)'}; start one with: pk bg shell\n`
  for (const problem of problems) stderr += `pk: ${problem.code}: ${problem.message}\n`
  return {stdout, stderr}
}
