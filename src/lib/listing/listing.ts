import {HostConfig} from '../config/config.js'
import {isListedByDefault, sortRows} from './pairing.js'
import {SessionRow} from '../model/contract.js'
import {Problem} from '../model/contract.js'

import {collectSessions} from './sessions.js'
import {ServerScan} from '../tmux/servers.js'
import type {StoredRecord} from '../registry/records.js'
import {Context} from '../config/context.js'

/**
 * `pk ls` as data: this machine's sessions (all, or those listed by default) and, when hosts are given,
 * theirs, merged; each host stays the authority on its rows (ids `HOST/ID`, `host` set).
 */
export async function listSessions(
  opts: {all: boolean; hosts?: HostConfig[]; scan?: ServerScan; changes?: boolean},
  ctx: Context,
): Promise<{rows: SessionRow[]; problems: Problem[]}> {
  const wanted = (row: SessionRow) => opts.all || isListedByDefault(row)
  if (!opts.hosts || opts.hosts.length === 0) {
    const local = await collectSessions(ctx, {scan: opts.scan})
    const rows = local.rows.filter(wanted)
    return {rows: opts.changes ? await withChanges(rows, local.snapshot.records, ctx) : rows, problems: local.problems}
  }
  const {listHosts} = await import('../fleet/fleet.js')
  const [local, remote] = await Promise.all([collectSessions(ctx, {scan: opts.scan}), listHosts(opts.hosts, opts.all)])
  const mine = local.rows.filter(wanted)
  const rows = sortRows([...(opts.changes ? await withChanges(mine, local.snapshot.records, ctx) : mine).map((row) => ({...row, host: null})), ...remote.rows])
  return {rows, problems: [...local.problems, ...remote.problems]}
}

/** pk ls --changes: each row with what its session changed since its base (git work only when asked). */
async function withChanges(rows: SessionRow[], records: StoredRecord[], ctx: Context): Promise<SessionRow[]> {
  const byFile = new Map(records.map((r) => [r.file, r.record]))
  const baseOf = (row: SessionRow) => (row.record === null ? null : (byFile.get(row.record)?.base ?? null))
  const {baseKey, summarizeAll} = await import('../worktree/changes.js')
  const bases = rows.map(baseOf).filter((b): b is NonNullable<typeof b> => b !== null)
  const summaries = bases.length === 0 ? new Map() : await summarizeAll(bases, ctx.env)
  return rows.map((row) => {
    const base = baseOf(row)
    return {...row, changes: base === null ? null : (summaries.get(baseKey(base)) ?? null)}
  })
}
