import {Context} from '../lib/config/context.js'
import {logHookError, takeHookEvent} from '../lib/events/hook.js'
import {ExitCode, PkError} from '../lib/model/errors.js'
import {readStdin} from '../invocation/input.js'
import {printJson, say} from '../invocation/output.js'

/** `pk hook AGENT [PAYLOAD]`, its words split: the agent, flags it does not take, the payload if given. */
export interface HookInput {
  agent: string | undefined
  /** Flags other than --json: a hook installed wrong, said in hook.log. */
  strayFlags: string[]
  /** The last word after the agent's name; none: standard input. */
  payload: string | undefined
  json: boolean
}

/** Pure: the words after `pk hook`, split as both ways in split them. */
export function hookInput(args: readonly string[]): HookInput {
  const flags = args.filter((a) => a.startsWith('-'))
  const [agent, ...rest] = args.filter((a) => !a.startsWith('-'))
  return {agent, strayFlags: flags.filter((f) => f !== '--json'), payload: rest.at(-1), json: flags.includes('--json')}
}

/**
 * `pk hook`, by the fast path and oclif's command alike. It never fails the agent: exit 0 and nothing on
 * stdout (but with --json, what a person runs to see what a payload does); errors go to hook.log; a
 * refusal (another pid namespace, unsafe state) is said on stderr and writes nothing. Its deadline is set
 * by bin/run.js before anything loads.
 */
export async function hook(ctx: Context, input: HookInput): Promise<void> {
  try {
    if (input.agent === undefined) throw new Error('pk hook was called without the agent name (pk hook AGENT [PAYLOAD]); run pk setup AGENT again')
    if (input.strayFlags.length > 0)
      throw new Error(`pk hook does not take ${input.strayFlags.join(' ')} (pk hook AGENT [PAYLOAD]); run pk setup ${input.agent} again`)
    const payload = input.payload ?? (await readStdin(500))
    const {report, file} = await takeHookEvent(ctx, input.agent, payload)
    if (input.json)
      printJson({
        spooled: file !== null,
        file,
        state: report?.state ?? null,
        reason:
          report === null
            ? 'event carries no state'
            : file === null
              ? 'this pk may not write the state directory'
              : 'pending; pk notify --fold applies it to the session its sender runs in, if any',
      })
  } catch (error) {
    if (error instanceof PkError && error.exitCode === ExitCode.refused) say(`pk hook: ${error.message}\n`)
    else logHookError(ctx, input.agent ?? '(no agent)', error)
    if (input.json) printJson({recorded: false, id: null, reason: error instanceof Error ? error.message : String(error)})
  }
  process.exitCode = 0
}
