import {Args, Flags} from '@oclif/core'

import {JSON_SCHEMA_VERSION, PkCommand} from '../command-base.js'
import {describeError, Outcome} from '../lib/model/errors.js'
import {StopResult, stopSession} from '../lib/verbs/lifecycle.js'
import {write} from '../output.js'
import {stopFailedText, stoppedText} from '../lib/present/verbs.js'

export default class Stop extends PkCommand {
  static override summary = "End sessions' agents: SIGTERM, then SIGKILL after a timeout. The records stay, so conversations can be resumed."
  static override description = `Each ID is verified right before it is signalled (exit 3 no such session, 4 conflicting, 5 unverifiable).
SIGTERM goes to the agent's process group (how agents end cleanly when their terminal closes); after --timeout
seconds (default 10), or at once with --force, SIGKILL. Waits until the process is gone. The pane closes with it;
the record stays as exited (reason: stopped), so pk resume can continue the conversation. With several ids, every
one is tried; the exit code is the first failure's.`
  static override examples = ['<%= config.bin %> stop 3f9a', '<%= config.bin %> stop 3f9a a70e --timeout 30', '<%= config.bin %> stop 3f9a --force --json']
  static override strict = false
  static override args = {id: Args.string({description: 'session id or unique prefix (several allowed)', required: true})}
  static override flags = {
    force: Flags.boolean({description: 'SIGKILL at once'}),
    timeout: Flags.integer({description: 'seconds to wait after SIGTERM before SIGKILL', default: 10, min: 0}),
    json: Flags.boolean({description: 'print {schema, stopped, failed} as JSON'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    const {argv, flags} = await this.parse(Stop)
    const stopped: StopResult[] = []
    const failed: {id: string; code: string; message: string}[] = []
    let firstFailure: unknown = null
    for (const id of argv.map(String)) {
      try {
        const result = await stopSession(id, ctx, {force: flags.force, timeoutMs: flags.timeout * 1000})
        stopped.push(result)
        if (!flags.json) write(stoppedText(result))
      } catch (error) {
        const {message} = describeError(error)
        const full = (error as {sessionId?: string}).sessionId ?? id
        failed.push({id: full, code: (error as {code?: string}).code ?? 'failure', message})
        if (!flags.json) write(stopFailedText(full, message))
        firstFailure ??= error
      }
    }
    if (flags.json) this.printJson({schema: JSON_SCHEMA_VERSION, stopped, failed})
    return firstFailure === null ? 'ok' : {firstFailure}
  }
}
