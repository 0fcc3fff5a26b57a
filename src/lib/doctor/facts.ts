import {orphanTemps} from '../events/spool.js'
import {existsSync, lstatSync, readFileSync, statfsSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {userInfo} from 'node:os'

import {PRESETS} from '../agents/presets.js'
import {VERIFIED, installedRelease} from '../agents/releases.js'
import {errnoCode, PkError} from '../model/errors.js'
import {checkLiveness, identityKey} from '../proc/identity.js'
import {systemTool} from '../proc/ps.js'
import {processSource} from '../proc/source.js'
import {PROC_ROOT} from '../proc/reader.js'
import {View} from '../proc/view.js'
import {readOwner} from '../registry/ownership.js'

import {correlate} from '../listing/pairing.js'
import {planRestore} from '../verbs/lifecycle.js'
import {Snapshot, takeSnapshot} from '../listing/snapshot.js'
import {StoredRecord} from '../registry/records.js'
import {Problem, SessionRow} from '../model/contract.js'
import {Env, StateDir, StateDirVerdict, judgeStateDir, resolveStateDir, stateLayout} from '../registry/state-dir.js'
import {tmuxVersion as readTmuxVersion} from '../tmux/exec.js'

import {ServerListing, ServerScan} from '../tmux/servers.js'
import {isTmuxProcess} from '../tmux/stale-sockets.js'
import {judgeSocketDirs, listSocketFiles, socketDir, socketDirFacts} from '../tmux/socket-dir.js'
import {findOrphans} from './orphans.js'
import {gatherClaims} from './claims.js'
import {DoctorFacts} from './types.js'
import {accessAndPath} from '../tmux/pane-io.js'
import {Context} from '../config/context.js'

function statOrNull(path: string) {
  try {
    return lstatSync(path)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null
    throw error
  }
}

/** Pure: `nobody (W)` lines of `server-access -l`, except the server's owner (who tmux lists too). */
export function parseServerAccess(text: string, owner: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^\S+ \((R|W)\)$/.test(l) && l.split(' ')[0] !== owner)
}

/** The socket directory and the sockets in it, as the kernel says they are. */
function socketFacts(env: Env): Pick<DoctorFacts, 'socketDir' | 'sockets'> {
  const dir = socketDir(env)
  const dirStats = statOrNull(dir)
  let fsType: number | null = null
  try {
    fsType = dirStats ? statfsSync(dir).type : null
  } catch {
    fsType = null
  }
  const sockets = listSocketFiles(dir).flatMap((path) => {
    const s = statOrNull(path)
    return s ? [{path, uid: s.uid, mode: s.mode & 0o777}] : []
  })
  // What is above the socket directory counts too (judged with the directory itself taken as it should be) (another user's writable directory on the way).
  const aboveProblem = judgeSocketDirs(
    [...socketDirFacts(dirname(dir)), {path: dir, uid: process.getuid!(), mode: 0o40700, isDirectory: true}],
    process.getuid!(),
  )
  return {
    socketDir: {path: dir, exists: dirStats !== null, uid: dirStats?.uid ?? null, mode: dirStats ? dirStats.mode & 0o777 : null, fsType, aboveProblem},
    sockets,
  }
}

/** The state directory as it is: judged even when loose (doctor explains it), and whether its records may be read (never through a link). */
function stateFacts(env: Env, uid: number): Pick<DoctorFacts, 'state' | 'owner'> & {readable: StateDir | null} {
  const statePath = resolveStateDir(env)
  const layout = stateLayout(statePath)
  const stateStats = statOrNull(statePath)
  const sessionsStats = statOrNull(layout.sessions)
  const verdict = stateStats ? judgeStateDir(statePath, stateStats, uid) : null
  const sessionsVerdict = sessionsStats ? judgeStateDir(layout.sessions, sessionsStats, uid) : null
  const linked = (v: StateDirVerdict | null) => v !== null && !v.ok && v.kind === 'symlink'
  // The other directories pk reads and sweeps: a link there would have pk read or delete its target.
  const inner = ['spool', 'notified'].flatMap((name) => {
    const path = join(statePath, name)
    const stats = statOrNull(path)
    return stats ? [judgeStateDir(path, stats, uid)] : []
  })
  // Temporary files a killed hook or writer left in the spool (their maker is gone).
  const spool = join(statePath, 'spool')
  const spoolStats = statOrNull(spool)
  const temps = spoolStats?.isDirectory() && spoolStats.uid === uid ? orphanTemps(spool) : []
  return {
    state: {path: statePath, exists: stateStats !== null, verdict, sessionsVerdict, inner, temps},
    readable: stateStats !== null && !linked(verdict) && !linked(sessionsVerdict) ? layout : null,
    owner: readOwner(stateStats && verdict?.ok ? layout : null),
  }
}

/**
 * The world as pk ls sees it (one snapshot: /proc, the records, every server), read with the presets the
 * configuration makes, or the built-in ones when it does not load (then its error is a fact of its own).
 */
