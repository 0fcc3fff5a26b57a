import {AgentPreset, recognizeAgent, resumeArgv} from '../agents/presets.js'
import {Started, startSession} from './bg.js'
import {setTimeout as sleep} from 'node:timers/promises'

import {PkError} from '../model/errors.js'
import {ancestry} from '../proc/ancestry.js'
import {checkLiveness, sessionIdOf} from '../proc/identity.js'
import {View} from '../proc/view.js'
import {readRegularFile} from '../registry/files.js'
import {assertMayWrite, withWriteAccess} from '../registry/ownership.js'
import {StoredRecord, isStored, parseRecordText, recordOf, removeRecordFile, replaceRecord} from '../registry/records.js'

import {collectSessions} from '../listing/sessions.js'
import {killSession} from '../tmux/session.js'
import {Context} from '../config/context.js'

export interface Caller {
  pid: number
  startTime: number
  agent: string
  record: StoredRecord | null
}

/**
 * Pure: the agent that called `pk bg --handoff`, nearest first among our ancestors: a recorded session
 * process, or a process the presets recognise (the named agent, when one is given).
 */
export function findCaller(opts: {
  chain: {pid: number; startTime: number}[]
  view: View
  records: StoredRecord[]
  argv: (pid: number) => string[] | null
  presets: readonly AgentPreset[]
  agentName?: string
}): Caller | null {
  for (const link of opts.chain) {
    const stored = recordOf(opts.records, {...opts.view, ...link})
    const argv = opts.argv(link.pid)
    const recognised = argv ? recognizeAgent(argv, opts.presets) : null
    const agent = stored?.record.agent ?? recognised
    if (agent && (opts.agentName === undefined || agent === opts.agentName)) return {pid: link.pid, startTime: link.startTime, agent, record: stored ?? null}
  }
  return null
}

export interface HandoffResult {
  id: string
  caller: number
}

/**
 * Move the calling agent's conversation into a new tmux session: resume it there, check that the new
 * process is alive and paired by identity, and only then end the caller (SIGTERM). If any step fails
 * the caller keeps running and the error says why. One live process per conversation.
 */
export const HANDOFF_CONFIRM_MS = 15_000

/** Whether the new session, alive and paired, reported through its hook (its record has a status) in time. */
async function confirmedByHook(started: Started, ctx: Context, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const listing = await collectSessions(ctx)
    const row = listing.rows.find((r) => r.id === started.id)
    if (!row || !row.verified || row.state === 'exited') return false
    if (listing.snapshot.records.find((r) => r.file === started.file)?.record.status) return true
    if (Date.now() >= deadline) return false
    await sleep(200)
  }
}

export async function handoff(opts: {ctx: Context; conversationId?: string; agentName?: string; graceMs?: number; confirmMs?: number}): Promise<HandoffResult> {
  const {ctx} = opts
  const env = ctx.env
  const state = ctx.writeState()
  assertMayWrite(state)
  const {config} = await ctx.config()
  // One look at the world: who called (by identity, among the records it read) and who holds the conversation.
  const listing = await collectSessions(ctx)
  const {view, presets, proc} = listing.snapshot
  const caller = findCaller({
    chain: ancestry(process.ppid, proc.stat),
    view,
    records: listing.snapshot.records,
    argv: proc.argv,
    presets,
    agentName: opts.agentName,
  })
  if (!caller) throw new PkError('no-caller', 'pk bg --handoff runs from inside an agent (its /bg command); no agent process was found among its ancestors')
  const conversationId = opts.conversationId ?? caller.record?.record.conversationId ?? null
  if (!conversationId) {
    throw new PkError(
      'no-conversation',
      `no conversation id is known for this ${caller.agent} session: pass --conversation ID, or install its hooks (pk setup ${caller.agent})`,
    )
  }
  const argv = resumeArgv(caller.agent, conversationId, presets)
  if (!argv) throw new PkError('no-resume', `${caller.agent} cannot resume a conversation by id; nothing to hand off to`)

  const conversations = new Map(listing.snapshot.records.map((r) => [r.file, r.record.conversationId]))
  const holders = listing.rows.filter(
    (row) => row.pid !== caller.pid && row.state !== 'exited' && row.record !== null && row.verified && conversations.get(row.record) === conversationId,
  )
  if (holders.length > 0) {
    throw new PkError(
      'conversation-taken',
      `conversation ${conversationId} is already live in session ${holders.map((h) => h.id).join(', ')}; attach to it instead`,
    )
  }

  // What the caller was started with stays: its label and the agent's own arguments (issue #22).
  const agentArgs = caller.record?.record.agentArgs ?? []
  const started = await startSession({
    agent: undefined,
    extraArgs: [...argv, ...agentArgs],
    agentArgs,
    cwd: proc.cwd(caller.pid) ?? undefined,
    name: caller.record?.record.label ?? undefined,
    socket: config.socket,
    env,
    ctx,
    presets,
    conversationId,
    graceMs: opts.graceMs,
    resumedFrom: caller.record ? sessionIdOf(caller.record.record.identity) : undefined,
  })
  // Not a timer: the replacement must say, through its own hook, that it runs the conversation (a fresh
  // Pi whose session was never written exits after a couple of seconds instead).
  if (!(await confirmedByHook(started, ctx, opts.confirmMs ?? HANDOFF_CONFIRM_MS))) {
    await killSession(started.record.tmux.socket, started.record.tmux.sessionId)
    // It never ran the conversation: no record of it stays for restore to offer.
    await withWriteAccess(state, () => removeRecordFile(started.file)).catch(() => {})
    throw new PkError(
      'handoff-unpaired',
      `the resumed ${caller.agent} did not report that it runs conversation ${conversationId} (nothing to hand off yet? say something first); the original keeps running`,
    )
  }
  // The caller's conversation lives on in the new session: its record says so (restore and doctor then
  // leave it alone, as after pk resume).
  if (caller.record) {
    const file = caller.record.file
    await withWriteAccess(state, () => {
      const now = parseRecordText(file, readRegularFile(file))
      if (isStored(now)) replaceRecord(file, {...now.record, resumedBy: started.id})
    }).catch(() => {})
  }
  // End the caller only if it is still the very process we found (same pid and start time).
  const stillCaller = checkLiveness(view, {...view, pid: caller.pid, startTime: caller.startTime})
  if (stillCaller.alive) process.kill(caller.pid, 'SIGTERM')
  return {id: started.id, caller: caller.pid}
}
