import {createHash} from 'node:crypto'

import {AgentPreset, recognizeAgent, resumeArgv} from './agents/presets.js'
import {ProcStat} from './proc/parse.js'
import {ProcessIdentity, identityFromStat, identityKey, judgeLiveness, sessionIdOf} from './proc/identity.js'
import {View} from './proc/view.js'
import {Problem, StoredRecord} from './registry/records.js'
import {Pane} from './tmux/panes.js'
import {ServerListing} from './tmux/servers.js'

/**
 * Pure pairing: tmux panes + session records + process facts -> rows and problems.
 * Pairing uses process identity only (boot, pid namespace, pid, start time). Names, labels and a
 * record's claims about its socket or pane are never consulted to decide which pane is whose.
 */

/** Version of every --json shape (DESIGN.md section 2): adding fields keeps it, renaming or removing bumps it. */
export const JSON_SCHEMA_VERSION = 1

export type State = 'working' | 'waiting' | 'idle' | 'exited' | 'unknown'
export type StateSource = 'hook' | 'pane' | 'process' | 'none'

export interface TmuxLocation {
  socket: string
  session: string
  sessionId: string
  window: string
  pane: string
  /** When a client last attached to the session (seconds since the epoch), or null. */
  lastAttached: number | null
  /** Last activity in the pane's window (seconds since the epoch), or null. */
  activity: number | null
}

export interface SessionRow {
  id: string
  /** `recorded`: started by pk; `detected`: an agent found in a pane; `pane`: any other pane (with --all). */
  kind: 'recorded' | 'detected' | 'pane'
  agent: string | null
  label: string | null
  state: State
  stateSource: StateSource
  attention: boolean
  verified: boolean
  /** Two or more records claim this process: nobody is trusted with it. */
  conflict: boolean
  pid: number | null
  cwd: string | null
  command: string[]
  startedAt: string | null
  attached: boolean
  tmux: TmuxLocation | null
  resume: string[] | null
  record: string | null
  /** Why a recorded session counts as ended: `gone`, `pid-reused`, `other-boot`, `zombie`; null otherwise. */
  exitReason: string | null
  /**
   * What says which agent this is: `record` (pk started it as that preset, or its hook said so), `exe`
   * (the executable the kernel reports), `argv` (only the command line, which a process can rewrite:
   * a script run by node or python, or a renamed process); null when no agent is named.
   */
  agentSource: 'record' | 'exe' | 'argv' | null
}

/** Read access to process facts; the real one reads /proc, tests hand in data. */
export interface ProcessSource {
  stat(pid: number): ProcStat | null
  argv(pid: number): string[] | null
  cwd(pid: number): string | null
  children(pid: number): number[]
  startedAt(startTime: number): string | null
  /** The executable's path (/proc/PID/exe), or null when it cannot be read. */
  exe(pid: number): string | null
}

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

const MAX_ANCESTRY = 64
const MAX_DESCENT_DEPTH = 3

interface PaneRef {
  server: ServerListing
  pane: Pane
}

const paneKey = (ref: PaneRef) => `${ref.server.socket}\0${ref.pane.paneId}`

function location(ref: PaneRef): TmuxLocation {
  return {
    socket: ref.server.socket,
    session: ref.pane.sessionName,
    sessionId: ref.pane.sessionId,
    window: ref.pane.windowId,
    pane: ref.pane.paneId,
    lastAttached: ref.pane.lastAttached,
    activity: ref.pane.windowActivity,
  }
}

/** Rows with no process we can name (dead panes, panes of unverifiable servers) get an id from where they sit. */
function placeId(socket: string, serverPid: number | null, paneId: string): string {
  return createHash('sha256').update(`pane/${socket}/${serverPid}/${paneId}`).digest('hex').slice(0, 8)
}

