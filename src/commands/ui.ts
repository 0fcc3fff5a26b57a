import {PkCommand} from '../command-base.js'
import {renderTable, wantColour} from '../lib/render.js'
import {collectSessions} from '../lib/sessions.js'

export default class Ui extends PkCommand {
  static override summary = 'The dashboard: every session at a glance; Enter attaches (bare `pk` on a terminal opens it).'
  static override description = `Keys: ↑/↓ or j/k move, Enter attaches (same checks as pk attach; detach to come back), / filters,
r refreshes, q quits. Refreshes by itself every 1.5 s. When stdout is not a terminal it prints what pk ls prints.`
  static override examples = ['<%= config.bin %> ui', '<%= config.bin %>']

  async run(): Promise<void> {
    await this.parse(Ui)
    if (!process.stdout.isTTY || !process.stdin.isTTY) {
      const {dashboardRows} = await import('../lib/ui/app.js')
      const rows = dashboardRows((await collectSessions(process.env)).rows)
      if (rows.length > 0) process.stdout.write(renderTable(rows, {colour: wantColour(process.stdout, process.env), now: Date.now(), home: process.env.HOME}))
      return
    }
    const {runDashboard} = await import('../lib/ui/app.js')
    await runDashboard(process.env)
  }
}
