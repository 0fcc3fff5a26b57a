import {join} from 'node:path'

import {AgentPreset, recognizeAgent} from './agents/presets.js'
import {loadConfig} from './config.js'
import {PkError} from './errors.js'
import {ancestry} from './proc/ancestry.js'
import {ProcessIdentity, identityFromStat, sessionIdOf} from './proc/identity.js'
import {View, readView} from './proc/view.js'
import {readCmdline, readCwd, readStat, startTimeToDate} from './proc/reader.js'
import {mayWrite, withWriteAccess} from './registry/ownership.js'
import {appendRegularFile, readRegularFile} from './registry/files.js'
import {HOOK_STATES, isOneOf} from './states.js'
import {HookStatus, RECORD_VERSION, SessionRecord, StoredRecord, createRecord, isStored, parseRecordText, readRecords, recordOf, replaceRecord} from './registry/records.js'
import {Env, openStateDirForReading, openStateDirForWriting} from './registry/state-dir.js'
import {Pane} from './tmux/panes.js'
import {ServerListing, ServerScan} from './tmux/servers.js'

/** A hook runs inside the agent: one stuck tmux server may cost it this much, no more. */
export const HOOK_TMUX_DEADLINE_MS = 300
/** The whole `pk hook` process ends within this long after it started, whatever happens. */
export const HOOK_DEADLINE_MS = 900
/** ...but never leaves itself less than this for its work once it runs (node may start slowly under load). */
export const HOOK_MIN_WORK_MS = 600

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
  session_shutdown: {state: 'exited'},
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

/**
 * Pure: an agent's hook payload -> what to record, or null for events that say nothing about state.
 * Claude Code sends JSON on stdin; Codex's `notify` passes JSON as the last argument; pk's Pi extension
 * passes `{event, sessionId}` as the last argument.
 */
export function parseHookPayload(agent: string, payload: string): HookReport | null {
  const data = asObject(payload)
  if (data === null) throw new PkError('bad-payload', `${agent} hook payload is not a JSON object`)
  if (agent === 'claude') {
    const event = str(data.hook_event_name)
    const mapped = event ? CLAUDE_EVENTS[event] : undefined
    if (!event || !mapped) return null
    const report = {state: mapped.state, event, conversationId: str(data.session_id), turnEnded: mapped.turnEnded ?? false, sentAt: null}
    if (event !== 'Notification') return report
    // A Notification is a permission request or a question only by its type; the idle reminder Claude
    // sends a minute after a turn is not: it says the agent is idle, which the Stop already said.
    const type = str(data.notification_type)
    if (type === 'idle_prompt') return {...report, state: 'idle', event: `Notification:${type}`, reminder: true}
    return {...report, event: type ? `Notification:${type}` : event}
  }
  if (agent === 'codex') {
    if (data.type !== 'agent-turn-complete') return null
    return {state: 'idle', event: 'agent-turn-complete', conversationId: str(data['thread-id']) ?? str(data.thread_id), turnEnded: true, sentAt: null}
  }
  if (agent === 'pi') {
    const event = str(data.event)
    const mapped = event ? PI_EVENTS[event] : undefined
    if (!event || !mapped) return null
    // Pi's events can arrive out of order across /reload: its extension stamps each with Pi's own clock.
    const sentAt = typeof data.at === 'number' && Number.isFinite(data.at) ? data.at : null
    return {state: mapped.state, event, conversationId: str(data.sessionId), turnEnded: mapped.turnEnded ?? false, sentAt}
  }
  // Any other agent (or a config preset) may call `pk hook NAME '{"state": "waiting"}'`.
  const state = str(data.state)
  if (!isOneOf(HOOK_STATES, state)) return null
  const sentAt = typeof data.at === 'number' && Number.isFinite(data.at) ? data.at : null
  return {state, event: str(data.event) ?? state, conversationId: str(data.conversationId), turnEnded: data.turnEnded === true, sentAt}
}

/** When the process the agent started for this event began (ms since the epoch): this one, or its parent shell. */
function hookStartedAt(parentPid: number): number | null {
  const self = readStat(process.pid)
  const parent = readStat(parentPid)
  // Claude's shell form runs `sh -c "... pk hook claude"`: the shell is what it started for the event.
  const started = parent !== null && /^(sh|bash|dash|zsh)$/.test(parent.comm) ? parent : self
  return started === null ? null : (startTimeToDate(started.startTime)?.getTime() ?? null)
}