export function correlate(input: CorrelateInput): Correlation {
  const {view, source} = input
  const rows: SessionRow[] = []
  const problems: Problem[] = []

  // Live panes of servers whose pids mean processes here, by pane pid.
  // A pane pid counts only when the kernel says it is a child of the verified server (tmux forks every
  // pane's process itself): a server cannot lend its panes another process by reporting its pid.
  const panesByPid = new Map<number, PaneRef>()
  const strangers = new Set<string>()
  for (const server of input.servers) {
    if (server.status !== 'ok' || !server.verified) continue
    for (const pane of server.panes) {
      if (pane.dead) continue
      const stat = source.stat(pane.panePid)
      if (stat !== null && stat.ppid === server.serverPid) panesByPid.set(pane.panePid, {server, pane})
      else if (stat !== null) strangers.add(paneKey({server, pane}))
    }
  }
  const claimed = new Set<string>()

  const paneOf = (pid: number): PaneRef | null => {
    let current = pid
    for (let step = 0; step < MAX_ANCESTRY && current > 1; step++) {
      const ref = panesByPid.get(current)
      if (ref) return ref
      const stat = source.stat(current)
      if (stat === null) return null
      current = stat.ppid
    }
    return null
  }

  const liveRow = (identity: ProcessIdentity, ref: PaneRef | null, base: Partial<SessionRow>): SessionRow => ({
    id: sessionIdOf(identity),
    kind: 'recorded',
    agent: null,
    label: null,
    state: 'unknown',
    stateSource: 'none',
    attention: false,
    verified: ref !== null,
    conflict: false,
    pid: identity.pid,
    cwd: source.cwd(identity.pid),
    command: source.argv(identity.pid) ?? [],
    startedAt: source.startedAt(identity.startTime),
    attached: ref !== null && ref.pane.attachedClients > 0,
    tmux: ref === null ? null : location(ref),
    resume: null,
    record: null,
    exitReason: null,
    agentSource: null,
    ...base,
  })

  // 1. Records, grouped by the process they claim.
  const groups = new Map<string, StoredRecord[]>()
  for (const stored of input.records) {
    const key = identityKey(stored.record.identity)
    groups.set(key, [...(groups.get(key) ?? []), stored])
  }
  for (const group of groups.values()) {
    const {record, file} = group[0]!
    const identity = record.identity
    const id = sessionIdOf(identity)
    const claims = {agent: record.agent, agentSource: record.agent === null ? null : ('record' as const), label: record.label, record: file, resume: resumeArgv(record.agent, record.conversationId, input.presets)}
    if (input.trustRecords === false) {
      rows.push(fileRow(id, group.length > 1, claims, record, identity.bootId === view.bootId ? null : 'other-boot'))
      continue
    }
    const local = identity.bootId === view.bootId && identity.pidNs === view.pidNs
    const liveness = judgeLiveness(view, identity, local ? source.stat(identity.pid) : null)

    if (liveness.alive) {
      const ref = paneOf(identity.pid)
      if (ref) claimed.add(paneKey(ref))
      if (group.length > 1) {
        problems.push({
          code: 'conflict',
          message: `${group.length} records claim the same process (pid ${identity.pid}): ${group.map((g) => g.file).join(', ')}. Neither is trusted; remove the wrong one.`,
          id,
          files: group.map((g) => g.file),
        })
        rows.push(liveRow(identity, ref, {...claims, label: null, record: null, resume: null, verified: false, conflict: true}))
        continue
      }
      if (!ref) {
        problems.push({
          code: 'unreachable',
          message: `session ${id} (pid ${identity.pid}) is alive but in no pane of a reachable tmux server; run pk doctor`,
          id,
        })
      }
      rows.push(liveRow(identity, ref, claims))
      continue
    }

    if (liveness.reason === 'foreign-namespace') {
      problems.push({
        code: 'foreign-namespace',
        message: `session ${id} was recorded in pid namespace ${identity.pidNs}, not this one (${view.pidNs}); its pid cannot be checked here`,
        id,
        file,
      })
    }
    if (group.length > 1) {
      problems.push({code: 'conflict', message: `${group.length} records claim the same process (pid ${identity.pid}): ${group.map((g) => g.file).join(', ')}`, id, files: group.map((g) => g.file)})
    }
    rows.push(fileRow(id, group.length > 1, claims, record, liveness.reason === 'foreign-namespace' ? null : liveness.reason))
  }

  // 2. Panes of verified servers that no record claimed: agents started by hand, or plain panes.
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
      const ref = {server, pane}
      if (claimed.has(paneKey(ref))) continue
      const stranger = strangers.has(paneKey(ref))
      if (stranger) {
        problems.push({
          code: 'foreign-pane',
          message: `tmux server at ${server.socket} lists pane ${pane.paneId} with pid ${pane.panePid}, which is not its child here; it is shown unverified and never paired`,
          socket: server.socket,
        })
      }
      if (!server.verified || pane.dead || stranger) {
        rows.push({
          id: placeId(server.socket, server.serverPid, pane.paneId),
          kind: 'pane',
          agent: null,
          label: null,
          state: pane.dead ? 'exited' : 'unknown',
          stateSource: pane.dead ? 'process' : 'none',
          attention: false,
          verified: false,
          conflict: false,
          pid: null,
          cwd: null,
          command: [],
          startedAt: null,
          attached: pane.attachedClients > 0,
          tmux: location(ref),
          resume: null,
          record: null,
          exitReason: null,
          agentSource: null,
        })
        continue
      }
      const paneStat = source.stat(pane.panePid)
      if (paneStat === null) continue // exited between the listing and now
      const agent = findAgent(source, pane.panePid, input.presets)
      const identity = identityFromStat(view, agent?.stat ?? paneStat)
      rows.push(liveRow(identity, ref, {kind: agent ? 'detected' : 'pane', agent: agent?.name ?? null, agentSource: agent?.by ?? null}))
    }
  }

  for (const server of input.servers) {
    // A stale socket (no server listening) is what tmux 3.3 leaves after every server exit: harmless, so
    // not a listing problem; pk doctor and pk prune deal with it.
    if (server.status === 'error') {
      problems.push({code: 'tmux-error', message: `${server.socket}: ${server.message}`, socket: server.socket})
    }
    if (server.status === 'unresponsive') {
      problems.push({code: 'server-unresponsive', message: `${server.message}; its sessions are not listed (a server stopped with SIGSTOP resumes with kill -CONT)`, socket: server.socket})
    }
    if (server.status === 'access-denied') {
      problems.push({code: 'server-access-denied', message: `${server.socket}: the server refused pk (access not allowed); its sessions are not listed`, socket: server.socket})
    }
    if (server.rejectedLines > 0) {
      problems.push({code: 'tmux-output', message: `${server.socket}: ${server.rejectedLines} pane line(s) from tmux were malformed and skipped`, socket: server.socket})
    }
  }

  return {rows: sortRows(failDuplicates(rows, problems)), problems}
}

