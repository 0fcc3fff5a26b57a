import {Args, Flags} from '@oclif/core'

import type {Outcome} from '../lib/model/errors.js'
import {PkCommand} from '../command-base.js'
import {attachCommand, runAttach} from '../lib/verbs/attach-run.js'
import {shellQuote} from '../lib/model/shell.js'
import {out} from '../invocation/output.js'

export default class Attach extends PkCommand {
  static override summary = 'Attach to (or, inside tmux, switch to) the verified pane of a session.'
  static override description = `ID is a full id or a unique prefix from pk ls. The identity is checked again just before acting.
Outside tmux: attaches a client (needs a terminal). Inside tmux on the same server: switches your client.
Inside tmux on another server: opens a popup with a nested client; detaching closes it and you are back.
HOST/ID (from pk ls --fleet): runs ssh -t to that host's pk attach ID, which verifies there.`
  static override examples = ['<%= config.bin %> attach 3f9a', '<%= config.bin %> attach 3f9a --print', '<%= config.bin %> attach box/3f9a']
  static override args = {
    id: Args.string({description: 'session id or unique prefix, or HOST/ID', required: true}),
  }
  static override flags = {
    print: Flags.boolean({description: 'print the tmux (or ssh) command instead of running it'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    const {args, flags} = await this.parse(Attach)
    const {splitFleetId} = await import('../lib/fleet/fleet.js')
    const {host, id} = splitFleetId(args.id)
    const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY)
    if (host === null) {
      if (flags.print) out((await attachCommand(args.id, ctx)) + '\n')
      else return {childExit: await runAttach(args.id, ctx, terminal)}
      return
    }
    const {remoteAttachCommand, runRemoteAttach} = await import('../lib/verbs/attach-run.js')
    if (flags.print) out((await remoteAttachCommand(host, id, ctx)).map(shellQuote).join(' ') + '\n')
    else return {childExit: await runRemoteAttach(host, id, ctx, terminal)}
  }
}