/**
 * Pure: the status a report leaves, or null when it changes nothing. An older report (by the agent's own
 * clock, where it sends one) never overwrites a newer one; a reminder of the state already recorded
 * (Claude's idle prompt) keeps the first report's time, so attention once acknowledged stays cleared.
 */
export function nextStatus(previous: HookStatus | null, report: HookReport, now: Date): HookStatus | null {
  if (report.reminder && previous?.state === report.state) return null
  if (report.sentAt !== null && previous?.sentAt != null && report.sentAt < previous.sentAt) return null
  return {state: report.state, at: now.toISOString(), event: report.event, turnEnded: report.turnEnded, ...(report.sentAt === null ? {} : {sentAt: report.sentAt})}
}

export type HookTarget =
  | {kind: 'record'; stored: StoredRecord}
  | {kind: 'pane'; agentPid: number; server: ServerListing; pane: Pane}
  | {kind: 'none'}

/**
 * Pure: walk up from the hook to the first process that is a recorded session (same pid and start
 * time) or a tmux pane's process. For a pane, the agent is the nearest ancestor the presets recognise,
 * else the pane's child on the way, else the pane process itself.
 */
export function findHookTarget(opts: {
  chain: {pid: number; startTime: number}[]
  view: View
  records: StoredRecord[]
  panesByPid: Map<number, {server: ServerListing; pane: Pane}>
  argv: (pid: number) => string[] | null
  presets: readonly AgentPreset[]
  agent: string
}): HookTarget {
  const {chain, view} = opts
  for (let i = 0; i < chain.length; i++) {
    const link = chain[i]!
    const stored = recordOf(opts.records, {...view, ...link})
    if (stored) return {kind: 'record', stored}
    const ref = opts.panesByPid.get(link.pid)
    if (ref) {
      // The session is the agent's outermost process in the pane (a node wrapper, not its native child):
      // an id never changes while that process lives, whichever of its descendants reports.
      const below = chain.slice(0, i + 1).reverse()
      const recognised = below.find((l) => {
        const argv = opts.argv(l.pid)
        return argv !== null && recognizeAgent(argv, opts.presets) === opts.agent
      })
      const agentPid = recognised?.pid ?? (i > 0 ? chain[i - 1]!.pid : link.pid)
      return {kind: 'pane', agentPid, server: ref.server, pane: ref.pane}
    }
  }
  return {kind: 'none'}
}

export interface HookOutcome {
  recorded: boolean
  id: string | null
  reason: string
  /** The recorded state may need the user (waiting, or a turn ended): worth a notification check. */
  mayNeedYou?: boolean
}

const mayNeedYou = (status: HookStatus) => status.state === 'waiting' || (status.state === 'idle' && status.turnEnded)

/**
 * Record what the agent's hook reported, on the session the hook runs in (found by process ancestry,
 * never by an environment variable or token). Exits quietly when the hook runs outside tmux.
 */
export async function recordHook(agent: string, payload: string, env: Env, startPid: number = process.ppid): Promise<HookOutcome> {
  const parsed = parseHookPayload(agent, payload)
  if (parsed === null) return {recorded: false, id: null, reason: 'event carries no state'}
  // Where the agent sends no time of its own, the kernel's start time of the process it ran for this
  // event orders the reports: hooks that run at once (Claude's async hooks) may finish in any order.
  const report = parsed.sentAt === null ? {...parsed, sentAt: hookStartedAt(startPid)} : parsed
  return applyReport(agent, report, ancestry(startPid, readStat), env)
}

/**
 * Record a report on the session whose process ancestry `chain` (nearest first, pid and start time from
 * /proc) leads to: a recorded session's process, or an agent in a tmux pane. Shared by `pk hook` and by
 * the spool, which takes events without starting node and is folded in when someone reads.
 */
