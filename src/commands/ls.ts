import {Flags} from '@oclif/core'

import {JSON_SCHEMA_VERSION, PkCommand} from '../command-base.js'
import {SessionRow} from '../lib/correlate.js'
import {renderTable, wantColour} from '../lib/render.js'
import {collectSessions} from '../lib/sessions.js'

export default class Ls extends PkCommand {
  static override summary = 'List agent sessions, the ones waiting on you first.'
  static override description = `Pairs tmux panes with pk's records by process identity (boot, pid namespace, pid, start time).
Agents started by hand in any tmux pane are listed too. --all adds every other pane and exited records.`
  static override examples = ['<%= config.bin %> ls', '<%= config.bin %> ls --all', '<%= config.bin %> ls --json | jq -r \'.sessions[].id\'']
  static override flags = {
    json: Flags.boolean({description: 'print {schema, sessions, problems} as JSON'}),
    all: Flags.boolean({char: 'a', description: 'also list plain panes and exited records'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Ls)
    const listing = await collectSessions(process.env)
    const rows = listing.rows.filter((row) => flags.all || isShownByDefault(row))
    if (flags.json) {
      this.printJson({schema: JSON_SCHEMA_VERSION, sessions: rows, problems: listing.problems})
      return
    }
    if (rows.length > 0) {
      process.stdout.write(renderTable(rows, {colour: wantColour(process.stdout, process.env), now: Date.now(), home: process.env.HOME}))
    } else if (process.stdout.isTTY) {
      process.stderr.write(`no agent sessions${flags.all ? '' : ' (pk ls --all shows every pane)'}; start one with: pk bg shell\n`)
    }
    for (const problem of listing.problems) process.stderr.write(`pk: ${problem.code}: ${problem.message}\n`)
  }
}

function isShownByDefault(row: SessionRow): boolean {
  return row.kind !== 'pane' && row.state !== 'exited'
}
