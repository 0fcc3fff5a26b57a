import {Args, Flags} from '@oclif/core'

import type {Outcome} from '../lib/model/errors.js'
import {logs} from '../bodies/logs.js'
import {PkCommand} from '../command-base.js'

export default class Logs extends PkCommand {
  static override summary = "Print what a session's pane shows and its scrollback, also a dead pane's."
  static override description = `The last --lines lines (default 200) of the pane's screen and history, as plain text (--color keeps the
escape codes). Works for the dead pane an exited session left. --follow keeps printing new lines until the
session ends (exit 0) or Ctrl-C. With --json: {schema, id, dead, lines}; with --follow --json, one {"line"} per
line (NDJSON).`
  static override examples = ['<%= config.bin %> logs 3f9a', '<%= config.bin %> logs 3f9a --lines 50', '<%= config.bin %> logs 3f9a --follow']
  static override args = {id: Args.string({description: 'session id or unique prefix', required: true})}
  static override flags = {
    lines: Flags.integer({char: 'n', description: 'how many lines', default: 200, min: 1}),
    follow: Flags.boolean({char: 'f', description: 'keep printing new lines until the session ends'}),
    color: Flags.boolean({description: 'keep colours and other escape codes'}),
    json: Flags.boolean({description: 'print as JSON'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {args, flags} = await this.parse(Logs)
    return logs(this.ctx, {id: args.id, lines: flags.lines, follow: flags.follow, color: flags.color, json: flags.json})
  }
}
