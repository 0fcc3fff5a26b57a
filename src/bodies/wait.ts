import {Context} from '../lib/config/context.js'
import {JSON_SCHEMA_VERSION, SessionRow} from '../lib/model/contract.js'
import {PkError} from '../lib/model/errors.js'
import {waitForAnySession, waitForStates} from '../lib/listing/watch.js'
import {out, printJson} from '../output.js'

export interface WaitInput {
  /** None: every session pk ls lists, present or started meanwhile. */
  ids: string[]
  for: 'waiting' | 'idle' | 'exited' | undefined
  any: boolean
  /** Only what comes after the wait began (the next turn's end, not the state already there). */
  next: boolean
  /** With no ids: only sessions of this agent. */
  agent: string | undefined
  /** Seconds, or none. */
  timeout: number | undefined
  json: boolean
}

/** `pk wait [ID...]` once its words are parsed: by the oclif command and the fast path alike. */
export async function wait(ctx: Context, input: WaitInput): Promise<void> {
  const bad = input.ids.find((id) => id.startsWith('-'))
  if (bad !== undefined) throw new PkError('bad-flags', `unknown flag ${bad} (pk wait --help)`)
  if (input.ids.length === 0 && input.next) throw new PkError('bad-flags', '--next goes with session ids: pk wait ID --for idle --next')
  if (input.ids.length > 0 && input.agent !== undefined)
    throw new PkError('bad-flags', '--agent goes with no ids: pk wait --agent NAME waits on every session of it')
  const common = {ctx, target: input.for ?? 'attention', timeoutMs: input.timeout === undefined ? null : input.timeout * 1000, intervalMs: 500} as const
  const done =
    input.ids.length === 0
      ? await waitForAnySession({...common, agent: input.agent ?? null})
      : await waitForStates({...common, idArgs: input.ids, mode: input.any ? 'any' : 'all', next: input.next})
  if (input.json) printJson({schema: JSON_SCHEMA_VERSION, sessions: done.map(reachedBy)})
  else if (input.ids.length !== 1) out(done.map((r) => r.id + '\n').join(''))
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
