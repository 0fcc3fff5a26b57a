import {lstatSync} from 'node:fs'

import {AgentPreset} from './agents/presets.js'
import {loadConfig} from './config.js'
import {Correlation, ProcessSource, SessionRow, correlate} from './correlate.js'
import {applyStatus, captureKey, needsCapture} from './status.js'
import {capturePanes} from './tmux/capture.js'
import {PkError} from './errors.js'
import {ProcStat} from './proc/parse.js'
import {View, currentView} from './proc/identity.js'
import {readTrust} from './process-view.js'
import {readChildren, readCmdline, readCwd, readExe, readStat, startTimeToDate} from './proc/reader.js'
import {Problem, StoredRecord, readRecords} from './registry/records.js'
import {Env, openStateDirForReading} from './registry/state-dir.js'
import {ServerListing, listServer, listSocketFiles, socketDir} from './tmux/servers.js'

/** A /proc-backed source that reads each fact at most once per listing. */
export function procSource(): ProcessSource {
  const stats = new Map<number, ProcStat | null>()
  const argvs = new Map<number, string[] | null>()
  const cwds = new Map<number, string | null>()
  const memo = <T>(cache: Map<number, T>, read: (pid: number) => T) => (pid: number) => {
    if (!cache.has(pid)) cache.set(pid, read(pid))
    return cache.get(pid) as T
  }
  return {
    stat: memo(stats, readStat),
    argv: memo(argvs, readCmdline),
    cwd: memo(cwds, readCwd),
    children: readChildren,
    exe: readExe,
    startedAt: (ticks) => startTimeToDate(ticks)?.toISOString() ?? null,
  }
}

function isSocket(path: string): boolean {
  try {
    return lstatSync(path).isSocket()
  } catch {
    return false
  }
}

export interface Listing extends Correlation {
  view: View
  servers: ServerListing[]
  records: StoredRecord[]
}

/**
 * Everything `pk ls` shows: one `list-panes -a` per tmux server (the socket directory's, plus any socket a
 * record names that still exists), records from the state directory, and /proc for the listed panes only.
 */
export async function collectSessions(env: Env = process.env): Promise<Listing> {
  const view = currentView()
  const state = openStateDirForReading(env)
  // Start tmux first: its list-panes runs while this process reads the records (a thousand files at scale).
  const pending = new Map<string, Promise<ServerListing | PkError>>()
  const list = (socket: string) => pending.set(socket, listServer(socket).catch((error: unknown) => (error instanceof PkError && error.code === 'tmux-missing' ? error : Promise.reject(error))))
  for (const socket of listSocketFiles(socketDir(env))) list(socket)
  const scan = readRecords(state)
  for (const {record} of scan.records) if (!pending.has(record.tmux.socket) && isSocket(record.tmux.socket)) list(record.tmux.socket)

  const problems: Problem[] = [...scan.problems]
  const trust = readTrust(state)
  if (!trust.trusted) problems.push({code: trust.code, message: trust.reason})
  const settled = await Promise.all(pending.values())
  let servers = settled.filter((s): s is ServerListing => !(s instanceof PkError))
  // Without a view of its own pid namespace, no pid read here can be checked: nothing is verified.
  if (!trust.trusted && trust.code === 'no-view') servers = servers.map((s) => ({...s, verified: false, unverifiedReason: trust.reason}))
  const missing = settled.find((s): s is PkError => s instanceof PkError)
  if (missing) problems.push({code: 'tmux-missing', message: missing.message})
  const {presets} = await loadConfig(process.cwd(), env)
  const result = correlate({view, servers, records: scan.records, source: procSource(), presets, trustRecords: trust.trusted})
  const rows = await withStatus(result.rows, scan.records, presets)
  return {view, servers, records: scan.records, rows, problems: [...problems, ...result.problems]}
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
