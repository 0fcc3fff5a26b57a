import {Ran, run} from '../exec/run.js'
import {sha256Hex} from '../model/sha256.js'
import {lstatSync, mkdirSync, mkdtempSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

import {shellQuote} from '../model/shell.js'
import {HostConfig, PkConfig} from '../config/config.js'
import {JSON_SCHEMA_VERSION, SessionRow} from '../model/contract.js'
import {errnoCode, PkError} from '../model/errors.js'
import {NO_PROGRESS, Progress} from '../model/progress.js'
import type {CheckResult} from '../model/contract.js'
import {Problem} from '../model/contract.js'

/**
 * pk across machines with OpenSSH as the only transport: each host runs its own pk, which is the only
 * authority on its sessions; this side merges and tags, never changes a host's rows.
 */

/** Set on the remote side: a pk reached through the fleet never fans out again. */
export const FLEET_GUARD = 'PK_FLEET_DEPTH'
export const DEFAULT_HOST_TIMEOUT_MS = 10_000

export interface FleetRow extends SessionRow {
  /** The host the row came from, or null for this machine. */
  host: string | null
}

/** Pure: which hosts a command talks to. `--fleet` is every configured host; `--host` names some. */
export function resolveHosts(config: PkConfig, opts: {fleet: boolean; hosts: string[]}, env: Record<string, string | undefined>): HostConfig[] {
  if (!opts.fleet && opts.hosts.length === 0) return []
  if (env[FLEET_GUARD]) throw new PkError('fleet-recursion', 'this pk was started by another pk over ssh; it does not fan out to hosts again')
  const configured = config.hosts ?? []
  if (opts.fleet && opts.hosts.length === 0) {
    if (configured.length === 0) throw new PkError('no-hosts', '--fleet needs hosts in the config (hosts: [{name, destination}])')
    return configured
  }
  return opts.hosts.map((name) => {
    const found = configured.find((h) => h.name === name)
    if (found) return found
    // Not configured: the name is the ssh destination itself (an alias from ~/.ssh/config, user@host).
    if (name === '' || name.startsWith('-'))
      throw new PkError('bad-host', `unknown host ${JSON.stringify(name)}: configure it (hosts) or give an ssh destination`)
    return {name, destination: name}
  })
}

/** Pure: `HOST/ID` -> its parts; a bare id is local. */
export function splitFleetId(idArg: string): {host: string | null; id: string} {
  const at = idArg.lastIndexOf('/')
  return at === -1 ? {host: null, id: idArg} : {host: idArg.slice(0, at), id: idArg.slice(at + 1)}
}

/**
 * Connection reuse: one master connection per host, its socket in a private directory (checked before
 * anything is put in it: a directory of the user's, mode 0700, not a link): under the user's runtime
 * directory when there is one, else TMPDIR or /tmp. A place there that another user took first (a shared
 * /tmp) is passed over, not an error: then `~/.cache/pk-ssh`, where its path is short enough for a socket's
 * (ssh's limit), else a new directory of its own nobody can have guessed (no reuse across runs then).
 */
export function controlDir(env: Record<string, string | undefined>): string {
  const uid = process.getuid!()
  const shared = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'pk-ssh') : join(env.TMPDIR || '/tmp', `pk-ssh-${uid}`)
  const home = join(env.HOME || homedir(), '.cache', 'pk-ssh')
  for (const dir of home.length <= 60 ? [shared, home] : [shared]) if (privateDir(dir, uid)) return dir
  return mkdtempSync(join(env.TMPDIR || '/tmp', `pk-ssh-${uid}-`))
}

/** Whether `dir` is (made, where it was not) a directory of this user's, mode 0700, not a link. */
function privateDir(dir: string, uid: number): boolean {
  try {
    mkdirSync(dir, {recursive: true, mode: 0o700})
    const stats = lstatSync(dir)
    return stats.isDirectory() && stats.uid === uid && (stats.mode & 0o077) === 0
  } catch {
    return false
  }
}

