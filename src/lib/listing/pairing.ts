import {Problem, SessionRow, State, TmuxLocation} from '../model/contract.js'
import {PaneId} from '../model/ids.js'
import {sha256Hex} from '../model/sha256.js'

import {AgentPreset, recognizeAgent, resumeArgv} from '../agents/presets.js'
import {ProcStat} from '../proc/parse.js'
import {findUp} from '../proc/ancestry.js'
import {ProcessIdentity, checkLiveness, identityFromStat, identityKey, sessionIdOf} from '../proc/identity.js'
import {View} from '../proc/view.js'
import type {ProcessTable} from '../proc/source.js'
import {SessionRecord, StoredRecord} from '../registry/records.js'

import {Pane} from '../tmux/panes.js'
import {ServerListing} from '../tmux/servers.js'

/**
 * Pure pairing: tmux panes + session records + process facts -> rows and problems.
 * Pairing uses process identity only (boot, pid namespace, pid, start time). Names, labels and a
 * record's claims about its socket or pane are never consulted to decide which pane is whose.
 */

/** Read access to process facts; the real one reads /proc, tests hand in data. */
/** The process facts pairing reads: one look of the process source (see proc/source.ts). */
export type ProcessSource = ProcessTable

export interface CorrelateInput {
  view: View
  servers: ServerListing[]
  records: StoredRecord[]
  source: ProcessSource
  presets: readonly AgentPreset[]
  /** False when this pk does not run in the namespace that owns the records: show them, pair nothing. */
  trustRecords?: boolean
}

export interface Correlation {
  rows: SessionRow[]
  problems: Problem[]
}

const MAX_DESCENT_DEPTH = 3

interface PaneRef {
  server: ServerListing
  pane: Pane
}

function location(ref: PaneRef): TmuxLocation {
  return {
    socket: ref.server.socket,
    session: ref.pane.sessionName,
    sessionId: ref.pane.sessionId,
    window: ref.pane.windowId,
    pane: ref.pane.paneId,
    lastAttached: ref.pane.lastAttached,
    lastDetached: ref.pane.lastDetached,
    activity: ref.pane.windowActivity,
  }
}

/** Rows with no process we can name (dead panes, panes of unverifiable servers) get an id from where they sit. */
function placeId(socket: string, serverPid: number | null, paneId: PaneId): string {
  return sha256Hex(`pane/${socket}/${serverPid}/${paneId}`).slice(0, 8)
}

/** Every field of a row, defaulted: the one place a row is built. */
function row(fields: Pick<SessionRow, 'id' | 'kind'> & Partial<SessionRow>): SessionRow {
  // id and kind lead (the JSON's key order); the fields given then replace defaults in place: one copy.
  const defaults: SessionRow = {
    id: fields.id,
    kind: fields.kind,
    agent: null,
    label: null,
    state: 'unknown',
    stateSource: 'none',
    attention: false,
    verified: false,
    conflict: false,
    pid: null,
    cwd: null,
    command: [],
    startedAt: null,
    attached: false,
    tmux: null,
    resume: null,
    record: null,
    exitReason: null,
    agentSource: null,
    exitStatus: null,
    resumedBy: null,
    parent: null,
    attentionSince: null,
    worktree: null,
    usage: null,
    notVerifiedJustNow: null,
    limit: null,
  }
  return Object.assign(defaults, fields)
}

/**
 * A row for a live process in a pane (verified) or in none. Where and what it runs: what pk started
 * (`started`, from its record: a thousand sessions are a thousand fewer /proc reads, and it is right
 * while pk's gate still waits to exec the command), else what the kernel says. So is when it started:
 * the record's date was worked out from the very start time the kernel has just confirmed (the identity
 * matched), when pk started it; working it out again costs a Date a row, a few ms at a thousand.
 */
function liveRow(source: ProcessSource, identity: ProcessIdentity, ref: PaneRef | null, fields: Partial<SessionRow> = {}, started?: SessionRecord): SessionRow {
  return row({
    id: fields.id ?? sessionIdOf(identity),
    kind: 'recorded',
    verified: ref !== null,
    pid: identity.pid,
    cwd: started ? started.cwd : source.cwd(identity.pid),
    command: started ? started.argv : (source.argv(identity.pid) ?? []),
    startedAt: started?.startedAt ?? source.startedAt(identity.startTime),
    attached: ref !== null && ref.pane.attachedClients > 0,
    tmux: ref === null ? null : location(ref),
    ...fields,
  })
}

