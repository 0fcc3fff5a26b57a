import {Args, Flags} from '@oclif/core'

import type {Outcome} from '../lib/model/errors.js'
import {JSON_SCHEMA_VERSION, PkCommand} from '../command-base.js'
import {readLogs} from '../lib/verbs/lifecycle.js'
import {pipeHasReader} from '../lib/proc/reader.js'
import {out} from '../output.js'

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
    const {ctx} = this
    const {args, flags} = await this.parse(Logs)
    const controller = new AbortController()
    process.once('SIGINT', () => controller.abort())
    process.once('SIGTERM', () => controller.abort())
    const collected: string[] = []
    const emit = (lines: string[]) => {
      if (flags.json && !flags.follow) collected.push(...lines)
      else if (flags.json) for (const line of lines) out(JSON.stringify({line}) + '\n')
      else if (lines.length > 0) out(lines.join('\n') + '\n')
    }
    // Colours as the pane had them: reset at the end, so the terminal is left as it was.
    if (flags.color && !flags.json) process.once('beforeExit', () => out('\u001b[0m'))
    const result = await readLogs(args.id, ctx, {
      lines: flags.lines,
      color: flags.color,
      follow: flags.follow,
      signal: controller.signal,
      emit,
      wanted: () => pipeHasReader(1) !== false,
    })
    if (flags.json && !flags.follow) this.printJson({schema: JSON_SCHEMA_VERSION, id: result.id, dead: result.dead, lines: collected})
  }
}
