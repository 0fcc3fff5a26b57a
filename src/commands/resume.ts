import type {Outcome} from '../lib/model/errors.js'
import {oclifArgs, oclifFlags, oclifStrict, PkCommand} from '../command-base.js'
import {resumeCommand} from '../descriptors/resume.js'

export default class Resume extends PkCommand {
  static override summary = "Start an exited session's conversation again, as a new session; print its id."
  static override description = `Runs the preset's resume command (claude --resume ID, codex resume ID, pi --session ID, ...) in the same
directory and under the same label. The new record names the old session, and pk ls no longer offers the old
one for resuming. Exit 4 when a live session already holds the conversation (or this one still runs), 3 for
no such session, 1 when there is nothing to resume (no conversation id was reported).`
  static override examples = ['<%= config.bin %> resume 3f9a', '<%= config.bin %> resume 3f9a --attach', '<%= config.bin %> resume 3f9a --json']
  static override strict = oclifStrict(resumeCommand.spec)
  static override args = oclifArgs(resumeCommand.spec)
  static override flags = oclifFlags(resumeCommand.spec)

  protected async execute(): Promise<Outcome | void> {
    return resumeCommand.run(this.ctx, resumeCommand.input((await this.parseBy(resumeCommand)).parsed))
  }
}
