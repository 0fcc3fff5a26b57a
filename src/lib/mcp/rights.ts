import {PkError} from '../model/errors.js'

/**
 * What a pk MCP server may do (issue 65): `read` lists, reads, waits and shows changes anywhere; `act`
 * starts sessions and sends to, answers and stops only the caller's own children; `fleet` extends `act` to
 * every session; `land` lands the caller's children's work. Guard rails against a confused or injected
 * agent, not a sandbox: an agent with a shell as you can run pk itself (docs/mcp.md says so).
 */

export const RIGHTS = ['read', 'act', 'fleet', 'land'] as const
export type Right = (typeof RIGHTS)[number]
export const DEFAULT_RIGHTS = 'read,act'

export const TOOLS = {
  list_sessions: 'read',
  read_session: 'read',
  session_changes: 'read',
  wait_for: 'read',
  start_session: 'act',
  send_message: 'act',
  answer_dialog: 'act',
  stop_session: 'act',
  land_session: 'land',
} as const satisfies Record<string, 'read' | 'act' | 'land'>
export type ToolName = keyof typeof TOOLS

/** Pure: `--allow read,act`: the rights, or a usage error naming the word pk does not know. */
export function parseRights(text: string): Set<Right> {
  const words = text
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '')
  const unknown = words.find((w) => !(RIGHTS as readonly string[]).includes(w))
  if (unknown !== undefined) throw new PkError('bad-flags', `--allow ${JSON.stringify(unknown)}: the rights are ${RIGHTS.join(', ')} (comma-separated)`)
  if (words.length === 0) throw new PkError('bad-flags', `--allow takes rights: ${RIGHTS.join(', ')} (comma-separated)`)
  return new Set(words as Right[])
}

/** Who calls: the session the server runs under (by process identity), or the server process itself. */
export interface Caller {
  /** The session's id, or null outside every session. */
  session: string | null
  pid: number
  startTime: number
  /** The sessions this server started (its own children, also when it runs outside every session). */
  started: ReadonlySet<string>
}

export const callerName = (caller: Caller) => (caller.session === null ? `pk mcp (pid ${caller.pid}, outside every session)` : `session ${caller.session}`)

/** Pure: whether `target` is the caller's child: recorded with the caller's session as its parent, or started by this server. */
export const isChildOf = (caller: Caller, target: {id: string; parent: string | null}) =>
  caller.started.has(target.id) || (caller.session !== null && target.parent === caller.session)

/**
 * Pure: why `tool` is refused for this caller with these rights (on `target`, for the tools that act on a
 * session), or null when it may go ahead. Decided by the rights and by identity, never by what any
 * session's output says.
 */
export function refusal(tool: ToolName, rights: ReadonlySet<Right>, caller: Caller, target: {id: string; parent: string | null} | null): string | null {
  const need = TOOLS[tool]
  if (need === 'read') return rights.has('read') ? null : `${tool} needs the read right, which this pk mcp was not given (--allow)`
  if (need === 'land' && !rights.has('land')) return `${tool} needs the land right, which this pk mcp was not given (--allow ...,land)`
  if (need === 'act' && !rights.has('act') && !rights.has('fleet')) return `${tool} needs the act right, which this pk mcp was not given (--allow read,act)`
  if (target === null || rights.has('fleet') || isChildOf(caller, target)) return null
  return `session ${target.id} is not a child of the caller (${callerName(caller)}): with --allow act, pk mcp acts only on sessions the caller started; --allow fleet extends it to every session`
}
