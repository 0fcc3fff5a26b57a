import {Flags} from '@oclif/core'

import {notify} from '../bodies/notify.js'
import type {Outcome} from '../lib/model/errors.js'
import {PkCommand} from '../command-base.js'

export default class Notify extends PkCommand {
  static override summary = 'Tell the user about every session that needs them while nobody is looking, once per event.'
  static override description = `pk notices on its own: the hook path (through this command, detached), pk ls --watch and the dashboard
call it when a session starts waiting or finishes a turn with no client attached. Each event is told once in
all, whoever notices it. Channels come from the notify key of your config (default: a tmux message on every
attached client, and notify-send when there is a display). --test sends a sample through every channel.`
  static override examples = ['<%= config.bin %> notify --test', '<%= config.bin %> notify']
  static override flags = {
    test: Flags.boolean({description: 'send a sample through every configured channel and report each result'}),
    check: Flags.string({description: 'only this session (what the hook path runs)', hidden: true}),
    fold: Flags.boolean({description: 'apply pending hook events first, then tell (what the sh hook runs)', hidden: true}),
    observe: Flags.string({description: 'an observer hands in what a screen showed (what watchers run)', hidden: true}),
    json: Flags.boolean({description: 'print the results as JSON'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {flags} = await this.parse(Notify)
    return notify(this.ctx, {test: Boolean(flags.test), check: flags.check, fold: Boolean(flags.fold), observe: flags.observe, json: Boolean(flags.json)})
  }
}
