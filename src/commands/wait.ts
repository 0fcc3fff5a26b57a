import {Args, Flags} from '@oclif/core'

import {PkCommand} from '../command-base.js'
import {waitForState} from '../lib/watch.js'

export default class Wait extends PkCommand {
  static override summary = 'Block until a session is waiting, idle or exited.'
  static override description = `Exit 0 when the session reaches the state, 124 on --timeout, 3 when the session disappears or
exits first (for --for exited, disappearing counts as reaching it).`
  static override examples = ['<%= config.bin %> wait 3f9a --for waiting && notify-send "claude needs you"', '<%= config.bin %> wait 3f9a --for idle --timeout 600']
  static override args = {
    id: Args.string({description: 'session id or unique prefix', required: true}),
  }
  static override flags = {
    for: Flags.option({description: 'the state to wait for', options: ['waiting', 'idle', 'exited'] as const, required: true})(),
    timeout: Flags.integer({description: 'give up after this many seconds (exit 124)', min: 0}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Wait)
    await waitForState({
      env: process.env,
      idArg: args.id,
      target: flags.for,
      timeoutMs: flags.timeout === undefined ? null : flags.timeout * 1000,
      intervalMs: 500,
    })
  }
}