/** An id is one process: if two rows carry it, neither is trusted (both become conflicts). */
function failDuplicates(rows: SessionRow[], problems: Problem[]): SessionRow[] {
  const counts = new Map<string, number>()
  for (const row of rows) counts.set(row.id, (counts.get(row.id) ?? 0) + 1)
  const twice = new Set([...counts].filter(([, n]) => n > 1).map(([id]) => id))
  for (const id of twice) problems.push({code: 'conflict', message: `session ${id} appears ${counts.get(id)} times (two panes or records claim one process); neither is trusted`, id})
  return twice.size === 0 ? rows : rows.map((row) => (twice.has(row.id) ? {...row, conflict: true, verified: false} : row))
}

/** A row from what a record file says, for sessions that cannot be checked against a live pane. */
function fileRow(
  id: string,
  conflict: boolean,
  claims: {agent: string | null; agentSource: 'record' | null; label: string | null; record: string; resume: string[] | null},
  record: StoredRecord['record'],
  exitReason: string | null,
): SessionRow {
  const state = exitReason === null ? 'unknown' : 'exited'
  return {
    id,
    kind: 'recorded',
    ...claims,
    exitReason,
    state,
    stateSource: state === 'exited' ? 'process' : 'none',
    attention: false,
    verified: false,
    conflict,
    pid: record.identity.pid,
    cwd: record.cwd,
    command: record.argv,
    startedAt: record.startedAt,
    attached: false,
    tmux: null,
  }
}

/**
 * Breadth-first over the pane's process and its descendants, nearest first. A match by the command line
 * is confirmed against the executable the kernel reports where it can be (`by: 'exe'`); otherwise it
 * stays a claim of the command line (`by: 'argv'`).
 */
function findAgent(source: ProcessSource, panePid: number, presets: readonly AgentPreset[]): {name: string; stat: ProcStat; by: 'exe' | 'argv'} | null {
  let level = [panePid]
  for (let depth = 0; depth <= MAX_DESCENT_DEPTH && level.length > 0; depth++) {
    const next: number[] = []
    for (const pid of level) {
      const argv = source.argv(pid)
      const name = argv ? recognizeAgent(argv, presets) : null
      if (name) {
        const stat = source.stat(pid)
        const exe = source.exe(pid)
        const byExe = exe !== null && recognizeAgent([exe.replace(/ \(deleted\)$/, '')], presets) === name
        if (stat) return {name, stat, by: byExe ? 'exe' : 'argv'}
      }
      if (depth < MAX_DESCENT_DEPTH) next.push(...source.children(pid))
    }
    level = next
  }
  return null
}

/** What `pk ls` (and the dashboard, and watch) show without --all: agent sessions that have not exited. */
export const isListedByDefault = (row: SessionRow) => row.kind !== 'pane' && row.state !== 'exited'

const STATE_ORDER: Record<State, number> = {waiting: 0, working: 1, idle: 2, unknown: 3, exited: 4}

/** Plain code-unit order: ISO dates and hex ids sort right without the cost of locale collation. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Waiting on you first: attention, then by state, then newest first. */
export function sortRows(rows: SessionRow[]): SessionRow[] {
  return [...rows].sort(
    (a, b) =>
      Number(b.attention) - Number(a.attention) ||
      STATE_ORDER[a.state] - STATE_ORDER[b.state] ||
      compare(b.startedAt ?? '', a.startedAt ?? '') ||
      compare(a.id, b.id),
  )
}
