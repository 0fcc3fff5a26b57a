import {SessionRow} from '../model/contract.js'
import {Problem} from '../model/contract.js'
import {STATE_COLOURS, age, agentLabelCell, changesText, cwdCell, paint, printable, stateCell, usageCell} from '../present/table.js'

/** Pure dashboard state and rendering: everything the screen shows is a function of this. */
export interface UiState {
  rows: SessionRow[]
  problems: Problem[]
  /** Id of the selected session, kept across refreshes. */
  selected: string | null
  filter: string
  /** Typing a filter after `/`. */
  filtering: boolean
  message: string | null
  /** Id of a session waiting for `y` to be stopped. */
  confirmStop?: string | null
  /** The key help (`?`) is shown instead of the list. */
  help?: boolean
  /** Rows in one page of the list (PageUp/PageDown), from the last layout. */
  page?: number
}

/** Every key of the dashboard, as `?` and `pk ui --help` list them. */
export const KEYS: [string, string][] = [
  ['↑ ↓ / j k', 'move the selection'],
  ['PgUp PgDn', 'a page up or down'],
  ['g / G', 'the first / the last session'],
  ['Enter', 'attach (detach to come back)'],
  ['/', 'filter (Enter keeps it; Esc, or Backspace to empty and Enter, clears it)'],
  ['l', "the session's last screen and scrollback"],
  ['x', 'stop the session (y to confirm)'],
  ['R', 'resume an exited session'],
  ['c', 'continue a session at its usage limit now (pk continue)'],
  ['r', 'refresh now'],
  ['?', 'this help (any key closes it)'],
  ['q / Ctrl-C', 'quit'],
]

export function visibleRows(state: UiState): SessionRow[] {
  const needle = state.filter.toLowerCase()
  if (needle === '') return state.rows
  return state.rows.filter((row) =>
    [row.id, row.agent ?? '', row.label ?? '', row.state, row.cwd ?? '', row.tmux?.session ?? '', row.command.join(' ')].some((field) =>
      field.toLowerCase().includes(needle),
    ),
  )
}

/** Keep the selection on the same session; fall back to the first row when it went away. */
export function reconcileSelection(state: UiState): UiState {
  const rows = visibleRows(state)
  if (rows.some((r) => r.id === state.selected)) return state
  return {...state, selected: rows[0]?.id ?? null}
}

export function moveSelection(state: UiState, delta: number): UiState {
  const rows = visibleRows(state)
  if (rows.length === 0) return {...state, selected: null}
  const index = Math.max(
    0,
    rows.findIndex((r) => r.id === state.selected),
  )
  const next = Math.min(rows.length - 1, Math.max(0, index + delta))
  return {...state, selected: rows[next]!.id}
}

const clip = (text: string, width: number) => (text.length <= width ? text.padEnd(width) : text.slice(0, Math.max(0, width - 1)) + '…')

export interface Layout {
  width: number
  height: number
  colour: boolean
  now: number
  home?: string
  branchOf: (cwd: string | null) => string | null
}

