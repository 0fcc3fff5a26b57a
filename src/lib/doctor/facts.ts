import {lstatSync, readFileSync, statfsSync} from 'node:fs'
import {userInfo} from 'node:os'

import {PRESETS} from '../agents/presets.js'
import {PkError, errnoCode} from '../errors.js'
import {currentView, identityKey, judgeLiveness} from '../proc/identity.js'
import {PROC_ROOT, readStat} from '../proc/reader.js'
import {measureView, readOwner} from '../process-view.js'
import {Problem, StoredRecord, readRecords} from '../registry/records.js'
import {Env, judgeStateDir, resolveStateDir, stateLayout} from '../registry/state-dir.js'
import {TMUX_DEADLINE_MS, runTmux, tmuxArgv} from '../tmux/exec.js'
import {forgetSocketCache, listServer, listSocketFiles, socketDir} from '../tmux/servers.js'
import {findOrphans} from './orphans.js'
import {DoctorFacts} from './types.js'

function statOrNull(path: string) {
  try {
    return lstatSync(path)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null
    throw error
  }
}

async function tmuxVersion(): Promise<DoctorFacts['tmuxVersion']> {
  const {execFile} = await import('node:child_process')
  return new Promise((resolve) => {
    execFile('tmux', ['-V'], {encoding: 'utf8', timeout: TMUX_DEADLINE_MS, killSignal: 'SIGKILL'}, (error, stdout) => {
      if (error) resolve({ok: false, reason: errnoCode(error) === 'ENOENT' ? 'tmux is not installed or not on PATH' : error.message})
      else resolve({ok: true, version: stdout.trim()})
    })
  })
}

/** Pure: `nobody (W)` lines of `server-access -l`, except the server's owner (who tmux lists too). */
export function parseServerAccess(text: string, owner: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^\S+ \((R|W)\)$/.test(l) && l.split(' ')[0] !== owner)
}

/** Gather every fact the checks judge, reading tmux, /proc and the state directory once. */
export async function gatherFacts(env: Env): Promise<DoctorFacts> {
  forgetSocketCache()
  const uid = process.getuid!()
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

  const statePath = resolveStateDir(env)
  const layout = stateLayout(statePath)
  const stateStats = statOrNull(statePath)
  const sessionsStats = statOrNull(layout.sessions)
  const stateVerdict = stateStats ? judgeStateDir(statePath, stateStats, uid) : null
  const sessionsVerdict = sessionsStats ? judgeStateDir(layout.sessions, sessionsStats, uid) : null
  // Records are read even from a loose directory: doctor is where that gets explained.
  const readable = stateStats !== null && stateVerdict?.problem?.includes('symbolic link') !== true && sessionsVerdict?.problem?.includes('symbolic link') !== true
  const scan = readable ? readRecords(layout) : {records: [], problems: []}

  const version = await tmuxVersion()
  const socketPaths = new Set(sockets.map((s) => s.path))
  for (const {record} of scan.records) if (statOrNull(record.tmux.socket)?.isSocket()) socketPaths.add(record.tmux.socket)
  let servers: DoctorFacts['servers'] = []
  const serverAccess = new Map<string, string[]>()
  const serverPaths = new Map<string, string | null>()
  if (version.ok) {
    servers = await Promise.all([...socketPaths].map((s) => listServer(s).catch((error: unknown) => {
      if (error instanceof PkError) return {socket: s, status: 'error' as const, message: error.message, serverPid: null, verified: false, unverifiedReason: null, panes: [], rejectedLines: 0}
      throw error
    })))
    await Promise.all(
      servers
        .filter((s) => s.status === 'ok')
        .map(async (s) => {
          const out = await runTmux(tmuxArgv(s.socket, [['server-access', '-l'], ['show-environment', '-g', 'PATH']])).catch(() => null)
          const lines = out?.stdout.split('\n') ?? []
          serverAccess.set(s.socket, parseServerAccess(lines.join('\n'), userInfo().username))
          const pathLine = lines.find((l) => l.startsWith('PATH='))
          serverPaths.set(s.socket, pathLine ? pathLine.slice(5) : null)
        }),
    )
  }

  const view = currentView()
  const alivePids = new Set<number>()
  const earlierBoot: StoredRecord[] = []
  const byIdentity = new Map<string, StoredRecord[]>()
  for (const stored of scan.records) {
    const identity = stored.record.identity
    if (identity.bootId !== view.bootId) earlierBoot.push(stored)
    if (judgeLiveness(view, identity, identity.pidNs === view.pidNs ? readStat(identity.pid) : null).alive) alivePids.add(identity.pid)
    const key = identityKey(identity)
    byIdentity.set(key, [...(byIdentity.get(key) ?? []), stored])
  }
  const conflicts: Problem[] = [...byIdentity.values()]
    .filter((group) => group.length > 1)
    .map((group) => ({code: 'conflict', message: `${group.map((g) => g.file).join(' and ')} claim the same process (pid ${group[0]!.record.identity.pid})`}))

  let unixSocketsText = ''
  try {
    unixSocketsText = readFileSync(`${PROC_ROOT}/net/unix`, 'utf8')
  } catch {
    unixSocketsText = ''
  }
  const currentServerPids = new Map<string, number>()
  for (const s of servers) if (s.status === 'ok' && s.verified && s.serverPid !== null) currentServerPids.set(s.socket, s.serverPid)
  const recordSockets = new Set(scan.records.map((r) => r.record.tmux.socket))
  const orphans = findOrphans({
    uid,
    unixSocketsText,
    isCandidatePath: (path) => path.startsWith(dir + '/') || recordSockets.has(path),
    currentServerPids,
    recordedPids: alivePids,
  })

  return {
    env,
    uid,
    tmuxVersion: version,
    socketDir: {path: dir, exists: dirStats !== null, uid: dirStats?.uid ?? null, mode: dirStats ? dirStats.mode & 0o777 : null, fsType},
    sockets,
    servers,
    serverAccess,
    serverPaths,
    orphans,
    state: {path: statePath, exists: stateStats !== null, verdict: stateVerdict, sessionsVerdict},
    records: scan.records,
    recordProblems: scan.problems,
    conflicts,
    earlierBoot,
    view: measureView(),
    owner: readOwner(stateStats && stateVerdict?.ok ? layout : null),
  }
}

/** Agent executables found on a PATH, for the environment drift check. */
export function agentsOnPath(pathValue: string | undefined, exists: (path: string) => boolean): Map<string, string> {
  const found = new Map<string, string>()
  for (const preset of PRESETS) {
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
