import {recognizeAgent} from '../agents/presets.js'
import {SessionRow} from '../model/contract.js'
import {ancestry, servesSessions} from '../proc/ancestry.js'
import {ProcessIdentity, sessionIdOf} from '../proc/identity.js'
import {processSource, readView} from '../proc/source.js'
import {View} from '../proc/view.js'
import {readRecords} from '../registry/records.js'
import {Context} from '../config/context.js'
import {collectSessions} from './sessions.js'

/**
 * Which session a process runs under (issue 65): the nearest of it and its ancestors that is a session's
 * own process, by pid and start time within this boot and pid namespace: a kernel fact, never a name, a
 * token or an argument the caller could choose. `pk bg` run by an agent records that agent's session as
 * the new one's parent; `pk mcp` knows its caller so.
 */

export interface Link {
  pid: number
  startTime: number
  /** A process that serves several sessions (Codex's app-server daemon): it, and anything above it, names none. */
  shared?: boolean
  /** Its command line, where read (whether an agent runs there is what makes a listing worth its cost). */
  argv?: string[] | null
}

const identityOf = (view: Pick<View, 'bootId' | 'pidNs'>, link: Link): ProcessIdentity => ({
  bootId: view.bootId,
  pidNs: view.pidNs,
  pid: link.pid,
  startTime: link.startTime,
})

/**
 * Pure: the nearest link of `chain` that is a live session's process (its id is worked out from the
 * link's identity, so a pid reused by another process is another id). A row two records claim (a
 * conflict) is nobody's: pk refuses rather than guesses.
 */
export function sessionOfChain(chain: readonly Link[], view: Pick<View, 'bootId' | 'pidNs'>, rows: readonly SessionRow[]): SessionRow | null {
  for (const link of chain) {
    if (link.shared === true) return null
    const id = sessionIdOf(identityOf(view, link))
    const row = rows.find((r) => r.id === id && r.pid === link.pid && r.kind !== 'pane')
    if (row !== undefined) return row.conflict || row.state === 'exited' ? null : row
  }
  return null
}

/** Pure: the nearest link that exactly one record names (a process pk started), by the same identity. */
export function recordedOfChain(chain: readonly Link[], view: Pick<View, 'bootId' | 'pidNs'>, ids: readonly string[]): string | null {
  for (const link of chain) {
    if (link.shared === true) return null
    const id = sessionIdOf(identityOf(view, link))
    const claims = ids.filter((x) => x === id).length
    if (claims === 1) return id
    if (claims > 1) return null
  }
  return null
}

/** This process and its ancestors, nearest first, as the kernel has them now, each marked when it serves several sessions. */
export function ownChain(pid = process.pid): Link[] {
  const table = processSource().table()
  return ancestry(pid, (p) => table.stat(p)).map((link) => {
    const argv = table.argv(link.pid)
    return {...link, argv, shared: servesSessions(argv)}
  })
}

/**
 * The id of the session this pk runs under, or null (outside every session, or where the view of the
 * processes cannot be trusted). Records first (no tmux call: an ancestor is alive by definition, and its
 * identity names the record); an agent pk did not start (found in a pane) only inside tmux, through a
 * listing.
 */
export async function parentSession(ctx: Context): Promise<string | null> {
  const {view, measurement} = readView()
  if (!measurement.ok) return null
  const chain = ownChain()
  const scan = readRecords(ctx.readState())
  const recorded = recordedOfChain(
    chain,
    view,
    scan.records.map((r) => sessionIdOf(r.record.identity)),
  )
  if (recorded !== null) return recorded
  // An agent started by hand in a pane is a session only through a listing (tmux's panes): worth its cost
  // only inside tmux with an agent among the ancestors. (TMUX and the command lines say only whether to
  // look: who the caller is, the kernel says.)
  const {presets} = await ctx.config()
  if (!ctx.env.TMUX || !chain.some((link) => link.argv != null && recognizeAgent(link.argv, presets) !== null)) return null
  return sessionOfChain(chain, view, (await collectSessions(ctx)).rows)?.id ?? null
}