/** The whole screen as lines, exactly `height` of them, none wider than `width`. */
export function renderScreen(state: UiState, layout: Layout): string[] {
  const {width, height} = layout
  const c = paint(layout.colour)
  // Said in as few columns as it takes: cut, "too small" would be lost first.
  if (width < 30 || height < 6)
    return [clip(width >= 22 ? 'pk: terminal too small' : width >= 9 ? 'too small' : '!', width), ...Array(Math.max(0, height - 1)).fill('')]
  if (state.help) {
    // Narrower than a key and its words (a phone), each key over its words, the words wrapped.
    const narrow = width < 60
    const help = [
      c('bold', clip('pk — keys', width)),
      '',
      ...KEYS.flatMap(([key, what]) =>
        narrow ? [clip(`  ${key}`, width), ...wrap(what, width - 4).map((l) => `    ${l}`)] : [clip(`  ${key.padEnd(12)} ${what}`, width)],
      ),
    ]
    while (help.length < height - 1) help.push('')
    return [...help.slice(0, height - 1), c('dim', clip('any key: back to the list', width))]
  }
  const rows = visibleRows(state)
  // (one vocabulary with pk ls --short and the page: "need you" is attention, "waiting" a state)
  const needYou = state.rows.filter((r) => r.attention).length
  const title = `pk — ${state.rows.length} session(s)${needYou ? `, ${needYou} need you` : ''}${state.filter ? `  filter: ${state.filter}` : ''}`
  const lines: string[] = [c('bold', clip(title, width))]
  // The table's cells (pk ls), plus what a dashboard adds: the last output, the git branch.
  const withUsage = state.rows.some((r) => r.usage)
  const withChanges = state.rows.some((r) => r.changes !== undefined)
  const columns = [
    {name: 'ID', width: 8},
    {name: 'AGENT', width: 16},
    // (a limited row says when it resets: "limited · resets 05:20 (pane)")
    {name: 'STATE', width: state.rows.some((r) => r.state === 'limited') ? 29 : 18},
    {name: 'AGE', width: 4},
    ...(withUsage ? [{name: 'USAGE', width: 13}] : []),
    {name: 'ACTIVE', width: 6},
    {name: 'BRANCH', width: 14},
    // What each session changed since it started, where pk knows its base (measured in the background).
    ...(withChanges ? [{name: 'CHANGES', width: 16}] : []),
  ]
  const fixed = columns.reduce((n, col) => n + col.width + 1, 0) + 2
  const cwdWidth = Math.max(0, width - fixed)
  lines.push(c('dim', clip('  ' + columns.map((col) => col.name.padEnd(col.width)).join(' ') + ' ' + 'CWD', width)))

  const footer = footerLines(state, width, c)
  const listHeight = height - lines.length - footer.length
  // What one page is, for PageUp/PageDown: known only here, kept on the state for the next key.
  state.page = Math.max(1, listHeight - 1)
  const selectedIndex = Math.max(
    0,
    rows.findIndex((r) => r.id === state.selected),
  )
  if (width < 70) return [...lines.slice(0, 1), ...narrowList(state, rows, layout, listHeight + 1, selectedIndex, c), ...footer]
  const first = Math.min(Math.max(0, selectedIndex - listHeight + 1), Math.max(0, rows.length - listHeight))
  for (const row of rows.slice(first, first + listHeight)) {
    const selected = row.id === state.selected
    const activity = row.tmux?.activity ? age(new Date(row.tmux.activity * 1000).toISOString(), layout.now) : '-'
    const cells = [
      row.id,
      agentLabelCell(row),
      stateCell(row) + (row.stateSource === 'none' ? '' : ` (${row.stateSource})`),
      age(row.startedAt, layout.now),
      ...(withUsage ? [usageCell(row)] : []),
      activity,
      printable(layout.branchOf(row.cwd) ?? '-'),
      ...(withChanges ? [row.changes === undefined ? '-' : (changesText(row) ?? '?')] : []),
    ]
    let text = (selected ? '> ' : '  ') + cells.map((cell, i) => clip(cell, columns[i]!.width)).join(' ') + ' ' + clip(cwdCell(row, layout.home), cwdWidth)
    text = clip(text, width)
    // A colour per state (as pk ls colours its STATE column); what needs you stands out in bold.
    if (selected) text = layout.colour ? `\u001B[7m${text}\u001B[0m` : text
    else if (row.conflict) text = c('red', text)
    else text = c(STATE_COLOURS[row.state], row.attention ? c('bold', text) : text)
    lines.push(text)
  }
  if (rows.length === 0) lines.push(clip(state.filter ? '  no session matches the filter' : '  no agent sessions — start one with: pk bg shell', width))
  while (lines.length < height - footer.length) lines.push('')
  return [...lines.slice(0, height - footer.length), ...footer]
}

/** Pure: words wrapped at `width` columns (a word longer than that is cut). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line)
      line = ''
    }
    line = (line === '' ? word : `${line} ${word}`).slice(0, width)
  }
  return [...lines, line]
}

/**
 * A phone's width (under 70 columns): each session on two lines, what it is and its state on the first,
 * its age and where it works on the second, so that nothing is cut to nothing.
 */
function narrowList(state: UiState, rows: SessionRow[], layout: Layout, height: number, selectedIndex: number, c: ReturnType<typeof paint>): string[] {
  const {width} = layout
  const lines: string[] = []
  const perPage = Math.max(1, Math.floor(height / 2))
  state.page = Math.max(1, perPage - 1)
  const first = Math.min(Math.max(0, selectedIndex - perPage + 1), Math.max(0, rows.length - perPage))
  for (const row of rows.slice(first, first + perPage)) {
    const selected = row.id === state.selected
    const top = clip(`${selected ? '> ' : '  '}${row.id} ${stateCell(row)} ${agentLabelCell(row)}`, width)
    const where = [age(row.startedAt, layout.now), printable(layout.branchOf(row.cwd) ?? ''), changesText(row) ?? '', cwdCell(row, layout.home)].filter(
      (p) => p !== '' && p !== '-',
    )
    const bottom = clip(`    ${where.join(' · ')}`, width)
    const tint = (text: string) =>
      selected && layout.colour
        ? `\u001B[7m${text}\u001B[0m`
        : row.conflict
          ? c('red', text)
          : c(STATE_COLOURS[row.state], row.attention ? c('bold', text) : text)
    lines.push(tint(top), selected ? tint(bottom) : c('dim', bottom))
  }
  if (rows.length === 0) lines.push(clip(state.filter ? '  no session matches' : '  no agent sessions: pk bg', width))
  while (lines.length < height) lines.push('')
  return lines.slice(0, height)
}

