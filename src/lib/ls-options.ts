import {parseArgs} from 'node:util'

import {usageError} from './errors.js'

import {LsOptions} from './present/listing.js'

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
} as const

const FORMATS: readonly string[] = LS_FLAGS.format.options

/** Pure: refuse combinations that mean nothing, rather than ignore a flag silently (exit 2). */
export function checkLsOptions(opts: Pick<LsOptions, 'json' | 'format' | 'color'>): void {
  if (opts.color && opts.format !== 'short') throw usageError('bad-flags', '--color goes with --format short (tmux colour codes for a status bar)')
  if (opts.json && opts.format === 'short') throw usageError('bad-flags', '--json and --format short are two different outputs; pick one')
}

/** Pure: the options of an argv the fast path can serve, or null to let oclif parse it. */
export function parseLsArgv(args: string[]): LsOptions | null {
  let parsed
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      tokens: true,
      options: {json: {type: 'boolean'}, all: {type: 'boolean', short: 'a'}, format: {type: 'string'}, color: {type: 'boolean'}},
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
  return {json: values.json ?? false, all: values.all ?? false, format: format as LsOptions['format'], color: values.color ?? false}
}
