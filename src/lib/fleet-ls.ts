import {HostConfig} from './config.js'
import {isListedByDefault, sortRows} from './correlate.js'
import {FleetRow, listHosts} from './fleet.js'
import {LsOptions} from './ls-run.js'
import {renderTable, wantColour} from './render.js'
import {collectSessions} from './sessions.js'
import {shortSummary} from './watch.js'

/** `pk ls --fleet`: this machine and every host at once, merged; each host stays the authority on its rows. */
export async function runFleetLs(hosts: HostConfig[], opts: LsOptions): Promise<void> {
  const [local, remote] = await Promise.all([collectSessions(process.env), listHosts(hosts, opts.all)])
  const localRows: FleetRow[] = local.rows.filter((row) => opts.all || isListedByDefault(row)).map((row) => ({...row, host: null}))
  const rows = sortRows([...localRows, ...remote.rows]) as FleetRow[]
  const problems = [...local.problems, ...remote.problems]
  if (opts.format === 'short') {
    process.stdout.write(shortSummary(rows, opts.color) + '\n')
  } else if (opts.json) {
    process.stdout.write(JSON.stringify({schema: 1, sessions: rows, problems}, null, 2) + '\n')
  } else {
    if (rows.length > 0) process.stdout.write(renderTable(rows, {colour: wantColour(process.stdout, process.env), now: Date.now(), home: process.env.HOME}))
    for (const problem of problems) process.stderr.write(`pk: ${problem.code}: ${problem.message}\n`)
  }
}
