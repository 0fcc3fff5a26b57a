import {spawn, spawnSync} from 'node:child_process'
import {accessSync, constants} from 'node:fs'
import {basename, join} from 'node:path'

import {ProcStat} from './parse.js'
import {PsDialect, PsRow, PS_ENV, bootIdFromSysctl, parseCaught, parsePsNamespaces, parsePsTable, psArgs, psCaughtArgs, psNsArgs} from './ps-parse.js'
import {View, ViewMeasurement, psNamespace} from './view.js'

/**
 * The process source without /proc: `ps` for processes (one call for the whole table per look, one with
 * the few pids asked for otherwise), `sysctl` for the boot. Every call is bounded; a `ps` that fails or
 * runs past its deadline is a look that sees no process, so nothing is paired (never one that guesses).
 */

const DEADLINE_MS = 5000
const MAX_OUTPUT = 64 * 1024 * 1024

/** Which `ps` this system has: BSD's on macOS and the BSDs, procps' elsewhere. */
export const psDialect = (platform: NodeJS.Platform = process.platform): PsDialect => (platform === 'linux' ? 'procps' : 'bsd')

const psEnv = () => ({...process.env, ...PS_ENV})

const SYSTEM_DIRS = ['/bin', '/usr/bin', '/sbin', '/usr/sbin']
const tools = new Map<string, string>()

/**
 * A system program by its name: from PATH, else from where systems keep it (a PATH without /bin does not
 * make processes unreadable). The name itself when it is nowhere: running it then fails, and says so.
 */
export function systemTool(name: string): string {
  let found = tools.get(name)
  if (found === undefined) {
    found = name
    for (const dir of [...(process.env.PATH ?? '').split(':').filter((d) => d.startsWith('/')), ...SYSTEM_DIRS]) {
      try {
        accessSync(join(dir, name), constants.X_OK)
        found = join(dir, name)
        break
      } catch {
        // not here
      }
    }
    tools.set(name, found)
  }
  return found
}

function runPsSync(pids?: readonly number[]): Map<number, PsRow> | null {
  const dialect = psDialect()
  const ran = spawnSync(systemTool('ps'), psArgs(dialect, pids), {
    env: psEnv(),
    encoding: 'utf8',
    timeout: DEADLINE_MS,
    maxBuffer: MAX_OUTPUT,
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  // ps exits 1 when none of the pids asked for exists: an empty table, not a failure.
  if (ran.error || ran.signal !== null || (ran.status !== 0 && ran.stdout.trim() !== '')) return null
  return parsePsTable(ran.stdout, dialect).rows
}

function runPsNamespaces(pids: readonly number[]): Map<number, string | null> {
  const ran = spawnSync(systemTool('ps'), psNsArgs(pids), {env: psEnv(), encoding: 'utf8', timeout: DEADLINE_MS, stdio: ['ignore', 'pipe', 'ignore']})
  return ran.error || ran.signal !== null ? new Map() : parsePsNamespaces(ran.stdout)
}

function runPsAsync(): Promise<Map<number, PsRow> | null> {
  return new Promise((resolve) => {
    const dialect = psDialect()
    const child = spawn(systemTool('ps'), psArgs(dialect), {env: psEnv(), stdio: ['ignore', 'pipe', 'ignore']})
    const out: Buffer[] = []
    let size = 0
    const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS)
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_OUTPUT) child.kill('SIGKILL')
      else out.push(chunk)
    })
    child.on('error', () => {
      clearTimeout(timer)
      resolve(null)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve(code === 0 && signal === null ? parsePsTable(Buffer.concat(out).toString('utf8'), dialect).rows : null)
    })
  })
}

let bootIdMemo: string | null | undefined
/** This boot's name, from sysctl: Linux's boot id, or BSD's boot time to the microsecond. Read once per process. */
export function sysctlBootId(): string | null {
  if (bootIdMemo !== undefined) return bootIdMemo
  const platform = process.platform === 'linux' ? 'linux' : 'darwin'
  const name = platform === 'linux' ? 'kernel.random.boot_id' : 'kern.boottime'
  const ran = spawnSync(systemTool('sysctl'), ['-n', name], {encoding: 'utf8', timeout: DEADLINE_MS, stdio: ['ignore', 'pipe', 'ignore'], env: psEnv()})
  bootIdMemo = ran.status === 0 ? bootIdFromSysctl(ran.stdout, platform) : null
  return bootIdMemo
}

