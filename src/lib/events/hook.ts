import {join} from 'node:path'

import {isConversationId} from '../agents/presets.js'
import {PkError} from '../model/errors.js'
import {ancestry} from '../proc/ancestry.js'
import {processSource} from '../proc/source.js'
import {appendRegularFile} from '../registry/files.js'
import {assertMayWrite, enrol, mayWrite} from '../registry/ownership.js'
import {HookStatus} from '../registry/records.js'

import {MAX_EVENT_BYTES, enqueue} from './spool.js'
import {startWriterOnce} from './writer-mark.js'
import {startPkDetached} from '../exec/run.js'
import {HOOK_STATES, isOneOf} from '../model/states.js'
import {Context} from '../config/context.js'

/** What one hook call reports, whatever the agent's payload style. */
export interface HookReport {
  state: HookStatus['state']
  event: string
  conversationId: string | null
  turnEnded: boolean
  /** When the agent itself says the event happened (ms since the epoch), where it says so; else null. */
  sentAt: number | null
  /** A reminder of the state the agent is already in (Claude's idle_prompt): it changes nothing that is already so. */
  reminder?: boolean
  /** The directory the agent says it works in (Codex's notify), where it says so. */
  cwd?: string | null
  /** The agent's transcript file, where its hook names it (Claude's transcript_path, pk's Pi extension). */
  transcript?: string | null
  /** What the agent said with the event, where pk keeps it: the line of a turn that ended at a limit. */
  detail?: string
}

const CLAUDE_EVENTS: Record<string, {state: HookStatus['state']; turnEnded?: boolean}> = {
  SessionStart: {state: 'idle'},
  UserPromptSubmit: {state: 'working'},
  PreToolUse: {state: 'working'},
  PostToolUse: {state: 'working'},
  PreCompact: {state: 'working'},
  Notification: {state: 'waiting'},
  PermissionRequest: {state: 'waiting'},
  Stop: {state: 'idle', turnEnded: true},
  // A turn that ended in an API error: Claude fires this instead of Stop.
  StopFailure: {state: 'idle', turnEnded: true},
  SessionEnd: {state: 'exited'},
}

const PI_EVENTS: Record<string, {state: HookStatus['state']; turnEnded?: boolean}> = {
  session_start: {state: 'idle'},
  agent_start: {state: 'working'},
  agent_end: {state: 'idle', turnEnded: true},
  // A failed attempt Pi retries by itself (pk's extension tells it apart): the turn goes on.
  agent_retry: {state: 'working'},
  session_shutdown: {state: 'exited'},
}

/** Gemini CLI's hooks (0.61, `hooks` in ~/.gemini/settings.json): each payload names its session and transcript. */
const GEMINI_EVENTS: Record<string, {state: HookStatus['state']; turnEnded?: boolean}> = {
  SessionStart: {state: 'idle'},
  BeforeAgent: {state: 'working'},
  // Fired when the agent loop ends; Gemini may start another at once (after a tool), whose BeforeAgent follows.
  AfterAgent: {state: 'idle', turnEnded: true},
  // Only `ToolPermission` so far: Gemini waits for the user to allow a tool.
  Notification: {state: 'waiting'},
  SessionEnd: {state: 'exited'},
}

const asObject = (text: string): Record<string, unknown> | null => {
  try {
    const data = JSON.parse(text)
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : null
  } catch {
    return null
  }
}
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null)
const path = (v: unknown) => {
  const p = str(v)
  return p !== null && p.startsWith('/') && p.endsWith('.jsonl') && !p.includes('\0') ? p : null
}
/** A conversation id, only where it is one (never a flag, never text with spaces or controls). */
const conversation = (v: unknown) => {
  const id = str(v)
  return id !== null && isConversationId(id) ? id : null
}

/**
 * Pure: an agent's hook payload -> what to record, or null for events that say nothing about state.
 * Claude Code and Gemini CLI send JSON on stdin; Codex's `notify` passes JSON as the last argument; pk's Pi
 * extension passes `{event, sessionId}` as the last argument.
 */
