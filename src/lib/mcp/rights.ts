import {PkError} from '../model/errors.js'

/**
 * What a pk MCP server may do (issue 65, 72): `read` lists, reads, waits and shows changes anywhere; `act`
 * starts agent presets as pk starts them (no command, no arguments of the caller's) and sends to, answers and
 * stops only the caller's own children; `exec` lets start_session run any command, or an agent with arguments
 * of the caller's (which can switch off the agent's own permission checks); `fleet` extends `act` to every
 * session; `land` lands the caller's children's work. A session a pk mcp started gets, in its own pk mcp, at
 * most the rights its parent's had (mcp-ceiling.ts). Guard rails against a confused or injected agent whose
 * only tools are pk's; an agent with a shell as you can run pk itself (docs/mcp.md says so).
 */

export const RIGHTS = ['read', 'act', 'exec', 'fleet', 'land'] as const
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
 * session; with its arguments, for start_session's command), or null when it may go ahead. Decided by the
 * rights and by identity, never by what any session's output says.
 */
export function refusal(
  tool: ToolName,
  rights: ReadonlySet<Right>,
  caller: Caller,
  target: {id: string; parent: string | null} | null,
  args: {command?: unknown} = {},
): string | null {
  const need = TOOLS[tool]
  if (need === 'read') return rights.has('read') ? null : `${tool} needs the read right, which this pk mcp was not given (--allow)`
  if (need === 'land' && !rights.has('land')) return `${tool} needs the land right, which this pk mcp was not given (--allow ...,land)`
  if (need === 'act' && !rights.has('act') && !rights.has('fleet')) return `${tool} needs the act right, which this pk mcp was not given (--allow read,act)`
  if (tool === 'start_session' && Array.isArray(args.command) && args.command.length > 0 && !rights.has('exec'))
    return `start_session with a command, or an agent with arguments of the caller's, needs the exec right, which this pk mcp was not given (--allow ...,exec): with act it starts an agent preset as pk starts it`
  if (target === null || rights.has('fleet') || isChildOf(caller, target)) return null
  return `session ${target.id} is not a child of the caller (${callerName(caller)}): with --allow act, pk mcp acts only on sessions the caller started; --allow fleet extends it to every session`
}

/** Pure: the rights a server holds for a caller whose session has a ceiling (mcp-ceiling.ts): those in both. */
export const withinCeiling = (rights: ReadonlySet<Right>, ceiling: readonly string[] | null): Set<Right> =>
  ceiling === null ? new Set(rights) : new Set([...rights].filter((r) => ceiling.includes(r)))
