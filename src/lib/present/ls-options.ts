import {parseArgs} from 'node:util'

import {PkError} from '../model/errors.js'

import {LsOptions} from './listing.js'

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
  'no-headers': {type: 'boolean', description: 'the table without its header line'},
} as const

export const STATES = ['working', 'waiting', 'idle', 'exited', 'unknown'] as const

const FORMATS: readonly string[] = LS_FLAGS.format.options

/** Pure: refuse combinations that mean nothing, rather than ignore a flag silently (exit 2). */
export function checkLsOptions(opts: Pick<LsOptions, 'json' | 'format' | 'color'> & Partial<Pick<LsOptions, 'ids' | 'headers' | 'states'>>): void {
  if (opts.color && opts.format !== 'short') throw new PkError('bad-flags', '--color goes with --format short (tmux colour codes for a status bar)')
  if (opts.json && opts.format === 'short') throw new PkError('bad-flags', '--json and --format short are two different outputs; pick one')
  if (opts.ids && (opts.json || opts.format === 'short'))
    throw new PkError('bad-flags', `--ids and ${opts.json ? '--json' : '--format short'} are two different outputs; pick one`)
  if (opts.headers === false && (opts.json || opts.ids || opts.format === 'short')) throw new PkError('bad-flags', '--no-headers goes with the table')
  const bad = (opts.states ?? []).find((s) => !(STATES as readonly string[]).includes(s))
  if (bad !== undefined) throw new PkError('bad-flags', `--state ${JSON.stringify(bad)}: the states are ${STATES.join(', ')}`)
}

/** Pure: --watch streams JSON events: only the filters go with it (--format short, --ids, --no-headers do not). */
export function checkWatchOptions(opts: Pick<LsOptions, 'json' | 'format' | 'color' | 'ids' | 'headers' | 'states'>): void {
  if (opts.format === 'short' || opts.color || opts.ids || opts.headers === false)
    throw new PkError('bad-flags', '--watch streams JSON events (--watch --json); --format short, --color, --ids and --no-headers do not go with it')
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

/** Pure: the options of an argv the fast path can serve, or null to let oclif parse it. */
export function parseLsArgv(args: string[]): LsOptions | null {
  let parsed
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      tokens: true,
      options: {
        json: {type: 'boolean'},
        all: {type: 'boolean', short: 'a'},
        format: {type: 'string'},
        color: {type: 'boolean'},
        state: {type: 'string'},
        attention: {type: 'boolean'},
        agent: {type: 'string'},
        ids: {type: 'boolean', short: 'q'},
        'no-headers': {type: 'boolean'},
      },
    })
  } catch {
    return null
  }
  // A flag given twice is oclif's to judge (it refuses), not this parser's to settle.
  const names = parsed.tokens.flatMap((t) => (t.kind === 'option' ? [t.name] : []))
  if (new Set(names).size !== names.length) return null
  const {values} = parsed
  const format = values.format ?? LS_FLAGS.format.default
  if (!FORMATS.includes(format)) return null
  return {
    json: values.json ?? false,
    all: values.all ?? false,
    format: format as LsOptions['format'],
    color: values.color ?? false,
    states: parseStates(values.state),
    attention: values.attention ?? false,
    agent: values.agent ?? null,
    ids: values.ids ?? false,
    headers: !(values['no-headers'] ?? false),
  }
}
