import {Context} from '../lib/config/context.js'
import {schemaHead} from '../lib/model/contract.js'
import {PkError} from '../lib/model/errors.js'
import {sendText} from '../lib/verbs/send.js'
import {readTextStdin} from '../invocation/input.js'
import {printJson} from '../invocation/output.js'

export interface SendInput {
  id: string
  /** The text as words (joined with spaces). */
  words: string[]
  stdin: boolean
  enter: boolean
  enterOnly: boolean
  whenIdle: boolean
  /** Seconds to wait for the agent to be ready for input. */
  timeout: number
  json: boolean
}

/** `pk send ID TEXT` once its words are parsed: by the oclif command and the fast path alike. */
export async function send(ctx: Context, input: SendInput): Promise<void> {
  if (input.stdin && input.words.length > 0) throw new PkError('bad-text', 'give the text as words or with --stdin, not both')
  if (input.enterOnly && (input.words.length > 0 || input.stdin)) throw new PkError('bad-text', '--enter-only presses Enter alone; give no text with it')
  const text = input.stdin ? await readTextStdin('pk send') : input.words.join(' ')
  // Enter alone confirms whatever is highlighted in a dialog: only when asked for by name.
  if (text === '' && !input.enterOnly) throw new PkError('bad-text', 'no text to send (pk send ID TEXT); --enter-only presses Enter alone')
  const sent = await sendText(input.id, ctx, text, {enter: input.enter || input.enterOnly, timeoutMs: input.timeout * 1000, whenIdle: input.whenIdle})
  if (input.json) printJson({...schemaHead('send'), ...sent})
}
