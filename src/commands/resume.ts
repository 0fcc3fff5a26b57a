import {Args, Flags} from '@oclif/core'

import type {Outcome} from '../lib/model/errors.js'
import {PkCommand} from '../command-base.js'
import {resume} from '../bodies/bg.js'

export default class Resume extends PkCommand {
  static override summary = "Start an exited session's conversation again, as a new session; print its id."
  static override description = `Runs the preset's resume command (claude --resume ID, codex resume ID, pi --session ID, ...) in the same
directory and under the same label. The new record names the old session, and pk ls no longer offers the old
one for resuming. Exit 4 when a live session already holds the conversation (or this one still runs), 3 for
no such session, 1 when there is nothing to resume (no conversation id was reported).`
  static override examples = ['<%= config.bin %> resume 3f9a', '<%= config.bin %> resume 3f9a --attach', '<%= config.bin %> resume 3f9a --json']
  static override args = {id: Args.string({description: 'id or unique prefix of an exited session', required: true})}
  static override flags = {
    attach: Flags.boolean({description: 'attach to the new session right away'}),
    json: Flags.boolean({description: 'print {schema, session, resumedFrom} as JSON'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {args, flags} = await this.parse(Resume)
    return resume(this.ctx, {id: args.id, json: Boolean(flags.json), attach: Boolean(flags.attach)})
  }
}