/** A row from what a record file says, for sessions that cannot be checked against a live pane. */
function fileRow(record: SessionRecord, fields: Partial<SessionRow> & {exitReason: string | null}): SessionRow {
  const exited = fields.exitReason !== null
  return row({
    id: fields.id ?? sessionIdOf(record.identity),
    kind: 'recorded',
    state: exited ? 'exited' : 'unknown',
    stateSource: exited ? 'process' : 'none',
    pid: record.identity.pid,
    cwd: record.cwd,
    command: record.argv,
    startedAt: record.startedAt,
    ...fields,
  })
}

const conflictProblem = (group: StoredRecord[]): Problem => ({
  code: 'conflict',
  message: `${group.length} records claim the same process (pid ${group[0]!.record.identity.pid}): ${group.map((g) => g.file).join(', ')}. Neither is trusted; remove the wrong one.`,
  id: sessionIdOf(group[0]!.record.identity),
  files: group.map((g) => g.file),
})

interface PaneIndex {
  byPid: Map<number, PaneRef>
  /** Dead panes of verified servers, by `socket, server pid, pane id`: where an exited session may have left its last screen. */
  dead: Map<string, PaneRef>
  /** Panes whose process the kernel says is not their server's child. */
  strangers: Set<Pane>
  /** By the pane's own object: one per line of one server's listing, so no key string is built per pane. */
  claimed: Set<Pane>
}

/**
 * Phase 1: live panes of verified servers, by pane pid. A pane pid counts only when the kernel says it
 * is a child of the verified server (tmux forks every pane's process itself): a server cannot lend its
 * panes another process by reporting its pid.
 */
function indexPanes(servers: ServerListing[], source: ProcessSource): PaneIndex {
  const index: PaneIndex = {byPid: new Map(), dead: new Map(), strangers: new Set(), claimed: new Set()}
  for (const server of servers) {
    if (server.status !== 'ok' || !server.verified) continue
    for (const pane of server.panes) {
      if (pane.dead) {
        index.dead.set(`${server.socket}\0${server.serverPid}\0${pane.paneId}`, {server, pane})
        continue
      }
      const stat = source.stat(pane.panePid)
      if (stat !== null && stat.ppid === server.serverPid) index.byPid.set(pane.panePid, {server, pane})
      else if (stat !== null) index.strangers.add(pane)
    }
  }
  return index
}

/**
 * Records grouped by the process they claim, in the order each process is first claimed. Grouped by pid
 * first: a key string per record is built only where two records name one pid (rare), not a thousand times.
 */
function byIdentity(records: StoredRecord[]): StoredRecord[][] {
  const byPid = new Map<number, StoredRecord[]>()
  for (const stored of records) {
    const same = byPid.get(stored.record.identity.pid)
    if (same === undefined) byPid.set(stored.record.identity.pid, [stored])
    else same.push(stored)
  }
  const groups: StoredRecord[][] = []
  for (const same of byPid.values()) {
    if (same.length === 1) {
      groups.push(same)
      continue
    }
    const byKey = new Map<string, StoredRecord[]>()
    for (const stored of same) {
      const key = identityKey(stored.record.identity)
      const group = byKey.get(key)
      if (group === undefined) byKey.set(key, [stored])
      else group.push(stored)
    }
    groups.push(...byKey.values())
  }
  return groups
}

