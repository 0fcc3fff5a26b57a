import {PaneId} from '../model/ids.js'
import {AgentPreset, resumeArgv} from '../agents/presets.js'
import {Correlation, correlate} from './pairing.js'
import {SessionRow} from '../model/contract.js'
import {Applied, applyEvents, knownOf, worldOf} from '../events/events.js'
import {readBootTime} from '../proc/reader.js'
import {SessionRecord} from '../registry/records.js'
import {Problem} from '../model/contract.js'
import {USAGE_AGENTS, UsageRules, rulesOf, sessionUsage} from '../usage/usage.js'
import {Context} from '../config/context.js'
import {Env, StateDir} from '../registry/state-dir.js'
import {Snapshot, takeSnapshot} from './snapshot.js'
import {readPending, SpoolSender} from '../events/spool.js'
import {sessionIdOf} from '../proc/identity.js'
import {View} from '../proc/view.js'
import {Disagreement, applyStatus, applyUsageAttention, captureKey, needsCapture} from './status.js'
import {OwnWord} from '../agents/own-state.js'
import {OWN_STATE_READERS} from '../agents/own-sources.js'
import {Known} from '../events/events.js'
import {capturePanes} from '../tmux/capture.js'
import {ServerScan} from '../tmux/servers.js'
import {mark} from '../cli/timings.js'
import {KeptScreen, WatchCache, screenStillShows} from './watch-cache.js'
import {environOf, machineZone, processZone} from '../proc/zone.js'
import {continuingAllowed, planContinue} from '../limits/plan.js'
import {readContinueFile} from '../limits/store.js'

export interface Listing extends Correlation {
  snapshot: Snapshot
  /**
   * Sessions whose shown state comes from pending events while more were pending than this reader read
   * (a backlog): what they show may lag what all of them say, so nobody tells of them from this listing;
   * the writer, which applies every event in order, does.
   */
  provisional: ReadonlySet<string>
  /**
   * Sessions none of whose events this reader read while more were pending than it read (a backlog): an
   * event of theirs may wait beyond what it read (under a storm, a newer turn's start pushed out by other
   * sessions' events), so the state shown may be older than theirs. pk wait takes no turn end from those
   * of them a pending event names (laggingBehind).
   */
  lagging: ReadonlySet<string>
}

/**
 * Pure: of the sessions a listing could not tell of (Listing.lagging), those a pending event may be about:
 * one whose process is in a pending event's ancestry, and every Codex session while a Codex event is
 * pending (Codex's events name their session by thread or folder, not by ancestry). Senders unknown
 * (null: too many to read): all of them.
 */
export function laggingBehind(lagging: ReadonlySet<string>, rows: readonly SessionRow[], view: View, senders: readonly SpoolSender[] | null): Set<string> {
  if (senders === null) return new Set(lagging)
  const named = new Set<string>()
  let codex = false
  for (const sender of senders) {
    if (sender.agent === 'codex') codex = true
    for (const link of sender.chain) named.add(sessionIdOf({...view, ...link}))
  }
  return new Set(rows.filter((r) => lagging.has(r.id) && (named.has(r.id) || (codex && r.agent === 'codex'))).map((r) => r.id))
}

/** The rows a listing may tell of (notify): all but the provisional ones. */
export const tellable = (listing: Listing) => (listing.provisional.size === 0 ? listing.rows : listing.rows.filter((r) => !listing.provisional.has(r.id)))

/**
 * Everything `pk ls` shows: one `list-panes -a` per tmux server (the socket directory's, plus any socket a
 * record names that still exists), records from the state directory, and /proc for the listed panes only.
 */