/** Pure: the ssh argv that runs `pk ARGS` on a host, batch mode unless a terminal is wanted. */
export function sshArgv(host: HostConfig, pkArgs: string[], opts: {tty: boolean; controlDir: string; connectTimeoutS: number}): string[] {
  const remote = `${FLEET_GUARD}=1 ${host.pk ?? 'pk'} ${pkArgs.map(shellQuote).join(' ')}`
  // One master per host entry, not per ssh's %C: two entries for one user@host with other options
  // (another key, a jump host) must not share a connection.
  const entry = sha256Hex(JSON.stringify([host.destination, host.options ?? []])).slice(0, 12)
  return [
    ...(opts.tty ? ['-t'] : ['-T', '-o', 'BatchMode=yes']),
    '-o',
    `ConnectTimeout=${opts.connectTimeoutS}`,
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${opts.controlDir}/${entry}-%C`,
    '-o',
    'ControlPersist=60',
    ...(host.options ?? []),
    '--',
    host.destination,
    remote,
  ]
}

export interface RemoteResult {
  code: number | null
  stdout: string
  stderr: string
  timedOut: boolean
}

/** Run pk on a host; a host that does not answer in time is killed, never waited on. */
export async function runRemote(host: HostConfig, pkArgs: string[], timeoutMs: number, input?: string): Promise<RemoteResult> {
  const argv = sshArgv(host, pkArgs, {tty: false, controlDir: controlDir(process.env), connectTimeoutS: Math.max(1, Math.ceil(timeoutMs / 1000))})
  // Over when ssh has exited and its stdout is drained: with ControlPersist, the master that ssh leaves in
  // the background keeps our stderr pipe open for its lifetime.
  const ran = await run(['ssh', ...argv], {deadlineMs: timeoutMs, until: 'stdout', input})
  return {code: ran.code, stdout: ran.stdout, stderr: sshError(ran), timedOut: ran.timedOut}
}

const sshError = (ran: Ran) => (ran.error === null ? ran.stderr : errnoCode(ran.error) === 'ENOENT' ? 'ssh is not installed' : ran.error.message)

/** Pure: a failed remote call as a problem a person can act on. */
export function remoteProblem(host: HostConfig, result: RemoteResult, timeoutMs: number): Problem {
  const detail = result.stderr.trim().split('\n').filter(Boolean).at(-1) ?? `exit ${result.code}`
  if (result.timedOut) return {code: 'host-unreachable', host: host.name, message: `${host.name}: no answer within ${timeoutMs / 1000} s (${host.destination})`}
  if (result.code === 255 || result.code === null) return {code: 'host-unreachable', host: host.name, message: `${host.name}: ${detail}`}
  if (result.code === 127 || /command not found|No such file or directory/.test(result.stderr)) {
    return {
      code: 'host-no-pk',
      host: host.name,
      message: `${host.name}: pk is not installed there, or not on the PATH of a non-interactive ssh session; set hosts[].pk (${detail})`,
    }
  }
  return {code: 'host-pk-failed', host: host.name, message: `${host.name}: pk there exited ${result.code}: ${detail}`}
}

/** Pure: a remote `pk ls --json` answer, checked, with rows tagged by host. */
export function parseRemoteListing(host: HostConfig, stdout: string): {rows: FleetRow[]; problems: Problem[]} | Problem {
  let data: {schema?: unknown; sessions?: unknown; problems?: unknown}
  try {
    data = JSON.parse(stdout)
  } catch {
    return {code: 'host-pk-incompatible', host: host.name, message: `${host.name}: pk there did not answer with JSON; it may be too old for pk ls --json`}
  }
  if (data.schema !== JSON_SCHEMA_VERSION || !Array.isArray(data.sessions)) {
    return {
      code: 'host-pk-incompatible',
      host: host.name,
      message: `${host.name}: pk there speaks schema ${JSON.stringify(data.schema)}, this pk reads schema ${JSON_SCHEMA_VERSION}; upgrade one of them`,
    }
  }
  const rows = (data.sessions as SessionRow[]).map((row) => ({...row, id: `${host.name}/${row.id}`, host: host.name}))
  const problems = (Array.isArray(data.problems) ? (data.problems as Problem[]) : []).map((p) => ({
    ...p,
    host: host.name,
    message: `${host.name}: ${p.message}`,
  }))
  return {rows, problems}
}

const timeoutOf = (host: HostConfig) => (host.timeout === undefined ? DEFAULT_HOST_TIMEOUT_MS : host.timeout * 1000)

/** Every host's listing at once; a failing host costs at most the timeout and becomes a problem. */
export async function listHosts(hosts: HostConfig[], all: boolean): Promise<{rows: FleetRow[]; problems: Problem[]}> {
  const results = await Promise.all(
    hosts.map(async (host) => {
      const timeoutMs = timeoutOf(host)
      const result = await runRemote(host, ['ls', '--json', ...(all ? ['--all'] : [])], timeoutMs)
      if (result.code !== 0) return {rows: [], problems: [remoteProblem(host, result, timeoutMs)]}
      const parsed = parseRemoteListing(host, result.stdout)
      return 'code' in parsed ? {rows: [], problems: [parsed as Problem]} : parsed
    }),
  )
  return {rows: results.flatMap((r) => r.rows), problems: results.flatMap((r) => r.problems)}
}

export interface HostDiagnosis {
  host: string
  ok: boolean
  checks: Pick<CheckResult, 'id' | 'status' | 'message' | 'fix'>[]
  problem: Problem | null
}

const CHECK_STATUSES = new Set(['pass', 'warn', 'fail', 'skip'])

/** Pure: a host's `pk doctor --json` answer, checked; anything else is `host-pk-incompatible`. */
export function parseRemoteDiagnosis(host: HostConfig, stdout: string): HostDiagnosis | null {
  let data: {ok?: unknown; checks?: unknown}
  try {
    data = JSON.parse(stdout)
  } catch {
    return null
  }
  const isCheck = (c: unknown) =>
    typeof c === 'object' &&
    c !== null &&
    typeof (c as CheckResult).id === 'string' &&
    CHECK_STATUSES.has((c as CheckResult).status) &&
    typeof (c as CheckResult).message === 'string'
  if (typeof data !== 'object' || data === null || typeof data.ok !== 'boolean' || !Array.isArray(data.checks) || !data.checks.every(isCheck)) return null
  return {
    host: host.name,
    ok: data.ok,
    checks: (data.checks as CheckResult[]).map((c) => ({id: c.id, status: c.status, message: c.message, fix: typeof c.fix === 'string' ? c.fix : null})),
    problem: null,
  }
}

/** `pk doctor --json` on each host; a host that fails or answers nonsense is reported, the rest still are. */
export async function doctorHosts(hosts: HostConfig[], progress: Progress = NO_PROGRESS): Promise<HostDiagnosis[]> {
  if (hosts.length > 0)
    progress.begin(
      hosts.map((h) => `doctor on ${h.name} (${h.destination})`),
      {concurrent: true},
    )
  const tell = (i: number, d: HostDiagnosis) => {
    progress.end(i, d.problem ? {error: d.problem.message} : {detail: d.ok ? 'ok' : 'problems found'})
    return d
  }
  return Promise.all(hosts.map(async (host, i) => tell(i, await doctorHost(host))))
}

async function doctorHost(host: HostConfig): Promise<HostDiagnosis> {
  const timeoutMs = timeoutOf(host)
  const result = await runRemote(host, ['doctor', '--json'], timeoutMs)
  // doctor exits 1 when a check fails; its JSON is still the answer.
  if (result.code !== 0 && result.code !== 1) return {host: host.name, ok: false, checks: [], problem: remoteProblem(host, result, timeoutMs)}
  const parsed = parseRemoteDiagnosis(host, result.stdout)
  if (parsed) return parsed
  return {
    host: host.name,
    ok: false,
    checks: [],
    problem: {
      code: 'host-pk-incompatible',
      host: host.name,
      message: `${host.name}: pk there did not answer doctor --json in a shape this pk reads; upgrade one of them`,
    },
  }
}

/** Attach to a session on another host: `ssh -t` runs that host's `pk attach`, which verifies there. */
export function remoteAttachArgv(host: HostConfig, id: string): string[] {
  return sshArgv(host, ['attach', id], {tty: true, controlDir: controlDir(process.env), connectTimeoutS: 10})
}

export function findHost(config: PkConfig, name: string, env: Record<string, string | undefined>): HostConfig {
  const [host] = resolveHosts(config, {fleet: false, hosts: [name]}, env)
  if (!host) throw new PkError('no-such-host', `no host ${name}`)
  return host
}

/** Stream a host's `pk ls --watch --json`, tagging each event; ends when the connection does. */
export async function watchHost(host: HostConfig, all: boolean, emit: (event: Record<string, unknown>) => void, signal: AbortSignal): Promise<void> {
  const argv = sshArgv(host, ['ls', '--watch', '--json', ...(all ? ['--all'] : [])], {tty: false, controlDir: controlDir(process.env), connectTimeoutS: 10})
  const tag = (row: SessionRow) => ({...row, id: `${host.name}/${row.id}`, host: host.name})
  const ran = await run(['ssh', ...argv], {
    signal,
    onLine: (line) => {
      let event: Record<string, unknown>
      try {
        event = JSON.parse(line)
      } catch {
        return
      }
      if (Array.isArray(event.sessions)) event.sessions = (event.sessions as SessionRow[]).map(tag)
      if (event.session) event.session = tag(event.session as SessionRow)
      if (typeof event.id === 'string') event.id = `${host.name}/${event.id}`
      emit({...event, host: host.name})
    },
  })
  if (!signal.aborted)
    emit({type: 'problem', host: host.name, problem: remoteProblem(host, {code: ran.code, stdout: '', stderr: sshError(ran), timedOut: false}, 0)})
}