export function parseHookPayload(agent: string, payload: string): HookReport | null {
  const data = asObject(payload)
  if (data === null) throw new PkError('bad-payload', `${agent} hook payload is not a JSON object`)
  if (agent === 'claude') {
    const event = str(data.hook_event_name)
    const mapped = event ? CLAUDE_EVENTS[event] : undefined
    if (!event || !mapped) return null
    const report = {
      state: mapped.state,
      event,
      conversationId: conversation(data.session_id),
      turnEnded: mapped.turnEnded ?? false,
      sentAt: null,
      transcript: path(data.transcript_path),
    }
    // Its question tool asks the user whatever the permission mode: the question is on the screen a moment
    // after this event, and its PermissionRequest, fired as close, may be dated before it by a loaded machine.
    if (event === 'PreToolUse' && data.tool_name === 'AskUserQuestion') return {...report, state: 'waiting' as const, event: 'PreToolUse:AskUserQuestion'}
    // A turn that ended at a usage or rate limit (`"error": "rate_limit"`): the session is at a limit, not
    // done, and the line Claude showed says which limit and when it resets.
    if (event === 'StopFailure' && data.error === 'rate_limit') {
      const said = str(data.last_assistant_message)
      return {...report, state: 'limited' as const, event: 'StopFailure:rate_limit', turnEnded: false, ...(said ? {detail: said.slice(0, 1000)} : {})}
    }
    if (event !== 'Notification') return report
    // A Notification is a permission request or a question only by its type; the idle reminder Claude
    // sends a minute after a turn is not: it says the agent is idle, which the Stop already said.
    const type = str(data.notification_type)
    if (type === 'idle_prompt') return {...report, state: 'idle', event: `Notification:${type}`, reminder: true}
    // Claude continuing by itself at a limit's reset: the turn goes on (its UserPromptSubmit follows).
    if (type === 'quota_auto_resume_fired') return {...report, state: 'working', event: `Notification:${type}`}
    // Its other words about continuing at a limit (given up, turned off) ask nothing of the user: the limit stands.
    if (type?.startsWith('quota_')) return null
    return {...report, event: type ? `Notification:${type}` : event}
  }
  if (agent === 'codex') {
    if (data.type !== 'agent-turn-complete') return null
    return {
      state: 'idle',
      event: 'agent-turn-complete',
      conversationId: conversation(data['thread-id']) ?? conversation(data.thread_id),
      turnEnded: true,
      sentAt: null,
      cwd: str(data.cwd),
    }
  }
  if (agent === 'gemini') {
    const event = str(data.hook_event_name)
    const mapped = event ? GEMINI_EVENTS[event] : undefined
    if (!event || !mapped) return null
    // Dated by Gemini's own clock (its `timestamp`), like Pi's: its hooks may finish out of order.
    const at = typeof data.timestamp === 'string' ? Date.parse(data.timestamp) : Number.NaN
    const type = event === 'Notification' ? str(data.notification_type) : null
    return {
      state: mapped.state,
      event: type ? `${event}:${type}` : event,
      conversationId: conversation(data.session_id),
      turnEnded: mapped.turnEnded ?? false,
      sentAt: Number.isFinite(at) ? at : null,
      transcript: path(data.transcript_path),
    }
  }
  if (agent === 'pi') {
    const event = str(data.event)
    const mapped = event ? PI_EVENTS[event] : undefined
    if (!event || !mapped) return null
    // Pi's events can arrive out of order across /reload: its extension stamps each with Pi's own clock.
    const sentAt = typeof data.at === 'number' && Number.isFinite(data.at) ? data.at : null
    return {
      state: mapped.state,
      event,
      conversationId: conversation(data.sessionId),
      turnEnded: mapped.turnEnded ?? false,
      sentAt,
      transcript: path(data.transcript),
    }
  }
  // Any other agent (or a config preset) may call `pk hook NAME '{"state": "waiting"}'`; pk's opencode
  // plugin does, naming the usage file it keeps for the conversation.
  const state = str(data.state)
  if (!isOneOf(HOOK_STATES, state)) return null
  const sentAt = typeof data.at === 'number' && Number.isFinite(data.at) ? data.at : null
  const report: HookReport = {
    state,
    event: str(data.event) ?? state,
    conversationId: conversation(data.conversationId),
    turnEnded: data.turnEnded === true,
    sentAt,
  }
  return agent === 'opencode' ? {...report, transcript: path(data.transcript)} : report
}

/**
 * Pure: the status a report leaves, or null when it changes nothing. A status is dated by the event (the
 * agent's own clock, or when its hook ran), never by when pk read it, so every reader dates it alike. An
 * older report never overwrites a newer one. A report of the waiting the session is already in (Claude's
 * `PermissionRequest`, then its `Notification` about the same prompt) and a reminder of the state already
 * recorded (Claude's idle prompt) are the same event: they change nothing.
 */
