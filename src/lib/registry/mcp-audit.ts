import {mkdirSync} from 'node:fs'
import {join} from 'node:path'

import {appendRegularFile, isPrivateDir} from './files.js'
import {StateDir} from './state-dir.js'

/**
 * pk mcp's audit log: two JSON lines per call, appended to STATE/mcp/audit.jsonl (0600, never through a
 * link or into a FIFO, in a folder only you can write): one as it starts (a call that cannot be written is
 * refused, nothing done: the log fails closed), one as it ends. Each says when, who called (by identity), the
 * tool, its arguments with long text cut, and (at the end) how it ended (the exit pk's command would give).
 */

export const mcpDir = (state: StateDir) => join(state.root, 'mcp')
export const auditPath = (state: StateDir) => join(mcpDir(state), 'audit.jsonl')

/** Text longer than this is cut in the log (what was typed is the agent's; the log says what was asked). */
export const AUDIT_TEXT_MAX = 200

export interface AuditEntry {
  at: string
  /** `start`: written before the call does anything (a call that cannot be written is not done); `end`: how it ended. */
  phase: 'start' | 'end'
  /** The caller's session id, or null (the server itself, outside every session). */
  session: string | null
  pid: number
  tool: string
  args: unknown
  /** 0 when done; else the exit the command would give; null at the start. */
  exit: number | null
  /** The error's code when refused or failed (mcp-refused, mcp-off, no-such-session, ...). */
  code: string | null
}

/** Pure: the arguments as logged: strings past AUDIT_TEXT_MAX cut (saying how long they were). */
export function cutLong(value: unknown): unknown {
  if (typeof value === 'string') return value.length <= AUDIT_TEXT_MAX ? value : `${value.slice(0, AUDIT_TEXT_MAX)}… (${value.length} characters)`
  if (Array.isArray(value)) return value.map(cutLong)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutLong(v)]))
  return value
}

export const auditLine = (entry: AuditEntry) => JSON.stringify({...entry, args: cutLong(entry.args)}) + '\n'

/** Append one entry (one write of one line: lines of servers running at once never interleave). */
export function appendAudit(state: StateDir, entry: AuditEntry): void {
  mkdirSync(mcpDir(state), {recursive: true, mode: 0o700})
  if (!isPrivateDir(mcpDir(state))) throw new Error(`${mcpDir(state)} is not a private directory of pk's: no audit line is written there`)
  appendRegularFile(auditPath(state), auditLine(entry))
}
