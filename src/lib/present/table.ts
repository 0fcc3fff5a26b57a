import {SessionRow} from '../model/contract.js'
import {clockText} from '../model/clock.js'

/** Pure rendering of rows for people. Colour only when asked (a TTY without NO_COLOR). */

const CODES = {red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, dim: 2, bold: 1} as const
type Colour = keyof typeof CODES

export function paint(enabled: boolean) {
  return (colour: Colour, text: string) => (enabled ? `\u001B[${CODES[colour]}m${text}\u001B[0m` : text)
}

export function wantColour(stream: {isTTY?: boolean}, env: Record<string, string | undefined>): boolean {
  return Boolean(stream.isTTY) && env.NO_COLOR === undefined && env.TERM !== 'dumb'
}

/** Strip control characters so a label or path cannot move the cursor or recolour the terminal. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replaceAll(/[\u0000-\u001F\u007F-\u009F]/g, '?')
}

export function age(startedAt: string | null, now: number): string {
  if (startedAt === null) return '-'
  const seconds = Math.max(0, Math.round((now - Date.parse(startedAt)) / 1000))
  if (seconds < 60) return `${seconds}s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`
  return `${Math.floor(seconds / 86_400)}d`
}

export function shortenHome(path: string, home: string | undefined): string {
  if (home && home !== '/' && (path === home || path.startsWith(home + '/'))) return '~' + path.slice(home.length)
  return path
}

/** One colour per state, shared by the table and the dashboard. */
export const STATE_COLOURS: Record<SessionRow['state'], Colour> = {
  waiting: 'yellow',
  limited: 'cyan',
  working: 'green',
  idle: 'blue',
  exited: 'dim',
  unknown: 'magenta',
}

/** A preset's name, or the plain command after `$ ` so it cannot be taken for a preset. */
const agentCell = (row: SessionRow) => row.agent ?? (row.command[0] ? `$ ${row.command[0].split('/').at(-1)}` : '-')

/** Pure: the AGENT cell, with the label (`claude (review)`, `$ sleep (scratch)`): the table's and the dashboard's. */
export const agentLabelCell = (row: SessionRow) => printable(row.label ? `${agentCell(row)} (${row.label})` : agentCell(row))

/** Pure: the STATE cell: `! ` when it needs you, `?` when unverified, the exit status, a limit's reset, or `conflict`. */
export function stateCell(row: SessionRow, now = Date.now()): string {
  let state: string = row.state
  if (row.conflict) state = 'conflict'
  else if (!row.verified && row.state !== 'exited') state = `${row.state}?`
  else if (row.state === 'exited' && row.exitStatus !== null) state = `exited ${row.exitStatus}`
  else if (row.state === 'limited' && row.limit?.resetsAt) state = `limited · resets ${clockText(row.limit.resetsAt, now)}`
  return (row.attention ? '! ' : '') + state
}

/**
 * Pure: what a session changed, short: `3f +120 -4 2c *` (files, lines added and removed, its commits, `*`
 * for uncommitted work); `0f` for nothing; null where pk knows no base or git could not say.
 */
export function changesText(row: SessionRow): string | null {
  const c = row.changes
  if (!c) return null
  return `${c.files}f${c.files > 0 ? ` +${c.insertions} -${c.deletions}` : ''}${c.commits > 0 ? ` ${c.commits}c` : ''}${c.dirty ? ' *' : ''}`
}

/** Pure: the CWD cell, home as `~`, with the worktree's branch (`*` when dirty). */
export const cwdCell = (row: SessionRow, home: string | undefined) =>
  printable(row.cwd ? shortenHome(row.cwd, home) + (row.worktree ? ` [${row.worktree.branch}${row.worktree.dirty ? '*' : ''}]` : '') : '-')

function target(row: SessionRow): string {
  if (!row.tmux) return '-'
  const socket = row.tmux.socket.split('/').at(-1)
  return `${socket}:${row.tmux.session} ${row.tmux.pane}`
}