/** Pure: the view from the table's rows for this process and pid 1, or why there is none. */
export function judgePsView(
  facts: {bootId: string | null; self: PsRow | undefined; selfNs: string | null; pid1: PsRow | undefined; ppids: readonly number[]},
  dialect: PsDialect,
): ViewMeasurement {
  if (facts.bootId === null) return {ok: false, reason: 'cannot read the boot from sysctl'}
  if (facts.self === undefined) return {ok: false, reason: 'ps does not list this process'}
  // ps in a pid namespace whose processes it does not list (a procfs of an ancestor namespace) shows
  // another process under this pid, or none. (`ppids`: this process's parent before and after ps read the
  // table, and now: a parent that ended meanwhile is not another namespace.)
  if (!facts.ppids.includes(facts.self.ppid))
    return {ok: false, reason: `ps lists pid ${facts.self.pid} with another parent: it sees another pid namespace's processes`}
  if (dialect === 'procps' && facts.selfNs === null) return {ok: false, reason: "ps cannot read this process's pid namespace"}
  if (facts.pid1 === undefined) return {ok: false, reason: 'ps does not list pid 1'}
  return {ok: true, view: {bootId: facts.bootId, pidNs: psNamespace(dialect === 'procps' ? facts.selfNs : null), pid1StartTime: facts.pid1.startTime}}
}

/** A look backed by one `ps` table, read when first needed (or ahead, with `ready`). */
export class PsTable {
  private pending: Promise<void> | undefined
  private kids: Map<number, number[]> | undefined
  private readonly ns = new Map<number, string | null>()

  /**
   * This process's parent as it was right before and right after the table was read: a parent that ends
   * meanwhile (a detached writer's) makes this process init's child between the two, and ps may have seen
   * either (see judgePsView).
   */
  readonly parents: number[] = []

  constructor(
    private rows?: Map<number, PsRow> | null,
    parents: readonly number[] = [],
  ) {
    this.parents.push(...parents)
  }

  ready(): Promise<void> {
    this.parents.push(process.ppid)
    this.pending ??= runPsAsync().then((rows) => {
      this.parents.push(process.ppid)
      if (this.rows === undefined) this.rows = rows
    })
    return this.pending
  }

  table(): Map<number, PsRow> {
    if (this.rows === undefined) {
      this.parents.push(process.ppid)
      this.rows = runPsSync()
      this.parents.push(process.ppid)
    }
    return this.rows ?? new Map()
  }

  /** The pid namespaces of these pids (one call for those not asked before; none where ps has no `pidns`). */
  namespaces(pids: readonly number[]): Map<number, string | null> {
    const wanted = [...new Set(pids)].filter((pid) => !this.ns.has(pid))
    if (wanted.length > 0) {
      const found = psDialect() === 'procps' ? runPsNamespaces(wanted) : new Map<number, string | null>()
      for (const pid of wanted) this.ns.set(pid, found.get(pid) ?? null)
    }
    return new Map(pids.map((pid) => [pid, this.ns.get(pid) ?? null]))
  }

  row = (pid: number) => this.table().get(pid)
  stat = (pid: number): ProcStat | null => {
    const row = this.row(pid)
    return row === undefined ? null : {pid: row.pid, comm: row.comm, state: row.state, ppid: row.ppid, pgrp: row.pgrp, startTime: row.startTime}
  }
  argv = (pid: number) => this.row(pid)?.argv ?? null
  cwd = () => null
  exe = (pid: number) => {
    const comm = this.row(pid)?.comm
    return comm === undefined || comm === '' ? null : comm
  }
  children = (pid: number) => {
    if (this.kids === undefined) {
      this.kids = new Map()
      for (const row of this.table().values()) this.kids.set(row.ppid, [...(this.kids.get(row.ppid) ?? []), row.pid])
    }
    return this.kids.get(pid) ?? []
  }
  startedAt = (seconds: number) => new Date(seconds * 1000).toISOString()
}

/** One process as ps sees it now (a lock's holder, a pane's process just started): one call for one pid. */
export function psStat(pid: number): ProcStat | null {
  const rows = runPsSync([pid])
  return rows === null ? null : new PsTable(rows).stat(pid)
}

/** The view from a process table where one is given, else from one call for this process and pid 1. */
export function psMeasureView(look?: unknown): ViewMeasurement {
  const before = process.ppid
  const seen = look instanceof PsTable ? look : new PsTable(runPsSync([process.pid, 1]), [before, process.ppid])
  const table = seen.table()
  const selfNs = psDialect() === 'procps' ? (seen.namespaces([process.pid]).get(process.pid) ?? null) : null
  const ppids = [...seen.parents, process.ppid]
  return judgePsView({bootId: sysctlBootId(), self: table.get(process.pid), selfNs, pid1: table.get(1), ppids}, psDialect())
}

/** The signals `pid` has a handler for (`ps -o caught=`), or null. */
export function psCaughtSignals(pid: number): bigint | null {
  const ran = spawnSync(systemTool('ps'), psCaughtArgs(psDialect(), pid), {
    env: psEnv(),
    encoding: 'utf8',
    timeout: DEADLINE_MS,
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  return ran.status === 0 ? parseCaught(ran.stdout) : null
}

/** Pure: whether a process's `comm` names a tmux server (`tmux: server` on Linux, the tmux binary elsewhere). */
export const isTmuxComm = (comm: string) => /^tmux(: server)?$/.test(comm) || basename(comm) === 'tmux'

/** A fallback view for readers when the measurement fails: nothing is paired with it. */
export const UNKNOWN_PS_VIEW: View = {bootId: 'unknown', pidNs: psNamespace(null), pid1StartTime: -1}