function footerLines(state: UiState, width: number, c: ReturnType<typeof paint>): string[] {
  const out: string[] = []
  for (const problem of state.problems.slice(0, 2)) out.push(c('red', clip(`! ${problem.code}: ${printable(problem.message)}`, width)))
  if (state.problems.length > 2) out.push(c('red', clip(`! and ${state.problems.length - 2} more problem(s): pk ls`, width)))
  if (state.message) out.push(clip(printable(state.message), width))
  out.push(
    c(
      'dim',
      clip(
        state.filtering
          ? `/${state.filter}▏  Enter: keep filter · Esc: clear`
          : width < 70
            ? 'jk move · Enter attach · ? keys · q quit'
            : '↑↓/jk move · Enter attach · ? keys · q quit · / filter · l logs · x stop · R resume',
        width,
      ),
    ),
  )
  return out
}

/** Pure: split terminal input into keys: CSI sequences (arrows), ESC-letter pairs, and single characters. */
export function splitKeys(input: string): string[] {
  const keys: string[] = []
  let i = 0
  while (i < input.length) {
    if (input[i] === '\u001B' && input[i + 1] === '[') {
      let j = i + 2
      while (j < input.length && !/[\x40-\x7E]/.test(input[j]!)) j++
      keys.push(input.slice(i, j + 1))
      i = j + 1
    } else if (input[i] === '\u001B' && input[i + 1] === 'O' && i + 2 < input.length) {
      // SS3 arrows (application cursor mode): ESC O A is up.
      keys.push('\u001B[' + input[i + 2])
      i += 3
    } else {
      keys.push(input[i]!)
      i++
    }
  }
  return keys
}

export type KeyAction = 'draw' | 'quit' | 'refresh' | 'attach' | 'stop' | 'resume' | 'continue' | 'logs'

/**
 * Pure: what a key does to the dashboard. While filtering, keys edit the filter (Enter keeps it, Esc
 * clears it); otherwise arrows or j/k move, / filters, Esc clears the filter, r refreshes, Enter
 * attaches, q quits. Ctrl-C always quits.
 */
export function keyAction(state: UiState, key: string): {state: UiState; action: KeyAction} {
  if (key === '\u0003') return {state, action: 'quit'}
  if (state.help) return {state: {...state, help: false}, action: 'draw'}
  if (state.filtering) {
    let next = state
    if (key === '\r' || key === '\n') next = {...state, filtering: false}
    else if (key === '\u001B') next = {...state, filtering: false, filter: ''}
    else if (key === '\u007F' || key === '\b') next = {...state, filter: state.filter.slice(0, -1)}
    // eslint-disable-next-line no-control-regex -- a printable key is exactly what is not a control character
    else if (/^[^\u0000-\u001F\u007F]$/u.test(key)) next = {...state, filter: state.filter + key}
    return {state: reconcileSelection(next), action: 'draw'}
  }
  if (state.confirmStop) {
    // Only y stops; any other key cancels.
    const next = {...state, confirmStop: null, message: key === 'y' ? null : 'not stopped'}
    return {state: next, action: key === 'y' ? 'stop' : 'draw'}
  }
  if (key === 'x' && state.selected) {
    // An exited session has nothing to stop: say so rather than ask.
    if (state.rows.find((r) => r.id === state.selected)?.state === 'exited')
      return {state: {...state, message: `${state.selected} has exited: nothing to stop (R resumes it, pk prune removes it)`}, action: 'draw'}
    return {state: {...state, confirmStop: state.selected, message: `stop ${state.selected}? y to confirm, any other key to cancel`}, action: 'draw'}
  }
  if (key === 'R' && state.selected) return {state, action: 'resume'}
  if (key === 'c' && state.selected) {
    if (state.rows.find((r) => r.id === state.selected)?.state !== 'limited')
      return {state: {...state, message: `${state.selected} is not at a usage limit: nothing to continue`}, action: 'draw'}
    return {state, action: 'continue'}
  }
  if (key === 'l' && state.selected) return {state, action: 'logs'}
  if (key === 'q') return {state, action: 'quit'}
  if (key === 'r') return {state, action: 'refresh'}
  if (key === '\r' || key === '\n') return {state, action: 'attach'}
  if (key === '\u001B[A' || key === 'k') return {state: moveSelection(state, -1), action: 'draw'}
  if (key === '\u001B[B' || key === 'j') return {state: moveSelection(state, 1), action: 'draw'}
  if (key === '/') return {state: {...state, filtering: true}, action: 'draw'}
  if (key === '?') return {state: {...state, help: true}, action: 'draw'}
  if (key === 'g') return {state: moveSelection(state, -Infinity), action: 'draw'}
  if (key === 'G') return {state: moveSelection(state, Infinity), action: 'draw'}
  if (key === '\u001B[5~') return {state: moveSelection(state, -(state.page ?? 10)), action: 'draw'}
  if (key === '\u001B[6~') return {state: moveSelection(state, state.page ?? 10), action: 'draw'}
  if (key === '\u001B') return {state: reconcileSelection({...state, filter: ''}), action: 'draw'}
  return {state, action: 'draw'}
}
