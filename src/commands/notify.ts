import type {Outcome} from '../lib/model/errors.js'
import {oclifArgs, oclifFlags, oclifStrict, PkCommand} from '../command-base.js'
import {notifyCommand} from '../descriptors/notify.js'

export default class Notify extends PkCommand {
  static override summary = 'Tell the user about every session that needs them while nobody is looking, once per event.'
  static override description = `pk notices on its own: the hook path (through this command, detached), pk ls --watch and the dashboard
call it when a session starts waiting or finishes a turn with no client attached. Each event is told once in
all, whoever notices it. Channels come from the notify key of your config (default: a tmux message on every
attached client, and notify-send when there is a display). --test sends a sample through every channel.`
  static override examples = ['<%= config.bin %> notify --test', '<%= config.bin %> notify']
  static override strict = oclifStrict(notifyCommand.spec)
  static override args = oclifArgs(notifyCommand.spec)
  static override flags = oclifFlags(notifyCommand.spec)

  protected async execute(): Promise<Outcome | void> {
    return notifyCommand.run(this.ctx, notifyCommand.input((await this.parseBy(notifyCommand)).parsed))
  }
}
