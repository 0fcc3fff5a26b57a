import type {Outcome} from '../lib/model/errors.js'
import {oclifArgs, oclifFlags, oclifStrict, PkCommand} from '../command-base.js'
import {logsCommand} from '../descriptors/logs.js'

export default class Logs extends PkCommand {
  static override summary = "Print what a session's pane shows and its scrollback, also a dead pane's."
  static override description = `The last --lines lines (default 200) of the pane's screen and history, as plain text (--color keeps the
escape codes). Works for the dead pane an exited session left. --follow keeps printing new lines until the
session ends (exit 0) or Ctrl-C. With --json: {schema, id, dead, lines}; with --follow --json, one {"line"} per
line (NDJSON). --screen prints what the pane shows now instead (what pk serve's page draws); with --json:
{schema, id, state, screen: {cols, rows, cursorX, cursorY, dead, text}, dialog, question}, the dialog being
the permission dialog pk answer would answer (its question and choices) and question true when the session
waits on words (pk answer --text).`
  static override examples = [
    '<%= config.bin %> logs 3f9a',
    '<%= config.bin %> logs 3f9a --lines 50',
    '<%= config.bin %> logs 3f9a --follow',
    '<%= config.bin %> logs 3f9a --screen --json',
  ]
  static override strict = oclifStrict(logsCommand.spec)
  static override args = oclifArgs(logsCommand.spec)
  static override flags = oclifFlags(logsCommand.spec)

  protected async execute(): Promise<Outcome | void> {
    return logsCommand.run(this.ctx, logsCommand.input((await this.parseBy(logsCommand)).parsed))
  }
}
