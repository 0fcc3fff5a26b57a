import {CommandSpec, FlagSpec, parseSimple} from '../cli/simple-argv.js'
import {PkError} from '../model/errors.js'

import {COLUMNS, Column, LsOptions} from './listing.js'

/**
 * The flags `pk ls` shares between its oclif command and the fast path, defined once: the command derives
 * its oclif flags from this, and the fast path parses with node's own util.parseArgs. Anything else in the
 * argv (help, --watch, --fleet, a typo) goes to oclif, which owns those and their errors.
 */
export const LS_FLAGS = {
  json: {type: 'boolean', description: 'print {schema, sessions, problems} as JSON'},
  all: {type: 'boolean', short: 'a', description: 'also list plain panes and exited records'},
  format: {type: 'string', options: ['table', 'short'], default: 'table', description: 'table (default) or short: one line for a tmux status bar'},
  color: {type: 'boolean', description: 'with --format short: tmux colour codes (#[fg=...])'},
  state: {type: 'string', description: 'only sessions in these states, comma-separated (working,waiting,idle,exited,unknown)'},
  attention: {type: 'boolean', description: 'only sessions that need you (waiting, or finished a turn, while nobody looks)'},
  agent: {type: 'string', description: 'only sessions of this agent (claude, codex, gemini, opencode, pi, ...)'},
  ids: {type: 'boolean', short: 'q', description: 'print only the ids, one per line'},
  'no-headers': {type: 'boolean', description: 'the table (or the -o columns) without its header line'},
  count: {type: 'boolean', description: 'only counts, one `NAME N` line each: per state, attention, total (with the filters)'},
  changes: {type: 'boolean', description: 'what each session changed since it started (files, lines, commits, uncommitted work): a few git calls per checkout'},
  output: {
    type: 'string',
    short: 'o',
    description: `only these columns, comma-separated, tab-separated lines with a header (like ps -o): ${Object.keys(COLUMNS).join(', ')}`,
  },
} as const

export const STATES = ['working', 'waiting', 'idle', 'exited', 'unknown'] as const

/** Pure: refuse combinations that mean nothing, rather than ignore a flag silently (exit 2). */
export function checkLsOptions(
  opts: Pick<LsOptions, 'json' | 'format' | 'color'> & Partial<Pick<LsOptions, 'ids' | 'headers' | 'states' | 'count' | 'columns'>>,
): void {
  const outputs = [opts.json && '--json', opts.format === 'short' && '--format short', opts.ids && '--ids', opts.count && '--count', opts.columns && '-o']
  const chosen = outputs.filter((o): o is string => typeof o === 'string')
  if (chosen.length > 1)
    throw new PkError(
      'bad-flags',
      `${chosen.slice(0, -1).join(', ')} and ${chosen.at(-1)} are ${chosen.length === 2 ? 'two' : chosen.length} different outputs; pick one`,
    )
  if (opts.headers === false && (opts.json || opts.ids || opts.count || opts.format === 'short'))
    throw new PkError('bad-flags', '--no-headers goes with the table or -o')
  if (opts.color && opts.format !== 'short') throw new PkError('bad-flags', '--color goes with --format short (tmux colour codes for a status bar)')
  const bad = (opts.states ?? []).find((s) => !(STATES as readonly string[]).includes(s))
  if (bad !== undefined) throw new PkError('bad-flags', `--state ${JSON.stringify(bad)}: the states are ${STATES.join(', ')}`)
}

/** Pure: --watch streams JSON events: only the filters go with it (--format short, --ids, --no-headers do not). */
export function checkWatchOptions(opts: Pick<LsOptions, 'json' | 'format' | 'color' | 'ids' | 'headers' | 'states' | 'count' | 'columns'>): void {
  if (opts.format === 'short' || opts.color || opts.ids || opts.headers === false || opts.count || opts.columns !== null)
    throw new PkError(
      'bad-flags',
      '--watch streams JSON events (--watch --json); --format short, --color, --ids, --count, -o and --no-headers do not go with it',
    )
  checkLsOptions({...opts, json: false})
}

/** Pure: the state list a --state value names (comma-separated, spaces allowed). */
export const parseStates = (value: string | undefined) =>
  value === undefined
    ? null
    : value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)

/** Pure: the columns a -o value names (comma-separated); an unknown one is a usage error that lists them. */
export function parseColumns(value: string | undefined): Column[] | null {
  if (value === undefined) return null
  const names = value
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter(Boolean)
  const bad = names.find((c) => !Object.hasOwn(COLUMNS, c))
  if (bad !== undefined || names.length === 0)
    throw new PkError(
      'bad-flags',
      `-o ${JSON.stringify(value)}: ${bad === undefined ? 'no column named' : `no column ${JSON.stringify(bad)}`}; the columns are ${Object.keys(COLUMNS).join(', ')}`,
    )
  return names as Column[]
}

/** LS_FLAGS as parseSimple takes them. */
const LS_SPEC: CommandSpec = {
  flags: Object.fromEntries(
    Object.entries(LS_FLAGS).map(([name, flag]): [string, FlagSpec] => {
      const char = 'short' in flag ? {char: flag.short} : {}
      const {description} = flag
      if (flag.type === 'boolean') return [name, {type: 'boolean', description, ...char}]
      if ('options' in flag) return [name, {type: 'option', description, options: flag.options, default: flag.default}]
      return [name, {type: 'string', description, ...char}]
    }),
  ),
  args: [],
}

/**
 * Pure: the options of an argv the fast path can serve, or null to let oclif parse it. By parseSimple, as
 * the fast path's other commands: node's util.parseArgs costs a millisecond of every `pk ls` to load.
 */
export function parseLsArgv(args: string[]): LsOptions | null {
  const parsed = parseSimple(args, LS_SPEC)
  if (parsed === null) return null
  const values = parsed.flags as Record<string, string | boolean | undefined>
  let columns: Column[] | null
  try {
    columns = parseColumns(values.output as string | undefined)
  } catch {
    return null // oclif's command says what is wrong with it, in the same words
  }
  return {
    json: values.json === true,
    all: values.all === true,
    format: values.format as LsOptions['format'],
    color: values.color === true,
    states: parseStates(values.state as string | undefined),
    attention: values.attention === true,
    agent: (values.agent as string | undefined) ?? null,
    ids: values.ids === true,
    headers: values['no-headers'] !== true,
    count: values.count === true,
    columns,
    changes: values.changes === true,
  }
}