/** Pure: a token count as people read it: 950, 12k, 3.4M. */
export function tokens(n: number): string {
  if (n < 1000) return String(n)
  if (n < 1_000_000) return `${n < 10_000 ? (n / 1000).toFixed(1) : Math.round(n / 1000)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

/** Pure: the USAGE cell: tokens the conversation spent, and how full its context is (`41k ctx 82%`). */
export function usageCell(row: SessionRow): string {
  const u = row.usage
  if (!u) return '-'
  const spent = tokens(u.input + u.output + u.cacheRead + u.cacheWrite)
  const share = u.contextTokens !== null && u.contextWindow ? ` ctx ${Math.round((100 * u.contextTokens) / u.contextWindow)}%` : ''
  return spent + share
}

/**
 * Pure: column widths that fit `width`: the cwd column gives way first, then the agent/label column, then
 * the tmux target, each down to a floor; the id, state and age never shrink. Unbounded (piped): as wide as
 * the cells.
 */
export function fitWidths(natural: number[], header: string[], width: number): number[] {
  const widths = [...natural]
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1)
  for (const [name, floor] of [
    ['CWD', 12],
    ['AGENT', 12],
    ['TMUX', 8],
  ] as const) {
    const i = header.indexOf(name)
    if (i === -1 || total() <= width) continue
    widths[i] = Math.max(Math.min(floor, natural[i]!), widths[i]! - (total() - width))
  }
  return widths
}

/** Pure: a cell cut to `width` with an ellipsis; a path keeps its end (where the name is), other text its start. */
export function fitCell(text: string, width: number, keepEnd: boolean): string {
  if (text.length <= width) return text
  if (width <= 1) return '…'.slice(0, width)
  return keepEnd ? '…' + text.slice(text.length - width + 1) : text.slice(0, width - 1) + '…'
}

export function renderTable(
  rows: SessionRow[],
  opts: {colour: boolean; now: number; home?: string; headers?: boolean; width?: number; branches?: ReadonlyMap<string, string>},
): string {
  const c = paint(opts.colour)
  // The usage column only where some session's transcript is known.
  const withUsage = rows.some((r) => r.usage)
  // What each session changed, only when asked for (pk ls --changes).
  const withChanges = rows.some((r) => r.changes !== undefined)
  const header = ['ID', 'AGENT', 'STATE', 'AGE', ...(withUsage ? ['USAGE'] : []), ...(withChanges ? ['CHANGES'] : []), 'CWD', 'TMUX']
  const cells = rows.map((row) => [
    // (in a tree, `pk ls --tree`: the branch that draws a child under its parent)
    (opts.branches?.get(row.id) ?? '') + row.id,
    agentLabelCell(row),
    stateCell(row, opts.now),
    age(row.startedAt, opts.now),
    ...(withUsage ? [usageCell(row)] : []),
    ...(withChanges ? [changesText(row) ?? '-'] : []),
    cwdCell(row, opts.home),
    printable(target(row)),
  ])
  const natural = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)))
  // On a terminal the table fits its width (no row wraps); piped, it is as wide as it needs.
  const widths = opts.width === undefined ? natural : fitWidths(natural, header, opts.width)
  const cwdColumn = header.indexOf('CWD')
  const line = (r: string[], colourOf: (i: number) => Colour | null) =>
    r
      .map((cell, i) => {
        const fitted = fitCell(cell, widths[i]!, i === cwdColumn)
        const padded = i === r.length - 1 ? fitted : fitted.padEnd(widths[i]!)
        const colour = colourOf(i)
        return colour ? c(colour, padded) : padded
      })
      .join('  ')
  const out = opts.headers === false ? [] : [line(header, () => 'bold')]
  cells.forEach((r, i) => {
    const row = rows[i]!
    const whole: Colour | null = row.conflict ? 'red' : row.state === 'exited' ? 'dim' : null
    out.push(line(r, (col) => whole ?? (col === 2 ? STATE_COLOURS[row.state] : null)))
  })
  return out.join('\n') + '\n'
}
