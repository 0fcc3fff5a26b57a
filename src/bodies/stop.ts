import {Context} from '../lib/config/context.js'
import {JSON_SCHEMA_VERSION} from '../lib/model/contract.js'
import {describeError, Outcome} from '../lib/model/errors.js'
import {stopFailedText, stoppedText} from '../lib/present/verbs.js'
import {StopResult, stopSession} from '../lib/verbs/lifecycle.js'
import {printJson, write} from '../output.js'

export interface StopInput {
  ids: string[]
  force: boolean
  /** Seconds after SIGTERM before SIGKILL. */
  timeout: number
  json: boolean
}

/** `pk stop ID...` once its words are parsed: by the oclif command and the fast path alike. */
export async function stop(ctx: Context, input: StopInput): Promise<Outcome> {
  const stopped: StopResult[] = []
  const failed: {id: string; code: string; message: string}[] = []
  let firstFailure: unknown = null
  for (const id of input.ids) {
    try {
      const result = await stopSession(id, ctx, {force: input.force, timeoutMs: input.timeout * 1000})
      stopped.push(result)
      if (!input.json) write(stoppedText(result))
    } catch (error) {
      const {message} = describeError(error)
      const full = (error as {sessionId?: string}).sessionId ?? id
      failed.push({id: full, code: (error as {code?: string}).code ?? 'failure', message})
      if (!input.json) write(stopFailedText(full, message))
      firstFailure ??= error
    }
  }
  if (input.json) printJson({schema: JSON_SCHEMA_VERSION, stopped, failed})
  return firstFailure === null ? 'ok' : {firstFailure}
}
