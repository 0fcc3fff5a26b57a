import {Context} from '../lib/config/context.js'
import {schemaHead, SessionRow} from '../lib/model/contract.js'
import {PkError} from '../lib/model/errors.js'
import {waitForAnySession, waitForStates} from '../lib/listing/watch.js'
import {out, printJson} from '../invocation/output.js'

export interface WaitInput {
  ids: string[]
  /** Instead of ids: every session pk ls lists, present or started meanwhile (never implied by no ids). */
  allSessions: boolean
  for: 'waiting' | 'limited' | 'idle' | 'exited' | undefined
  any: boolean
  /** Only what comes after the wait began (the next turn's end, not the state already there). */
  next: boolean
  /** Instead of ids: the children of this session (pk wait --children ID). */
  children?: string | undefined
  /** With allSessions: only sessions of this agent. */
  agent: string | undefined
  /** Seconds, or none. */
  timeout: number | undefined
  json: boolean
}

/** `pk wait ID...` (or --all-sessions) once its words are parsed: by the oclif command and the fast path alike. */
export async function wait(ctx: Context, input: WaitInput): Promise<void> {
  const bad = input.ids.find((id) => id.startsWith('-'))
  if (bad !== undefined) throw new PkError('bad-flags', `unknown flag ${bad} (pk wait --help)`)
  // No ids is not "every session": `pk wait $(pk ls -q --agent x)` with no such session must not wait on others.
  if (input.children !== undefined && (input.allSessions || input.ids.length > 0))
    throw new PkError('bad-flags', '--children ID waits on the sessions ID started: not with ids or --all-sessions')
  if (!input.allSessions && input.ids.length === 0 && input.children === undefined)
    throw new PkError('bad-flags', 'pk wait needs session ids, or --all-sessions (every session, present and started meanwhile)')
  if (input.allSessions && input.ids.length > 0) throw new PkError('bad-flags', 'pk wait takes ids or --all-sessions, not both')
  if (input.allSessions && input.next) throw new PkError('bad-flags', '--next goes with session ids: pk wait ID --for idle --next')
  if (!input.allSessions && input.agent !== undefined)
    throw new PkError('bad-flags', '--agent goes with --all-sessions: pk wait --all-sessions --agent NAME waits on every session of it')
  const common = {ctx, target: input.for ?? 'attention', timeoutMs: input.timeout === undefined ? null : input.timeout * 1000, intervalMs: 500} as const
  const done = input.allSessions
    ? await waitForAnySession({...common, agent: input.agent ?? null})
    : await waitForStates({...common, idArgs: input.ids, mode: input.any ? 'any' : 'all', next: input.next, childrenOf: input.children})
  if (input.json) printJson({...schemaHead('wait'), sessions: done.map(reachedBy)})
  else if (input.allSessions || input.children !== undefined || input.ids.length > 1) out(done.map((r) => r.id + '\n').join(''))
}

/** Which session, and why the wait ended on it: its state, and whether (since when) it needs you. */
const reachedBy = (row: SessionRow) => ({
  id: row.id,
  agent: row.agent,
  label: row.label,
  state: row.state,
  attention: row.attention,
  attentionSince: row.attentionSince,
  exitStatus: row.exitStatus,
})
