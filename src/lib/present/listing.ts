import {jsonDocument, schemaHead, SessionRow, State} from '../model/contract.js'
import {Problem} from '../model/contract.js'
import {changesText, renderTable} from './table.js'

/** How `pk ls` output looks: what the flags ask for. */
export interface LsOptions {
  json: boolean
  all: boolean
  format: 'table' | 'short'
  color: boolean
  /** Only these states (null: every state). */
  states: string[] | null
  /** Only sessions that need the user. */
  attention: boolean
  /** Only this agent (null: any). */
  agent: string | null
  /** Only the ids, one per line. */
  ids: boolean
  /** The table's header line. */
  headers: boolean
  /** Only counts: per state, of those that need you, and in all (`pk ls --count`). */
  count: boolean
  /** Only these columns, tab-separated (`pk ls -o id,state`); null: the table. */
  columns: Column[] | null
  /** What each session changed since its base (`pk ls --changes`): git work only when asked. */
  changes?: boolean
  /** The table as a tree: each session's children (the sessions it started) under it (`pk ls --tree`). */
  tree?: boolean
}

/**
 * Pure: the rows as a tree: those whose parent is not listed first, in the listing's order (who needs you
 * first), each followed by its children, theirs after them; with each row's depth and the branch drawn before
 * its id (`├ ` for a child with a sibling after it, `└ ` for the last, `│ ` carrying an ancestor's line on). A
 * loop (which identity rules out, but a hand-edited record could write) is cut: every row appears once.
 */
export function treeOrder(rows: readonly SessionRow[]): {row: SessionRow; depth: number; branch: string}[] {
  const listed = new Set(rows.map((r) => r.id))
  const out: {row: SessionRow; depth: number; branch: string}[] = []
  const seen = new Set<string>()
  const visit = (row: SessionRow, depth: number, branch: string, carried: string) => {
    seen.add(row.id)
    out.push({row, depth, branch})
    const children = rows.filter((child) => child.parent === row.id && !seen.has(child.id))
    for (const child of children) seen.add(child.id)
    children.forEach((child, i) => {
      const last = i === children.length - 1
      visit(child, depth + 1, carried + (last ? '\u2514 ' : '\u251C '), carried + (last ? '  ' : '\u2502 '))
    })
  }
  for (const row of rows) if ((row.parent === null || !listed.has(row.parent)) && !seen.has(row.id)) visit(row, 0, '', '')
  for (const row of rows) if (!seen.has(row.id)) visit(row, 0, '', '')
  return out
}

/** What `pk ls -o` can show, each a plain value: `-` where there is none, never a tab or a line end. */
export const COLUMNS = {
  id: (r: SessionRow) => r.id,
  state: (r: SessionRow) => r.state,
  agent: (r: SessionRow) => r.agent,
  label: (r: SessionRow) => r.label,
  attention: (r: SessionRow) => String(r.attention),
  pid: (r: SessionRow) => (r.pid === null ? null : String(r.pid)),
  cwd: (r: SessionRow) => r.cwd,
  command: (r: SessionRow) => (r.command.length === 0 ? null : r.command.join(' ')),
  started: (r: SessionRow) => r.startedAt,
  exit: (r: SessionRow) => (r.exitStatus === null ? null : String(r.exitStatus)),
  verified: (r: SessionRow) => String(r.verified),
  pane: (r: SessionRow) => r.tmux?.pane ?? null,
  socket: (r: SessionRow) => r.tmux?.socket ?? null,
  branch: (r: SessionRow) => r.worktree?.branch ?? null,
  worktree: (r: SessionRow) => r.worktree?.path ?? null,
  since: (r: SessionRow) => r.attentionSince,
  parent: (r: SessionRow) => r.parent,
  changes: (r: SessionRow) => changesText(r),
} as const satisfies Record<string, (r: SessionRow) => string | null>

export type Column = keyof typeof COLUMNS

/** Pure: the rows as the chosen columns, tab-separated, a header line first unless `headers` is false. */
export function columnsText(rows: SessionRow[], columns: readonly Column[], headers: boolean): string {
  const cell = (value: string | null) => (value === null || value === '' ? '-' : value.replaceAll(/[\t\n\r]/g, ' '))
  const lines = rows.map((r) => columns.map((c) => cell(COLUMNS[c](r))).join('\t'))
  return [...(headers ? [columns.join('\t').toUpperCase()] : []), ...lines].map((l) => l + '\n').join('')
}

