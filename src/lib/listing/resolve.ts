import {SessionRow} from '../model/contract.js'
import {PkError} from '../model/errors.js'
import {ID_LENGTH} from '../proc/identity.js'

const ID_PATTERN = new RegExp(`^[0-9a-f]{1,${ID_LENGTH}}$`)

/** Pure: an id or prefix in its normal form, or a usage error (exit 2) for anything else. */
export function checkIdForm(idArg: string): string {
  const prefix = idArg.trim().toLowerCase()
  if (!ID_PATTERN.test(prefix)) {
    throw new PkError('bad-id', `${JSON.stringify(idArg)} is not a session id: ids are 1 to ${ID_LENGTH} hex digits, as pk ls shows them`)
  }
  return prefix
}

/** Pure: the one row an id or unique prefix names, or a typed error that says why not. */
export function resolveId(idArg: string, rows: SessionRow[]): SessionRow {
  const prefix = checkIdForm(idArg)
  const byId = new Map<string, SessionRow[]>()
  for (const row of rows) if (row.id.startsWith(prefix)) byId.set(row.id, [...(byId.get(row.id) ?? []), row])
  const twice = [...byId.values()].find((same) => same.length > 1)
  if (twice)
    throw new PkError('conflict', `session ${twice[0]!.id} appears more than once (two panes or records claim one process); pk will not guess which is right`)
  const matches = [...byId.values()].map((same) => same[0]!)
  if (matches.length === 0) throw new PkError('no-such-session', `no session with id ${prefix}; pk ls --all lists them`)
  if (matches.length > 1) {
    const list = matches.map((r) => `  ${r.id}  ${r.agent ?? r.command[0] ?? ''}  ${r.cwd ?? ''}`).join('\n')
    throw new PkError('ambiguous-id', `id prefix ${prefix} matches ${matches.length} sessions:\n${list}\nType more of the id.`)
  }
  return matches[0]!
}