export async function collectSessions(ctx: Context, opts: {cache?: WatchCache; scan?: ServerScan; deadlineMs?: number} = {}): Promise<Listing> {
  const env = ctx.env
  const {cache} = opts
  // Events the agents' hooks left pending are read before the records: one applied meanwhile is then in
  // the records as well, and applying it again changes nothing. Nothing here writes (a reader never does).
  const state = ctx.readState()
  const pending = readPending(state)
  mark('spool')
  const now = Date.now()
  const carried = cache?.carry(now)
  const first = await takeSnapshot(ctx, {state, carried, scan: opts.scan, deadlineMs: opts.deadlineMs})
  const reused = cache?.reusable(first) ?? null
  // tmux 3.3 now and then misses a pane's SIGCHLD: the process stays a zombie, the pane looks alive and
  // its exit status is unknown. A SIGCHLD to that (verified) server makes it reap; then look again, once.
  const snap = reused === null && nudgeReapers(first) ? await takeSnapshot(ctx, {state, carried, deadlineMs: opts.deadlineMs}) : first
  const problems: Problem[] = [...snap.recordProblems]
  if (!snap.trust.trusted) problems.push({code: snap.trust.code, message: snap.trust.reason})
  if (snap.tmuxMissing) problems.push({code: 'tmux-missing', message: snap.tmuxMissing.message})
  const result =
    reused ??
    correlate({view: snap.view, servers: snap.servers, records: snap.records, source: snap.proc, presets: snap.presets, trustRecords: snap.trust.trusted})
  if (reused === null) cache?.remember(snap, result, carried?.standing === undefined, now)
  mark('pairing')
  const records = new Map(snap.records.map((s) => [s.file, s.record]))
  const applied =
    pending.events.length === 0 || !snap.trust.trusted
      ? new Map()
      : applyEvents(pending.events, worldOf(snap.view, result.rows, snap.proc, records, env), records, bootMs()).applied
  const provisional = new Set<string>()
  const lagging = new Set<string>()
  if (!pending.complete) {
    for (const [id, entry] of applied as Map<string, Applied>) if (entry.changed) provisional.add(id)
    if (snap.trust.trusted) for (const row of result.rows) if (!applied.has(row.id)) lagging.add(row.id)
    problems.push({
      code: 'events-pending',
      message: `more than ${pending.events.length} hook events wait to be applied (a backlog); states shown from the newest of them may lag until pk's writer has applied them all`,
    })
  }
  const paired = withPendingConversations(result.rows, applied, snap.presets)
  const disagreements: Disagreement[] = []
  const rows = await withContinuePlans(
    ctx,
    applyUsageAttention(
      withUsage(
        await withWorktrees(
          await withStatus(paired, knownOf(paired, records, applied), snap.presets, {
            kept: cache?.screens,
            own: ownWords(paired, snap, problems),
            disagreements,
          }),
        ),
        records,
        snap.state,
        env,
        await usageRules(ctx),
      ),
    ),
    records,
    snap,
  )
  mark('status')
  return {
    snapshot: snap,
    rows,
    problems: [...problems, ...result.problems, ...sharedCodexFolders(rows), ...disagreements.map(disagreementProblem)],
    provisional,
    lagging,
  }
}

/**
 * Who continues each limited session, and when: by your settings (limits in your config, pk bg
 * --no-continue) and what pk keeps about it (continue/ID.json: a moment set, turned off, given up). Read
 * only: the writer arranges the wake-up (pk notify, continue.ts).
 */
async function withContinuePlans(ctx: Context, rows: SessionRow[], records: ReadonlyMap<string, SessionRecord>, snap: Snapshot): Promise<SessionRow[]> {
  if (!rows.some((r) => r.limit !== null)) return rows
  const settings = (await ctx.config().catch(() => null))?.config.limits
  return rows.map((row) => {
    if (row.limit === null) return row
    const record = row.record === null ? null : (records.get(row.record) ?? null)
    const stat = row.pid === null ? null : snap.proc.stat(row.pid)
    const file = readContinueFile(snap.state, row.id)
    const same = file !== null && stat !== null && file.pid === stat.pid && file.startTime === stat.startTime ? file : null
    return {...row, limit: {...row.limit, ...planContinue(row.limit, continuingAllowed(row, settings, record), same)}}
  })
}

