import {oclifArgs, oclifFlags, oclifStrict, PkCommand} from '../command-base.js'
import {stopCommand} from '../descriptors/stop.js'
import type {Outcome} from '../lib/model/errors.js'

export default class Stop extends PkCommand {
  static override summary = "End sessions' agents: SIGTERM, then SIGKILL after a timeout. The records stay, so conversations can be resumed."
  static override description = `Each ID is verified right before it is signalled (exit 3 no such session, 4 conflicting, 5 unverifiable).
SIGTERM goes to the agent's process group (how agents end cleanly when their terminal closes); after --timeout
seconds (default 10), or at once with --force, SIGKILL. Waits until the process is gone. The pane closes with it;
the record stays as exited (reason: stopped), so pk resume can continue the conversation. With several ids, every
one is tried; the exit code is the first failure's. A session that has exited already is done, not a failure
(exit 0, "had exited already"; in --json under exited): a cleanup needs no || true. An unknown id is exit 3.
--all stops every live session pk ls lists, narrowed by --state, --agent and --attention.`
  static override examples = [
    '<%= config.bin %> stop 3f9a',
    '<%= config.bin %> stop 3f9a a70e --timeout 30',
    '<%= config.bin %> stop 3f9a --force --json',
    '<%= config.bin %> stop --all --agent claude',
  ]
  static override strict = oclifStrict(stopCommand.spec)
  static override args = oclifArgs(stopCommand.spec)
  static override flags = oclifFlags(stopCommand.spec)

  protected async execute(): Promise<Outcome | void> {
    return stopCommand.run(this.ctx, stopCommand.input((await this.parseBy(stopCommand)).parsed))
  }
}
