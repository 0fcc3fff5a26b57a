import {AgentPreset} from './agents/presets.js'
import {Correlation, SessionRow, correlate} from './correlate.js'
import {Problem, StoredRecord} from './registry/records.js'
import {Env, openStateDirForReading} from './registry/state-dir.js'
import {Snapshot, takeSnapshot} from './snapshot.js'
import {applyStatus, captureKey, needsCapture} from './status.js'
import {capturePanes} from './tmux/capture.js'
import {ServerScan} from './tmux/servers.js'
import {mark} from './timings.js'
import {WatchCache} from './watch-cache.js'

export interface Listing extends Correlation {
  snapshot: Snapshot
}

/**
 * Everything `pk ls` shows: one `list-panes -a` per tmux server (the socket directory's, plus any socket a
 * record names that still exists), records from the state directory, and /proc for the listed panes only.
 */
export async function collectSessions(env: Env = process.env, opts: {cache?: WatchCache; scan?: ServerScan} = {}): Promise<Listing> {
  const {cache} = opts
  // Events the agents' hooks left in the spool are folded in first (a readdir when there are none).
  const state = openStateDirForReading(env)
  const {foldSpool} = await import('./spool.js')
  if ((await foldSpool(state, env)).length > 0) cache?.records.invalidate()
  mark('spool')
  const now = Date.now()
  const carried = cache?.carry(now)
  const first = await takeSnapshot(env, {state, carried, scan: opts.scan})
  const reused = cache?.reusable(first) ?? null
  // tmux 3.3 now and then misses a pane's SIGCHLD: the process stays a zombie, the pane looks alive and
  // its exit status is unknown. A SIGCHLD to that (verified) server makes it reap; then look again, once.
  const snap = reused === null && nudgeReapers(first) ? await takeSnapshot(env, {state, carried}) : first
  const problems: Problem[] = [...snap.recordProblems]
  if (!snap.trust.trusted) problems.push({code: snap.trust.code, message: snap.trust.reason})
  if (snap.tmuxMissing) problems.push({code: 'tmux-missing', message: snap.tmuxMissing.message})
  const result = reused ?? correlate({view: snap.view, servers: snap.servers, records: snap.records, source: snap.proc, presets: snap.presets, trustRecords: snap.trust.trusted})
  if (reused === null) cache?.remember(snap, result, carried?.standing === undefined, now)
  mark('pairing')
  const rows = await withWorktrees(await withStatus(result.rows, snap.records, snap.presets))
  mark('status')
  return {snapshot: snap, rows, problems: [...problems, ...result.problems]}
}

/** Whether each session's worktree has uncommitted changes: one git call per row that has a worktree. */
async function withWorktrees(rows: SessionRow[]): Promise<SessionRow[]> {
  if (!rows.some((r) => r.worktree !== null)) return rows
  const {isDirty} = await import('./worktree.js')
  return Promise.all(rows.map(async (r) => (r.worktree === null ? r : {...r, worktree: {...r.worktree, dirty: await isDirty(r.worktree.path)}})))
}

/** One capture call per server, covering only the agent panes that need one. */
async function withStatus(rows: SessionRow[], stored: StoredRecord[], presets: readonly AgentPreset[]): Promise<SessionRow[]> {
  const now = Date.now()
  const records = new Map(stored.map((s) => [s.file, s.record]))
  const wanted = new Map<string, string[]>()
  for (const row of rows) {
    if (!needsCapture(row, row.record ? (records.get(row.record) ?? null) : null, presets, now)) continue
    wanted.set(row.tmux!.socket, [...(wanted.get(row.tmux!.socket) ?? []), row.tmux!.pane])
  }
  const captures = new Map<string, string>()
  await Promise.all(
    [...wanted].map(async ([socket, panes]) => {
      for (const [pane, screen] of await capturePanes(socket, panes).catch(() => new Map<string, string>())) captures.set(captureKey(socket, pane), screen)
    }),
  )
  return applyStatus({rows, records, captures, presets, now})
}

/** Send SIGCHLD to verified servers of ours with a recorded pane process left a zombie; whether any was. */
function nudgeReapers(snap: Snapshot): boolean {
  const servers = new Set(snap.servers.filter((s) => s.status === 'ok' && s.verified).map((s) => s.serverPid))
  let nudged = false
  for (const {record} of snap.records) {
    const stat = snap.proc.stat(record.identity.pid)
    if (stat === null || stat.state !== 'Z' || stat.startTime !== record.identity.startTime || !servers.has(stat.ppid)) continue
    try {
      process.kill(stat.ppid, 'SIGCHLD')
      nudged = true
    } catch {
      // gone meanwhile
    }
  }
  return nudged
}