/** Phase 2: records, grouped by the process they claim, paired with the pane that process runs in. */
function pairRecords(input: CorrelateInput, index: PaneIndex, rows: SessionRow[], problems: Problem[]): void {
  const {view, source} = input
  for (const group of byIdentity(input.records)) {
    const {record, file} = group[0]!
    const identity = record.identity
    const id = sessionIdOf(identity)
    const conflict = group.length > 1
    if (conflict) problems.push(conflictProblem(group))
    // A conversation resumed elsewhere lives on there: this record no longer offers it.
    const resume = record.resumedBy ? null : resumeArgv(record.agent, record.conversationId, input.presets)
    const claims = {
      id,
      agent: record.agent,
      agentSource: record.agent === null ? null : ('record' as const),
      label: record.label,
      record: file,
      resume,
      conflict,
      resumedBy: record.resumedBy ?? null,
      parent: record.parent ?? null,
      worktree: record.worktree ? {path: record.worktree.path, branch: record.worktree.branch, dirty: null} : null,
    }
    if (input.trustRecords === false) {
      rows.push(fileRow(record, {...claims, exitReason: identity.bootId === view.bootId ? null : 'other-boot'}))
      continue
    }
    const liveness = checkLiveness(view, identity, source.stat)
    if (!liveness.alive) {
      if (liveness.reason === 'foreign-namespace') {
        problems.push({
          code: 'foreign-namespace',
          message: `session ${id} was recorded in pid namespace ${identity.pidNs}, not this one (${view.pidNs}); its pid cannot be checked here`,
          id,
          file,
        })
      }
      const reason = liveness.reason === 'foreign-namespace' ? null : record.stopped && liveness.reason !== 'other-boot' ? 'stopped' : liveness.reason
      // The dead pane it left: the same server instance (pane ids are never reused within one), the same
      // pane, and tmux still names the recorded pid as the pane's process.
      const dead = index.dead.get(`${record.tmux.socket}\0${record.tmux.serverPid}\0${record.tmux.paneId}`)
      const left = dead && dead.pane.panePid === identity.pid && reason !== null ? dead : null
      if (left) index.claimed.add(left.pane)
      rows.push(
        fileRow(record, {
          ...claims,
          exitReason: reason,
          ...(left ? {tmux: location(left), exitStatus: left.pane.deadStatus, attached: left.pane.attachedClients > 0} : {}),
        }),
      )
      continue
    }
    const ref = findUp(identity.pid, source.stat, (pid) => index.byPid.get(pid))
    if (ref) index.claimed.add(ref.pane)
    if (conflict) {
      rows.push(liveRow(source, identity, ref, {...claims, label: null, record: null, resume: null, verified: false}))
      continue
    }
    // Its server did not answer in time: slow is not absent. Shown from its record, marked as such.
    const silent = ref ? undefined : input.servers.find((s) => s.socket === record.tmux.socket && s.status === 'unresponsive')
    if (silent) {
      rows.push(liveRow(source, identity, null, {...claims, notVerifiedJustNow: `its tmux server (${silent.socket}) did not answer in time`}, record))
      continue
    }
    if (!ref)
      problems.push({code: 'unreachable', message: `session ${id} (pid ${identity.pid}) is alive but in no pane of a reachable tmux server; run pk doctor`, id})
    rows.push(liveRow(source, identity, ref, claims, record))
  }
}

/** Phase 3: panes no record claimed: agents started by hand, plain panes, and panes pk cannot verify. */
function unclaimedPanes(input: CorrelateInput, index: PaneIndex, rows: SessionRow[], problems: Problem[]): void {
  for (const server of input.servers) {
    if (server.status !== 'ok') continue
    if (!server.verified) {
      problems.push({
        code: 'unverified-server',
        message: `tmux server at ${server.socket} cannot be verified: ${server.unverifiedReason}; its panes are shown unverified and cannot be attached`,
        socket: server.socket,
      })
    }
    for (const pane of server.panes) {
      if (index.claimed.has(pane)) continue
      const ref = {server, pane}
      const stranger = index.strangers.has(pane)
      if (stranger) {
        problems.push({
          code: 'foreign-pane',
          message: `tmux server at ${server.socket} lists pane ${pane.paneId} with pid ${pane.panePid}, which is not its child here; it is shown unverified and never paired`,
          socket: server.socket,
        })
      }
      if (!server.verified || pane.dead || stranger) {
        const exited = pane.dead
        rows.push(
          row({
            id: placeId(server.socket, server.serverPid, pane.paneId),
            kind: 'pane',
            state: exited ? 'exited' : 'unknown',
            stateSource: exited ? 'process' : 'none',
            attached: pane.attachedClients > 0,
            tmux: location(ref),
          }),
        )
        continue
      }
      const paneStat = input.source.stat(pane.panePid)
      if (paneStat === null) continue // exited between the listing and now
      const agent = findAgent(input.source, pane.panePid, input.presets)
      const identity = identityFromStat(input.view, agent?.stat ?? paneStat)
      rows.push(liveRow(input.source, identity, ref, {kind: agent ? 'detected' : 'pane', agent: agent?.name ?? null, agentSource: agent?.by ?? null}))
    }
  }
}

/**
 * Phase 4: what servers said that is worth saying. A stale socket (no server listening) is what tmux 3.3
 * leaves after every server exit: harmless, so not a listing problem; pk doctor and pk prune deal with it.
 */
