import {HostConfig} from './config.js'
import {isListedByDefault, sortRows} from './correlate.js'
import {FleetRow, listHosts} from './fleet.js'
import {LsOptions, printListing} from './ls-run.js'
import {collectSessions} from './sessions.js'

/** `pk ls --fleet`: this machine and every host at once, merged; each host stays the authority on its rows. */
export async function runFleetLs(hosts: HostConfig[], opts: LsOptions): Promise<void> {
  const [local, remote] = await Promise.all([collectSessions(process.env), listHosts(hosts, opts.all)])
  const localRows: FleetRow[] = local.rows.filter((row) => opts.all || isListedByDefault(row)).map((row) => ({...row, host: null}))
  const rows = sortRows([...localRows, ...remote.rows]) as FleetRow[]
  printListing(rows, [...local.problems, ...remote.problems], opts)
}
