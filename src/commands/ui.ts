import type {Outcome} from '../lib/model/errors.js'
import {PkCommand} from '../command-base.js'
import {KEYS} from '../lib/ui/view.js'
import {listSessions} from '../lib/listing/listing.js'
import {LS_DEFAULTS, presentListing} from '../lib/present/listing.js'
import {terminal, write} from '../invocation/output.js'

export default class Ui extends PkCommand {
  static override summary = 'The dashboard: every session at a glance; Enter attaches (bare `pk` on a terminal opens it).'
  static override description = `Refreshes by itself every 1.5 s; Enter attaches with the same checks as pk attach. When stdout is not a
terminal it prints what pk ls prints. Keys:
${KEYS.map(([key, what]) => `  ${key.padEnd(12)} ${what}`).join('\n')}`
  static override examples = ['<%= config.bin %> ui', '<%= config.bin %>']

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    await this.parse(Ui)
    if (!process.stdout.isTTY || !process.stdin.isTTY) {
      // Exactly what pk ls prints, problems on stderr included.
      const {rows, problems} = await listSessions({all: false}, ctx)
      write(presentListing(rows, problems, LS_DEFAULTS, terminal()))
      return
    }
    const {runDashboard} = await import('../lib/ui/app.js')
    await runDashboard(ctx, {stdin: process.stdin, stdout: process.stdout})
  }
}