async function worldFacts(ctx: Context, readable: StateDir | null): Promise<{snap: Snapshot; configError: string | null}> {
  // A config that makes every pk ls exit 2 is a failure doctor names, not one it swallows.
  let configError: string | null = null
  const {presets} = await ctx.config().catch((error: unknown) => {
    configError = error instanceof Error ? error.message : String(error)
    return {presets: PRESETS}
  })
  let scan: ServerScan
  try {
    // (the fast path's scan, started as pk started, when it could start one)
    scan = ctx.scanAhead?.() ?? new ServerScan(ctx.env)
  } catch (error) {
    // An unsafe socket directory: pk connects to nothing there; the socket-dir check says why and how to fix it.
    if (!(error instanceof PkError && error.code === 'unsafe-socket-dir')) throw error
    scan = ServerScan.recordsOnly()
  }
  return {snap: await takeSnapshot(ctx, {state: readable, scan, presets}), configError}
}

/** Each listed server's access list and PATH. */
async function accessFacts(servers: ServerListing[]): Promise<Pick<DoctorFacts, 'serverAccess' | 'serverPaths'>> {
  const serverAccess = new Map<string, string[]>()
  const serverPaths = new Map<string, string | null>()
  await Promise.all(
    servers
      .filter((s) => s.status === 'ok')
      .map(async (s) => {
        const lines = (await accessAndPath(s.socket)) ?? []
        serverAccess.set(s.socket, parseServerAccess(lines.join('\n'), userInfo().username))
        const pathLine = lines.find((l) => l.startsWith('PATH='))
        serverPaths.set(s.socket, pathLine ? pathLine.slice(5) : null)
      }),
  )
  return {serverAccess, serverPaths}
}

/** Records judged against the kernel: which are alive, which conflict, which are from an earlier boot. */
function recordFacts(view: View, records: StoredRecord[]): {alivePids: Set<number>; conflicts: Problem[]; earlierBoot: StoredRecord[]} {
  const alivePids = new Set<number>()
  const byIdentity = new Map<string, StoredRecord[]>()
  for (const stored of records) {
    if (checkLiveness(view, stored.record.identity).alive) alivePids.add(stored.record.identity.pid)
    const key = identityKey(stored.record.identity)
    byIdentity.set(key, [...(byIdentity.get(key) ?? []), stored])
  }
  const conflicts: Problem[] = [...byIdentity.values()]
    .filter((group) => group.length > 1)
    .map((group) => ({code: 'conflict', message: `${group.map((g) => g.file).join(' and ')} claim the same process (pid ${group[0]!.record.identity.pid})`}))
  return {alivePids, conflicts, earlierBoot: records.filter((r) => r.record.identity.bootId !== view.bootId)}
}

/** Gather every fact the checks judge: the world from one snapshot (as pk ls reads it), and what only doctor asks (modes, access lists, services). */
export async function gatherFacts(ctx: Context): Promise<DoctorFacts> {
  const env = ctx.env
  const uid = process.getuid!()
  const sockets = socketFacts(env)
  const {readable, ...state} = stateFacts(env, uid)
  // What asks other programs and needs nothing of the world's look runs while pk looks.
  const service = await import('../verbs/service.js')
  const asked = Promise.all([
    service.loginFacts(env),
    service.autostartStatus(env, state.state.exists && state.state.verdict?.ok ? stateLayout(state.state.path) : null),
  ])
  const [tmuxVersion, {snap, configError}] = await Promise.all([readTmuxVersion(), worldFacts(ctx, readable)])
  const {view, records} = snap
  const servers = snap.servers
  const accessing = accessFacts(servers) // (tmux answers while the rest is worked out)
  const {alivePids, conflicts, earlierBoot} = recordFacts(view, records)
  const currentServerPids = new Map<string, number>()
  for (const s of servers) if (s.status === 'ok' && s.verified && s.serverPid !== null) currentServerPids.set(s.socket, s.serverPid)
  const recordSockets = new Set(records.map((r) => r.record.tmux.socket))
  const orphans = tmuxVersion.ok
    ? findOrphans({
        uid,
        unixSocketsText: readOrEmpty(`${PROC_ROOT}/net/unix`),
        isCandidatePath: (path) => path.startsWith(sockets.socketDir.path + '/') || recordSockets.has(path),
        currentServerPids,
        recordedPids: alivePids,
        // Only tmux is a tmux server: another program holding a socket path there is not called one.
      }).filter((o) => isTmuxProcess(o.pid))
    : []
  const rows = correlate({view, servers, records, source: snap.proc, presets: snap.presets, trustRecords: snap.trust.trusted}).rows
  const restorable = tmuxVersion.ok ? planRestore(rows, records, servers).restore.length : 0
  // Recorded agents alive (pid and start time checked) in no pane: they outlived their tmux server.
  const paneless = rows
    .filter((r) => r.kind === 'recorded' && r.state !== 'exited' && r.tmux === null && r.pid !== null && !r.conflict && r.record !== null)
    .map((r) => ({id: r.id, pid: r.pid!, agent: r.agent}))
  const [login, autostart] = await asked
  const access = await accessing
  const hooks = (await import('../setup/index.js')).installedHooks(env)
  const found = agentsOnPath(env.PATH, existsSync)
  const agentReleases = Object.entries(VERIFIED).flatMap(([agent, known]) => {
    const exe = PRESETS.find((p) => p.name === agent)
      ?.executables.map((e) => found.get(e))
      .find((p) => p !== undefined)
    return exe === undefined ? [] : [{agent, path: exe, release: installedRelease(exe, known.packages)}]
  })
  return {
    agentReleases,
    env,
    ctx,
    uid,
    tmuxVersion,
    ...sockets,
    servers: tmuxVersion.ok ? servers : [],
    ...access,
    orphans,
    ...state,
    records,
    recordProblems: snap.recordProblems,
    conflicts,
    earlierBoot,
    restorable,
    paneless,
    login,
    autostart,
    configError,
    hooks,
    presets: snap.presets,
    view: snap.viewMeasurement,
    wakeups: await wakeupFacts(ctx, readable, rows),
    mcpOff: (await import('../registry/mcp-switch.js')).readOff(readable),
    agentStates: await agentStateFacts(ctx, rows),
    ...(readable !== null && snap.viewMeasurement.ok ? {claims: gatherClaims(readable, snap.viewMeasurement.view)} : {}),
    processSource: {
      name: processSource().name,
      forced: (ctx.env.PK_PROCESS_SOURCE ?? '') !== '',
      lsof: processSource().name === 'ps' && systemTool('lsof') !== 'lsof',
    },
  }
}