export async function applyReport(agent: string, report: HookReport, chain: {pid: number; startTime: number}[], env: Env): Promise<HookOutcome> {
  const {view} = readView()
  const {presets} = await loadConfig(process.cwd(), env)
  let scan = readRecords(openStateDirForReading(env))
  let target = findHookTarget({chain, view, records: scan.records, panesByPid: new Map(), argv: readCmdline, presets, agent})
  if (target.kind === 'none') {
    // Not a recorded session: look for a tmux pane on the way up (one list-panes per server), among
    // panes the kernel says are their server's children.
    const {servers} = await new ServerScan(env, HOOK_TMUX_DEADLINE_MS).settle()
    const panesByPid = new Map<number, {server: ServerListing; pane: Pane}>()
    for (const server of servers) {
      if (server.status !== 'ok' || !server.verified) continue
      for (const pane of server.panes) if (!pane.dead && readStat(pane.panePid)?.ppid === server.serverPid) panesByPid.set(pane.panePid, {server, pane})
    }
    target = findHookTarget({chain, view, records: scan.records, panesByPid, argv: readCmdline, presets, agent})
  }
  if (target.kind === 'none') return {recorded: false, id: null, reason: 'no tmux pane in the hook process ancestry; nothing recorded'}

  const state = openStateDirForWriting(env)
  const now = new Date()
  return withWriteAccess(state, () => {
    // Read again under the lock, so two hooks firing at once do not lose each other's update.
    scan = readRecords(state)
    if (target.kind === 'record') {
      const text = readRegularFile(target.stored.file)
      const current = parseRecordText(target.stored.file, text)
      if (!isStored(current)) return {recorded: false, id: null, reason: 'the record changed under us and is no longer valid'}
      const status = nextStatus(current.record.status, report, now)
      if (status === null) return {recorded: false, id: sessionIdOf(current.record.identity), reason: 'an older or repeated report; the newer state stands'}
      const updated: SessionRecord = {...current.record, agent: current.record.agent ?? agent, status, conversationId: report.conversationId ?? current.record.conversationId}
      replaceRecord(current.file, updated)
      return {recorded: true, id: sessionIdOf(updated.identity), reason: `updated ${current.file}`, mayNeedYou: mayNeedYou(status)}
    }
    if (target.kind !== 'pane') return {recorded: false, id: null, reason: 'unreachable'}
    const stat = readStat(target.agentPid)
    if (!stat) return {recorded: false, id: null, reason: 'the agent process is gone'}
    const identity: ProcessIdentity = identityFromStat(view, stat)
    const existing = recordOf(scan.records, identity)
    if (existing) {
      const status = nextStatus(existing.record.status, report, now)
      if (status === null) return {recorded: false, id: sessionIdOf(identity), reason: 'an older or repeated report; the newer state stands'}
      replaceRecord(existing.file, {...existing.record, status, conversationId: report.conversationId ?? existing.record.conversationId})
      return {recorded: true, id: sessionIdOf(identity), reason: `updated ${existing.file}`, mayNeedYou: mayNeedYou(status)}
    }
    const status = nextStatus(null, report, now)!
    const record: SessionRecord = {
      version: RECORD_VERSION,
      identity,
      tmux: {socket: target.server.socket, paneId: target.pane.paneId, sessionId: target.pane.sessionId, serverPid: target.pane.serverPid},
      cwd: readCwd(identity.pid) ?? '/',
      argv: readCmdline(identity.pid) ?? [],
      agent,
      label: null,
      createdAt: new Date().toISOString(),
      startedAt: startTimeToDate(identity.startTime)?.toISOString() ?? null,
      conversationId: report.conversationId,
      status,
    }
    const file = createRecord(state, record)
    return {recorded: true, id: sessionIdOf(identity), reason: `recorded ${file}`, mayNeedYou: mayNeedYou(status)}
  })
}

/**
 * A hook must never break the agent: its own errors go to hook.log in the state directory, but only
 * from a pk that may write there (a refused writer writes nothing at all), and never into a FIFO or
 * through a link.
 */
export function logHookError(env: Env, agent: string, error: unknown): void {
  try {
    const state = openStateDirForReading(env)
    if (!state || !mayWrite(state)) return
    appendRegularFile(join(state.root, 'hook.log'), `${new Date().toISOString()} ${agent}: ${error instanceof Error ? error.message : String(error)}\n`)
  } catch {
    // nowhere safe to log: stay silent rather than disturb the agent
  }
}
