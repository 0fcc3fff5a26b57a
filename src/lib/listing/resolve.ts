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

/**
 * Pure: a session's label given where its id goes: still refused (a label is not an identity: anyone can write
 * one), and the error names the sessions that carry it, by id. Null when no session carries it.
 */
function labelGiven(idArg: string, rows: readonly SessionRow[]): PkError | null {
  const named = rows.filter((r) => r.label !== null && r.label === idArg.trim())
  if (named.length === 0) return null
  const list = named.map((r) => `  ${r.id}  ${r.agent ?? r.command[0] ?? ''}  ${r.cwd ?? ''}`).join('\n')
  return new PkError(
    'bad-id',
    `${JSON.stringify(idArg)} is a label, not a session id: a label names nothing for sure (anyone can give one). The session${named.length > 1 ? 's' : ''} labelled so:\n${list}\nGive the id.`,
  )
}

/** Pure: the one row an id or unique prefix names, or a typed error that says why not. */
export function resolveId(idArg: string, rows: SessionRow[]): SessionRow {
  let prefix: string
  try {
    prefix = checkIdForm(idArg)
  } catch (error) {
    throw labelGiven(idArg, rows) ?? error
  }
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