/** Pure: `pk ls --count`: one `NAME N` line per state, then those that need you, then all of them. */
export function countText(rows: SessionRow[]): string {
  const states: State[] = ['working', 'waiting', 'limited', 'idle', 'exited', 'unknown']
  const lines = states.map((state) => `${state} ${rows.filter((r) => r.state === state).length}`)
  return [...lines, `attention ${rows.filter((r) => r.attention).length}`, `total ${rows.length}`].map((l) => l + '\n').join('')
}

/** What `pk ls` shows with no flags. */
export const LS_DEFAULTS: LsOptions = {
  json: false,
  all: false,
  format: 'table',
  color: false,
  states: null,
  attention: false,
  agent: null,
  ids: false,
  headers: true,
  count: false,
  columns: null,
}

/** Pure: the rows the filters keep (every output filters alike: table, JSON, ids, the short line). */
export function filterRows(rows: SessionRow[], opts: Pick<LsOptions, 'states' | 'attention' | 'agent'>): SessionRow[] {
  return rows.filter(
    (row) =>
      (opts.states === null || opts.states.includes(row.state)) && (!opts.attention || row.attention) && (opts.agent === null || row.agent === opts.agent),
  )
}

/** Where it goes: a terminal or not, colours or not, and what "now" and HOME are for ages and paths. */
export interface Terminal {
  tty: boolean
  colour: boolean
  now: number
  home: string | undefined
  /** The terminal's width in columns, when output goes to one. */
  columns?: number
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
  const order: State[] = ['waiting', 'limited', 'working', 'idle']
  // Readable on tmux's default status bar (black on green) and on dark ones: what needs you on red,
  // waiting on yellow, the rest in the bar's own colours.
  const style: Record<string, string> = {waiting: 'fg=black,bg=yellow', limited: 'fg=black,bg=cyan', working: 'bold', idle: 'default'}
  const parts: string[] = []
  const attention = rows.filter((r) => r.attention).length
  if (attention > 0) parts.push(tmuxColours ? `#[fg=white,bg=red,bold]${attention} need you#[default]` : `${attention} need you`)
  for (const state of order) {
    const n = rows.filter((r) => !r.attention && r.state === state).length
    if (n > 0) parts.push(tmuxColours ? `#[${style[state]}]${n} ${state}#[default]` : `${n} ${state}`)
  }
  return parts.length === 0 ? 'no agents' : parts.join(' · ')
}

/**
 * Pure: a listing as `pk ls` prints it. JSON carries the problems; the table and the short line leave
 * them to stderr, one per line. Shared by the command, the fast path, the dashboard without a terminal
 * and the fleet listing.
 */
export function presentListing(all: SessionRow[], problems: Problem[], opts: LsOptions, term: Terminal): Output {
  const rows = filterRows(all, opts)
  if (opts.format === 'short') return {stdout: shortSummary(rows, opts.color) + '\n', stderr: ''}
  if (opts.json) return {stdout: jsonDocument({...schemaHead('ls'), sessions: rows, problems}, term.tty), stderr: ''}
  const problemLines = problems.map((p) => `pk: ${p.code}: ${p.message}\n`).join('')
  if (opts.ids) return {stdout: rows.map((r) => r.id + '\n').join(''), stderr: problemLines}
  if (opts.count) return {stdout: countText(rows), stderr: problemLines}
  if (opts.columns !== null) return {stdout: columnsText(rows, opts.columns, opts.headers), stderr: problemLines}
  let stdout = ''
  let stderr = ''
  const tree = opts.tree === true ? treeOrder(rows) : null
  const table = {colour: term.colour, now: term.now, home: term.home, headers: opts.headers, width: term.tty ? term.columns : undefined}
  if (rows.length > 0)
    stdout = renderTable(tree?.map((t) => t.row) ?? rows, tree === null ? table : {...table, branches: new Map(tree.map((t) => [t.row.id, t.branch]))})
  else if (all.length > 0 && term.tty) stderr = 'no session matches the filters\n'
  else if (term.tty) stderr = `no agent sessions${opts.all ? '' : ' (pk ls --all shows every pane)'}; start one with: pk bg shell\n`
  for (const problem of problems) stderr += `pk: ${problem.code}: ${problem.message}\n`
  return {stdout, stderr}
}
