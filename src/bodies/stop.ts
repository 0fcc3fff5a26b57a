import {Context} from '../lib/config/context.js'
import {schemaHead} from '../lib/model/contract.js'
import {describeError, Outcome, PkError} from '../lib/model/errors.js'
import {stopFailedText, stoppedText} from '../lib/present/verbs.js'
import {StopResult, stopSession} from '../lib/verbs/lifecycle.js'
import {printJson, write} from '../invocation/output.js'

export interface StopInput {
  ids: string[]
  /** Every live session pk ls lists (with the filters), instead of ids. */
  all: boolean
  /** With `all`: pk ls's filters (--state as given, comma-separated). */
  filters: {state: string | undefined; attention: boolean; agent: string | undefined}
  force: boolean
  /** Seconds after SIGTERM before SIGKILL. */
  timeout: number
  json: boolean
}

/** `pk stop ID...` once its words are parsed: by the oclif command and the fast path alike. */
export async function stop(ctx: Context, input: StopInput): Promise<Outcome> {
  const {filters} = input
  if (input.all && input.ids.length > 0) throw new PkError('bad-flags', 'pk stop takes ids or --all (with the ls filters), not both')
  if (!input.all && input.ids.length === 0) throw new PkError('bad-flags', 'pk stop needs session ids, or --all (pk stop --all --agent claude)')
  if (!input.all && (filters.state !== undefined || filters.agent !== undefined || filters.attention))
    throw new PkError('bad-flags', '--state, --agent and --attention go with --all')
  const ids = input.all ? await liveIds(ctx, filters) : input.ids
  const stopped: StopResult[] = []
  const exited: string[] = []
  const failed: {id: string; code: string; message: string}[] = []
  let firstFailure: unknown = null
  for (const id of ids) {
    try {
      const result = await stopSession(id, ctx, {force: input.force, timeoutMs: input.timeout * 1000})
      stopped.push(result)
      if (!input.json) write(stoppedText(result))
    } catch (error) {
      // Stopping what has ended already is done, not a failure: a cleanup needs no `|| true`.
      if (error instanceof PkError && (error.code === 'exited' || error.code === 'gone')) {
        const full = (error as {sessionId?: string}).sessionId ?? id
        exited.push(full)
        if (!input.json) write({stdout: `${full} had exited already\n`, stderr: ''})
        continue
      }
      const {message} = describeError(error)
      const full = (error as {sessionId?: string}).sessionId ?? id
      failed.push({id: full, code: (error as {code?: string}).code ?? 'failure', message})
      if (!input.json) write(stopFailedText(full, message))
      firstFailure ??= error
    }
  }
  if (input.json) printJson({...schemaHead('stop'), stopped, exited, failed})
  return firstFailure === null ? 'ok' : {firstFailure}
}

/** `pk stop --all`: the live sessions pk ls lists by default, with its filters. */
async function liveIds(ctx: Context, filters: StopInput['filters']): Promise<string[]> {
  const [{collectSessions}, {isListedByDefault}, {filterRows}, {checkLsOptions, parseStates}] = await Promise.all([
    import('../lib/listing/sessions.js'),
    import('../lib/listing/pairing.js'),
    import('../lib/present/listing.js'),
    import('../lib/present/ls-options.js'),
  ])
  const states = parseStates(filters.state)
  checkLsOptions({json: false, format: 'table', color: false, states})
  const {rows} = await collectSessions(ctx)
  return filterRows(rows.filter(isListedByDefault), {states, attention: filters.attention, agent: filters.agent ?? null})
    .filter((r) => r.state !== 'exited')
    .map((r) => r.id)
}