/** Your config's usage rules: rates for agents that record no cost, context windows, thresholds. */
export async function usageRules(ctx: Context): Promise<UsageRules> {
  return rulesOf((await ctx.config().catch(() => null))?.config.usage)
}

/**
 * Each agent session's usage, from its transcript: what the writer remembered, and what was appended since
 * (only that is read here). Sessions whose transcript pk does not know show null.
 */
function withUsage(rows: SessionRow[], records: ReadonlyMap<string, SessionRecord>, state: StateDir | null, env: Env, rules: UsageRules): SessionRow[] {
  return rows.map((row) => {
    const record = row.record ? records.get(row.record) : undefined
    if (!record || record.agent === null || !USAGE_AGENTS.includes(record.agent)) return row
    const found = sessionUsage(row.id, record, state, env, rules)
    return found === null ? row : {...row, usage: found.usage}
  })
}

/** Pending events may name a session's conversation before the writer records it: show how to resume it already. */
function withPendingConversations(rows: SessionRow[], applied: ReadonlyMap<string, Applied>, presets: readonly AgentPreset[]): SessionRow[] {
  if (applied.size === 0) return rows
  return rows.map((row) => {
    const entry = applied.get(row.id)
    if (!entry?.changed || entry.conversationId === null || row.resumedBy !== null || row.conflict) return row
    const resume = resumeArgv(entry.agent ?? row.agent, entry.conversationId, presets)
    return resume === null ? row : {...row, agent: row.agent ?? entry.agent, resume}
  })
}

/** Each row's process (pid and kernel start time), as this listing read it: what an observation names. */
export const listingIdentity =
  (listing: Listing) =>
  (row: SessionRow): {pid: number; startTime: number} | null => {
    const stat = row.pid === null ? null : listing.snapshot.proc.stat(row.pid)
    return stat === null ? null : {pid: stat.pid, startTime: stat.startTime}
  }

/** When this boot began (ms since the epoch): dates events by their hook's /proc/uptime. */
export const bootMs = () => {
  const boot = readBootTime()
  return boot === null ? null : boot * 1000
}

/** Whether each session's worktree has uncommitted changes: one git call per row that has a worktree. */
async function withWorktrees(rows: SessionRow[]): Promise<SessionRow[]> {
  if (!rows.some((r) => r.worktree !== null)) return rows
  const {isDirty} = await import('../worktree/worktree.js')
  return Promise.all(rows.map(async (r) => (r.worktree === null ? r : {...r, worktree: {...r.worktree, dirty: await isDirty(r.worktree.path)}})))
}

/**
 * One capture call per server, covering only the agent panes that need one; with `kept` (a watcher's), not
 * those whose window showed no output since their last capture (see screenStillShows).
 */
async function withStatus(
  rows: SessionRow[],
  known: ReadonlyMap<string, Known>,
  presets: readonly AgentPreset[],
  {kept, own, disagreements}: {kept?: Map<string, KeptScreen>; own: ReadonlyMap<string, OwnWord>; disagreements: Disagreement[]},
): Promise<SessionRow[]> {
  const now = Date.now()
  const wanted = new Map<string, PaneId[]>()
  const captures = new Map<string, string>()
  const activity = new Map<string, number | null>()
  for (const row of rows) {
    if (!needsCapture(row, known.get(row.id), presets, now)) continue
    const key = captureKey(row.tmux!.socket, row.tmux!.pane)
    activity.set(key, row.tmux!.activity)
    const before = kept?.get(key)
    if (screenStillShows(before, row.tmux!.activity)) captures.set(key, before.screen)
    else wanted.set(row.tmux!.socket, [...(wanted.get(row.tmux!.socket) ?? []), row.tmux!.pane])
  }
  await Promise.all(
    [...wanted].map(async ([socket, panes]) => {
      for (const [pane, screen] of await capturePanes(socket, panes).catch(() => new Map<PaneId, string>())) {
        const key = captureKey(socket, pane)
        captures.set(key, screen)
        const at = activity.get(key)
        if (kept !== undefined && at !== null && at !== undefined) kept.set(key, {screen, activity: at, takenAt: now})
      }
    }),
  )
  // (screens of panes no longer captured go: a pane that comes back is captured afresh)
  if (kept !== undefined) for (const key of kept.keys()) if (!activity.has(key)) kept.delete(key)
  const zones = new Map<number, string>()
  const zoneOf = (row: SessionRow) => {
    if (row.pid === null) return machineZone()
    if (!zones.has(row.pid)) zones.set(row.pid, processZone(row.pid))
    return zones.get(row.pid)!
  }
  return applyStatus({rows, known, captures, presets, now, zoneOf, own, disagreements})
}

