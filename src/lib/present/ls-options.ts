import {PkError} from '../model/errors.js'

import {COLUMNS, Column, LsOptions} from './listing.js'
import {STATES} from '../model/states.js'

export {STATES} from '../model/states.js'

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
