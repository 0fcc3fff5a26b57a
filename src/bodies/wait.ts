import {Context} from '../lib/config/context.js'
import {PkError} from '../lib/model/errors.js'
import {waitForStates} from '../lib/listing/watch.js'
import {out} from '../output.js'

export interface WaitInput {
  ids: string[]
  for: 'waiting' | 'idle' | 'exited' | undefined
  any: boolean
  /** Seconds, or none. */
  timeout: number | undefined
}

/** `pk wait ID...` once its words are parsed: by the oclif command and the fast path alike. */
export async function wait(ctx: Context, input: WaitInput): Promise<void> {
  const bad = input.ids.find((id) => id.startsWith('-'))
  if (bad !== undefined) throw new PkError('bad-flags', `unknown flag ${bad} (pk wait --help)`)
  const done = await waitForStates({
    ctx,
    idArgs: input.ids,
    target: input.for ?? 'attention',
    mode: input.any ? 'any' : 'all',
    timeoutMs: input.timeout === undefined ? null : input.timeout * 1000,
    intervalMs: 500,
  })
  if (input.ids.length > 1) out(done.map((id) => id + '\n').join(''))
}