/**
 * What each live agent session publishes about itself (agents/own-sources.ts), by row id: read by identity
 * (the process's pid and start time, in the pid namespace pk reads /proc in), from the folders its own
 * environment names. Only with /proc: the ps source's start times are seconds, not the kernel's ticks an
 * agent writes. Reads files; connects to nothing (DESIGN.md §1.18).
 */
function ownWords(rows: readonly SessionRow[], snap: Snapshot, refused: Problem[]): Map<string, OwnWord> {
  const out = new Map<string, OwnWord>()
  const uid = process.getuid?.()
  if (!/^\d+$/.test(snap.view.pidNs) || uid === undefined) return out
  for (const row of rows) {
    const read = row.agent === null ? undefined : OWN_STATE_READERS[row.agent]
    if (read === undefined || !row.verified || row.conflict || row.state === 'exited' || row.tmux === null || row.pid === null) continue
    const stat = snap.proc.stat(row.pid)
    if (stat === null) continue
    const reading = read({pid: stat.pid, startTime: stat.startTime, pidNs: snap.view.pidNs}, {env: environOf(stat.pid), uid})
    if (reading === null) continue
    if ('word' in reading) out.set(row.id, reading.word)
    else if (reading.stale !== true)
      refused.push({
        code: 'own-state-refused',
        ids: [row.id],
        message: `${row.agent}'s own record of session ${row.id} is not believed: ${reading.refused}; its state comes from its hooks and screen`,
      })
  }
  return out
}

/** Pure: a screen that read otherwise than its agent's word, as a problem of the listing (doctor and --json show it). */
export const disagreementProblem = (d: Disagreement): Problem => ({
  code: 'state-disagrees',
  ids: [d.id],
  message: `${d.agent ?? 'the agent'} in ${d.id} says it is ${d.own} (${d.channel}, since ${d.since}) where its screen reads ${d.screen}: pk shows ${d.own}; a screen rule may not fit this release (npm run agents -- --latest)`,
})

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

/**
 * Pure: folders where two or more live Codex windows have no conversation known. Codex's notify comes
 * from one daemon that serves every window and names only the folder and the thread; Codex 0.171 leaves
 * nothing (a file, a lock, an open descriptor of the window's process) that names the window a thread is
 * of, so pk attributes their turns to nobody. Said, not left a silent null.
 */
export function sharedCodexFolders(rows: readonly SessionRow[]): Problem[] {
  const byCwd = new Map<string, string[]>()
  for (const row of rows) {
    if (row.agent !== 'codex' || row.state === 'exited' || !row.verified || row.conflict || row.resume !== null || row.cwd === null) continue
    byCwd.set(row.cwd, [...(byCwd.get(row.cwd) ?? []), row.id])
  }
  return [...byCwd].flatMap(([cwd, ids]) =>
    ids.length < 2
      ? []
      : [
          {
            code: 'codex-shared-folder' as const,
            ids,
            message: `${ids.length} Codex windows in ${cwd} (${ids.join(', ')}) and none's conversation known: Codex's notify names only the folder, and nothing names a window, so their turns, usage and pk restore cannot be told apart until all but one are closed`,
          },
        ],
  )
}
