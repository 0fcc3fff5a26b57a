import {Args, Flags} from '@oclif/core'

import {stop} from '../bodies/stop.js'
import {PkCommand} from '../command-base.js'
import type {Outcome} from '../lib/model/errors.js'

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
    const {argv, flags} = await this.parse(Stop)
    return stop(this.ctx, {ids: argv.map(String), force: flags.force, timeout: flags.timeout, json: flags.json})
  }
}