/**
 * The listing's word on agents' own records, taken only where a live session's agent keeps one (a listing
 * reads every screen: not worth it otherwise).
 */
async function agentStateFacts(ctx: Context, rows: readonly SessionRow[]): Promise<DoctorFacts['agentStates']> {
  const {OWN_STATE_READERS} = await import('../agents/own-sources.js')
  if (!rows.some((r) => r.agent !== null && r.agent in OWN_STATE_READERS && r.state !== 'exited')) return {read: 0, problems: []}
  try {
    const listing = await (await import('../listing/sessions.js')).collectSessions(ctx)
    return {
      read: listing.rows.filter((r) => r.stateSource === 'agent').length,
      problems: listing.problems.filter((p) => p.code === 'own-state-refused' || p.code === 'state-disagrees'),
    }
  } catch {
    return undefined
  }
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

/** Agent executables found on a PATH, for the environment drift check. */
export function agentsOnPath(
  pathValue: string | undefined,
  exists: (path: string) => boolean,
  presets: readonly {executables: string[]}[] = PRESETS,
): Map<string, string> {
  const found = new Map<string, string>()
  for (const preset of presets) {
    for (const exe of preset.executables) {
      for (const dir of (pathValue ?? '').split(':').filter(Boolean)) {
        if (exists(`${dir}/${exe}`)) {
          found.set(exe, `${dir}/${exe}`)
          break
        }
      }
    }
  }
  return found
}

/**
 * The wake-ups pk keeps for sessions at a limit (limits/store.ts), each looked at: a sleeper by its process.
 * One whose sleeper is gone while its session lives is looked at once more in a listing: a session no longer at
 * that limit (the agent continued by itself, or someone did) needs no wake-up, and is no warning (issue 70).
 */
async function wakeupFacts(ctx: Context, state: StateDir | null, rows: readonly SessionRow[]): Promise<NonNullable<DoctorFacts['wakeups']>> {
  const {readContinueFiles} = await import('../limits/store.js')
  const {wakeAlive} = await import('../verbs/wake.js')
  const live = new Set(rows.filter((r) => r.state !== 'exited').map((r) => r.id))
  const files = readContinueFiles(state).filter((f) => f.wake !== null)
  const looked = files.map((file) => ({file, alive: wakeAlive(file.wake!), sessionLive: live.has(file.id)}))
  const atLimit = looked.some((w) => w.alive === false && w.sessionLive) ? await limitEpisodes(ctx) : new Map<string, string | null>()
  return looked.map(({file, alive, sessionLive}) => ({
    id: file.id,
    kind: file.wake!.kind,
    at: file.wake!.at,
    pid: file.wake!.kind === 'sleeper' ? file.wake!.pid : null,
    alive,
    sessionLive,
    stillAtLimit: !(alive === false && sessionLive) || (atLimit.has(file.id) && atLimit.get(file.id) === file.episode),
  }))
}

/** Each session at a limit now, with its episode (limit.since), from a listing; empty where none can be taken. */
async function limitEpisodes(ctx: Context): Promise<Map<string, string | null>> {
  try {
    const listing = await (await import('../listing/sessions.js')).collectSessions(ctx)
    return new Map(listing.rows.filter((r) => r.state === 'limited' && r.limit !== null).map((r) => [r.id, r.limit!.since]))
  } catch {
    return new Map()
  }
}