export function nextStatus(previous: HookStatus | null, report: HookReport): HookStatus | null {
  if (report.reminder && previous?.state === report.state) return null
  if (report.sentAt !== null && previous?.sentAt != null && report.sentAt < previous.sentAt) return null
  if (report.state === 'waiting' && previous?.state === 'waiting') return null
  const at = new Date(report.sentAt ?? Date.now()).toISOString()
  return {
    state: report.state,
    at,
    event: report.event,
    turnEnded: report.turnEnded,
    ...(report.sentAt === null ? {} : {sentAt: report.sentAt}),
    ...(report.detail === undefined ? {} : {detail: report.detail}),
  }
}

/**
 * Put one event into the spool, as the sh hook does (`pk hook`, for agents configured to call node):
 * the sender's ancestry noted now, the payload as it came. Only a pk that may write the state does it.
 */
export async function spoolReport(ctx: Context, agent: string, payload: string, senderPid: number): Promise<string | null> {
  const state = ctx.writeState()
  // A pk of another pid namespace writes nothing: refused (and said on stderr), never silently.
  assertMayWrite(state)
  await enrol(state)
  const chain = ancestry(senderPid, processSource().table().stat)
  if (chain.length === 0) return null
  return enqueue(state, agent, chain, payload)
}

/** The fields that identify an event (its kind, its session, its date), where the agents put them: first. */
const IDENTIFYING = [
  'hook_event_name',
  'session_id',
  'notification_type',
  'transcript_path',
  'type',
  'thread-id',
  'thread_id',
  'cwd',
  'event',
  'sessionId',
  'at',
  'timestamp',
  'transcript',
  'state',
  'conversationId',
  'turnEnded',
]

/**
 * Pure: of a payload cut at MAX_EVENT_BYTES (a Write of a huge file), what identifies the event, as a JSON
 * object: each field's first occurrence in its first 64 KB, where every agent puts them (before the
 * tool's input). The rest (the file's content) is not pk's business.
 */
export function salvage(payload: string): string {
  const head = payload.slice(0, 64 * 1024)
  const found: Record<string, unknown> = {}
  // One pass over the head, string by string (a string is consumed whole, so a key's name inside another
  // value is no key): each identifying key's first value. (A regular expression per key scanned 64 KB
  // ten times, for each of hundreds of pending events a reader reads.)
  // (strings as `[^"\\]*(?:\\.[^"\\]*)*`: V8 runs that loop unrolled, an alternation per character it does not)
  const strings = /"([^"\\]*(?:\\.[^"\\]*)*)"(?:\s*:\s*("[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false))?/g
  for (let match = strings.exec(head); match !== null; match = strings.exec(head)) {
    const [, key, value] = match
    if (value === undefined || !IDENTIFYING_SET.has(key!) || Object.hasOwn(found, key!)) continue
    try {
      found[key!] = JSON.parse(value)
    } catch {
      // not a value after all
    }
  }
  return JSON.stringify(found)
}

const IDENTIFYING_SET = new Set(IDENTIFYING)

/**
 * `pk hook AGENT PAYLOAD`: taken like the sh hook takes it, into the spool with the sender's ancestry
 * (its parent's), applied by the one writer, which this starts (`startWriter`) unless one runs. A
 * payload cut at MAX_EVENT_BYTES is judged by what identifies it (salvage).
 */
export async function takeHookEvent(
  ctx: Context,
  agent: string,
  payload: string,
  startWriter = () => startPkDetached(['notify', '--fold'], ctx.env),
): Promise<{report: HookReport | null; file: string | null}> {
  const report = parseHookPayload(agent, Buffer.byteLength(payload) > MAX_EVENT_BYTES ? salvage(payload) : payload)
  const file = report === null ? null : await spoolReport(ctx, agent, payload, process.ppid)
  const state = ctx.readState()
  if (file !== null && state !== null) startWriterOnce(state, startWriter)
  return {report, file}
}

/**
 * A hook must never break the agent: its own errors go to hook.log in the state directory, but only
 * from a pk that may write there (a refused writer writes nothing at all), and never into a FIFO or
 * through a link.
 */
export function logHookError(ctx: Context, agent: string, error: unknown): void {
  try {
    const state = ctx.readState()
    if (!state || !mayWrite(state)) return
    appendRegularFile(join(state.root, 'hook.log'), `${new Date().toISOString()} ${agent}: ${error instanceof Error ? error.message : String(error)}\n`)
  } catch {
    // nowhere safe to log: stay silent rather than disturb the agent
  }
}