function serverProblems(servers: ServerListing[]): Problem[] {
  const problems: Problem[] = []
  for (const server of servers) {
    const at = {socket: server.socket}
    if (server.status === 'error') problems.push({code: 'tmux-error', message: `${server.socket}: ${server.message}`, ...at})
    if (server.status === 'unresponsive')
      problems.push({
        code: 'server-unresponsive',
        message: `${server.message}; the sessions pk recorded there are shown from their records, not verified just now, and others there are not listed (a busy machine: try again; a server stopped with SIGSTOP resumes with kill -CONT)`,
        ...at,
      })
    if (server.status === 'access-denied')
      problems.push({code: 'server-access-denied', message: `${server.socket}: the server refused pk (access not allowed); its sessions are not listed`, ...at})
    if (server.rejectedLines > 0)
      problems.push({code: 'tmux-output', message: `${server.socket}: ${server.rejectedLines} pane line(s) from tmux were malformed and skipped`, ...at})
  }
  return problems
}

export function correlate(input: CorrelateInput): Correlation {
  const rows: SessionRow[] = []
  const problems: Problem[] = []
  const index = indexPanes(input.servers, input.source)
  pairRecords(input, index, rows, problems)
  unclaimedPanes(input, index, rows, problems)
  problems.push(...serverProblems(input.servers))
  return {rows: sortRows(failDuplicates(input.trustRecords === false ? withoutUnpairedTwins(rows) : rows, problems)), problems}
}

/**
 * Records that may not be paired by pid (ownership unknown, another namespace's) are shown from their
 * files, unverified; the same process in a live pane would be listed from the kernel too. Both carry the
 * one id the process has: that is one session whose ownership is unknown, not two claims (no conflict).
 * The record's row stands (pk started it), unverified as every row of it is.
 */
function withoutUnpairedTwins(rows: SessionRow[]): SessionRow[] {
  const recorded = new Set(rows.filter((r) => r.record !== null).map((r) => r.id))
  return rows.filter((r) => r.record !== null || !recorded.has(r.id))
}

/** An id is one process: if two rows carry it, neither is trusted (both become conflicts). */
function failDuplicates(rows: SessionRow[], problems: Problem[]): SessionRow[] {
  const counts = new Map<string, number>()
  for (const r of rows) counts.set(r.id, (counts.get(r.id) ?? 0) + 1)
  const twice = new Set([...counts].filter(([, n]) => n > 1).map(([id]) => id))
  for (const id of twice)
    problems.push({code: 'conflict', message: `session ${id} appears ${counts.get(id)} times (two panes or records claim one process); neither is trusted`, id})
  return twice.size === 0 ? rows : rows.map((r) => (twice.has(r.id) ? {...r, conflict: true, verified: false} : r))
}

/**
 * Breadth-first over the pane's process and its descendants, nearest first. An agent is recognised by its
 * command line or by the executable the kernel reports (/proc/PID/exe, ps' `comm`); `by: 'exe'` when the
 * executable names it, otherwise it stays a claim of the command line (`by: 'argv'`).
 */
function findAgent(source: ProcessSource, panePid: number, presets: readonly AgentPreset[]): {name: string; stat: ProcStat; by: 'exe' | 'argv'} | null {
  let level = [panePid]
  for (let depth = 0; depth <= MAX_DESCENT_DEPTH && level.length > 0; depth++) {
    const next: number[] = []
    for (const pid of level) {
      const argv = source.argv(pid)
      const byArgv = argv ? recognizeAgent(argv, presets) : null
      // What the kernel says it runs counts too: `claude.exe` started under another argv[0] is still Claude.
      const exe = source.exe(pid)
      const byExe = exe === null ? null : recognizeAgent([exe.replace(/ \(deleted\)$/, '')], presets)
      const name = byArgv ?? byExe
      if (name) {
        const stat = source.stat(pid)
        if (stat) return {name, stat, by: byExe === name ? 'exe' : 'argv'}
      }
      if (depth < MAX_DESCENT_DEPTH) next.push(...source.children(pid))
    }
    level = next
  }
  return null
}

/**
 * What `pk ls` (and the dashboard, and watch) show without --all: agent sessions, and sessions pk started
 * that have exited (with why, until pruned), except those resumed elsewhere. Plain panes need --all.
 */
export const isListedByDefault = (row: SessionRow) => row.kind !== 'pane' && row.resumedBy === null

const STATE_ORDER: Record<State, number> = {waiting: 0, limited: 1, working: 2, idle: 3, unknown: 4, exited: 5}

/** Plain code-unit order: ISO dates and hex ids sort right without the cost of locale collation. */
export const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Waiting on you first: attention, then by state, then newest first. */
export function sortRows(rows: SessionRow[]): SessionRow[] {
  return [...rows].sort(
    (a, b) =>
      Number(b.attention) - Number(a.attention) ||
      STATE_ORDER[a.state] - STATE_ORDER[b.state] ||
      compareText(b.startedAt ?? '', a.startedAt ?? '') ||
      compareText(a.id, b.id),
  )
}
