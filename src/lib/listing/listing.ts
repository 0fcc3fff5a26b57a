import {HostConfig} from '../config/config.js'
import {isListedByDefault, sortRows} from './pairing.js'
import {SessionRow} from '../model/contract.js'
import {Problem} from '../model/contract.js'

import {collectSessions} from './sessions.js'
import {ServerScan} from '../tmux/servers.js'
import {Context} from '../config/context.js'

/**
 * `pk ls` as data: this machine's sessions (all, or those listed by default) and, when hosts are given,
 * theirs, merged; each host stays the authority on its rows (ids `HOST/ID`, `host` set).
 */
export async function listSessions(
  opts: {all: boolean; hosts?: HostConfig[]; scan?: ServerScan},
  ctx: Context,
): Promise<{rows: SessionRow[]; problems: Problem[]}> {
  const wanted = (row: SessionRow) => opts.all || isListedByDefault(row)
  if (!opts.hosts || opts.hosts.length === 0) {
    const local = await collectSessions(ctx, {scan: opts.scan})
    return {rows: local.rows.filter(wanted), problems: local.problems}
  }
  const {listHosts} = await import('../fleet/fleet.js')
  const [local, remote] = await Promise.all([collectSessions(ctx, {scan: opts.scan}), listHosts(opts.hosts, opts.all)])
  const rows = sortRows([...local.rows.filter(wanted).map((row) => ({...row, host: null})), ...remote.rows])
  return {rows, problems: [...local.problems, ...remote.problems]}
}
