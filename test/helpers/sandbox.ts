import {ChildProcess, execFile, execFileSync, spawn} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import type {SessionRow} from '../../src/lib/model/contract.js'

export const ROOT = resolve(import.meta.dirname, '..', '..')
export const PK_BIN = join(ROOT, 'bin', 'run.js')
const SANDBOX_PREFIX = join(realpathSync(tmpdir()), 'pk-test-')

/** `pk ls --json`, as tests read it. */
export interface LsJson {
  schema: number
  sessions: SessionRow[]
  problems: {code: string; message: string; [key: string]: unknown}[]
}

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

/**
 * A private world for one test: its own TMUX_TMPDIR (so every tmux server it starts has its socket in
 * here), its own pk state directory and HOME. Every tmux and pk call goes through this object, which
 * refuses any socket or directory outside the sandbox, so a test can never reach the user's own tmux
 * server or pk state.
 */
export class Sandbox {
  readonly root: string
  readonly tmuxTmpdir: string
  readonly stateDir: string
  readonly home: string
  readonly env: NodeJS.ProcessEnv

  constructor() {
    this.root = mkdtempSync(SANDBOX_PREFIX)
    this.tmuxTmpdir = join(this.root, 'tmux')
    this.stateDir = join(this.root, 'state')
    this.home = join(this.root, 'home')
    for (const dir of [this.tmuxTmpdir, this.home]) mkdirSync(dir, {mode: 0o700})
    // tmux -S does not create the socket directory (and still exits 0); -L would.
    mkdirSync(join(this.tmuxTmpdir, `tmux-${process.getuid!()}`), {mode: 0o700})
    const env: NodeJS.ProcessEnv = {}
    for (const [name, value] of Object.entries(process.env)) {
      if (name === 'TMUX' || name === 'TMUX_PANE' || name.startsWith('PK_') || name.startsWith('XDG_') || name === 'NO_COLOR') continue
      env[name] = value
    }
    Object.assign(env, {TMUX_TMPDIR: this.tmuxTmpdir, PK_STATE_DIR: this.stateDir, HOME: this.home, LANG: 'C.UTF-8', TERM: 'xterm-256color'})
    // The suite's second run reads processes with ps (scripts/test.sh): every pk it starts does too.
    if (process.env.PK_PROCESS_SOURCE) env.PK_PROCESS_SOURCE = process.env.PK_PROCESS_SOURCE
    this.env = env
    this.assertPrivate(env)
  }

  /** Where tmux puts sockets for this sandbox (tmux's own rule: $TMUX_TMPDIR/tmux-<uid>). */
  get socketDir(): string {
    return join(this.tmuxTmpdir, `tmux-${process.getuid!()}`)
  }

  socket(name: string): string {
    return join(this.socketDir, name)
  }

  /**
   * A tmux first on PATH that notes each call once the real tmux has answered it: where a test must know
   * that a pk has looked (a wait has begun), not guess how long that takes. `path` goes before PATH.
   */
  tmuxCalls(): {path: string; answered: () => string[]} {
    const dir = mkdtempSync(join(this.root, 'tmux-shim-'))
    const log = join(dir, 'answered')
    const real = execFileSync('sh', ['-c', 'command -v tmux'], {encoding: 'utf8'}).trim()
    writeFileSync(join(dir, 'tmux'), `#!/bin/sh\n'${real}' "$@"\nrc=$?\necho "$*" >> '${log}'\nexit $rc\n`, {mode: 0o755})
    return {path: dir, answered: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [])}
  }

  get pkSocket(): string {
    return this.socket('pk')
  }

  private assertPrivate(env: NodeJS.ProcessEnv): void {
    const inside = (path: string | undefined) => path !== undefined && resolve(path).startsWith(this.root + '/')
    if (!this.root.startsWith(SANDBOX_PREFIX)) throw new Error(`sandbox root ${this.root} is not a private test directory`)
    const state = env.PK_STATE_DIR ?? env.XDG_STATE_HOME
    if (!inside(env.TMUX_TMPDIR) || !inside(state) || !inside(env.HOME)) throw new Error('sandbox env escapes the sandbox')
    if (env.TMUX !== undefined || env.TMUX_PANE !== undefined) throw new Error('sandbox env must not name a tmux client')
  }

  private assertSocket(socket: string): void {
    if (!resolve(socket).startsWith(this.root + '/')) throw new Error(`refusing to touch tmux socket outside the sandbox: ${socket}`)
  }

  /** Run tmux against a socket inside the sandbox (synchronously; tests want the result). */
  tmux(socket: string, ...args: string[]): string {
    this.assertSocket(socket)
    return execFileSync('tmux', ['-S', socket, ...args], {env: this.env, encoding: 'utf8'})
  }

  tmuxTry(socket: string, ...args: string[]): RunResult {
    this.assertSocket(socket)
    try {
      return {code: 0, stdout: execFileSync('tmux', ['-S', socket, ...args], {env: this.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']}), stderr: ''}
    } catch (error) {
      const e = error as {status: number; stdout: string; stderr: string}
      return {code: e.status ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? ''}
    }
  }

  /** Run the built CLI as a user would. `env` adds to (or, with undefined, removes from) the sandbox env; `bin`: another copy of pk's bin/run.js. */
  pk(args: string[], opts: {env?: NodeJS.ProcessEnv; cwd?: string; input?: string | Buffer; bin?: string} = {}): Promise<RunResult> {
    const env = {...this.env, ...opts.env}
    for (const [k, v] of Object.entries(opts.env ?? {})) if (v === undefined) delete env[k]
    this.assertPrivate({...env, TMUX: undefined, TMUX_PANE: undefined})
    return new Promise((resolvePromise) => {
      const child = execFile(process.execPath, [opts.bin ?? PK_BIN, ...args], {env, cwd: opts.cwd ?? this.root, encoding: 'utf8'}, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        resolvePromise({code, stdout, stderr})
      })
      if (opts.input !== undefined) child.stdin!.end(opts.input)
      else child.stdin!.end()
    })
  }

  /** `pk ... --json`, parsed; fails the test with pk's stderr when it does not exit 0. */
  async pkJson<T = unknown>(args: string[], opts: {env?: NodeJS.ProcessEnv} = {}): Promise<T> {
    const result = await this.pk([...args, '--json'], opts)
    if (result.code !== 0) throw new Error(`pk ${args.join(' ')} exited ${result.code}: ${result.stderr}`)
    return JSON.parse(result.stdout) as T
  }

  /** `pk bg --json ARGS`: the new session's row; fails the test with pk's stderr otherwise. */
  async bgRow(args: string[], opts: {env?: NodeJS.ProcessEnv} = {}): Promise<SessionRow> {
    const result = await this.pk(['bg', '--json', ...args], opts)
    if (result.code !== 0) throw new Error(`pk bg ${args.join(' ')} exited ${result.code}: ${result.stderr}`)
    return (JSON.parse(result.stdout) as {session: SessionRow}).session
  }

  sockets(): string[] {
    try {
      return readdirSync(this.socketDir).map((name) => join(this.socketDir, name))
    } catch {
      return []
    }
  }

  cleanup(): void {
    for (const socket of this.sockets()) this.tmuxTry(socket, 'kill-server')
    // What a test started may still be working in here: the writer a hook started (it waits out a stopped
    // server, and comes back for events a held lock kept from it), a notifier a watcher started, a hook an
    // agent's pane ran as it closed. Let them finish for up to 5 s, then end them, and remove the tree only
    // once none is left to write into it (a file made during rm -rf fails it with ENOTEMPTY).
    const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
    for (let waited = 0; this.processes().length > 0 && waited < 5000; waited += 50) sleep(50)
    for (const pid of this.processes()) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // gone meanwhile
      }
    }
    for (let waited = 0; this.processes().length > 0 && waited < 2000; waited += 20) sleep(20)
    rmSync(this.root, {recursive: true, force: true, maxRetries: 10, retryDelay: 100})
  }

  /** Every live process, pk or not, with this sandbox's state directory in its environment. */
  private processes(): number[] {
    return this.matching(() => true)
  }

  /**
   * The pk processes at work in this sandbox now (its state directory in their environment: the ones tests
   * start, the writers hooks start, the notifiers watchers start), but those given (a watcher that runs on).
   */
  pkProcesses(except: readonly number[] = []): number[] {
    return this.matching((pid, cmdline) => !except.includes(pid) && cmdline.includes(join('bin', 'run.js')))
  }

  private matching(test: (pid: number, cmdline: string) => boolean): number[] {
    const pids: number[] = []
    for (const name of readdirSync('/proc')) {
      const pid = Number(name)
      if (!Number.isSafeInteger(pid) || pid === process.pid) continue
      try {
        if (!test(pid, readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) continue
        if (!readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`PK_STATE_DIR=${this.stateDir}\0`)) continue
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue
        pids.push(pid)
      } catch {
        // gone meanwhile, or another user's
      }
    }
    return pids
  }

  /**
   * Until no pk of this sandbox runs but those given: every writer and notifier that could still tell
   * something has ended. The moment a negative check ("told once", "told nothing") is worth making.
   */
  async settled(except: readonly number[] = [], timeoutMs = 60_000): Promise<void> {
    await waitFor('no pk at work in the sandbox', () => this.pkProcesses(except).length === 0, timeoutMs)
  }
}

/** A `pk ls --watch --json` run: its lines as they come, with when each came. */
export interface Watcher {
  child: ChildProcess
  lines: {at: number; text: string}[]
  /** Until it printed a line after `since` (a snapshot, a change or its heartbeat): a whole pass of it ended after then. */
  passAfter(since: number, timeoutMs?: number): Promise<void>
}

export function startWatcher(env: NodeJS.ProcessEnv, args: string[] = []): Watcher {
  const child = spawn(process.execPath, [PK_BIN, 'ls', '--watch', '--json', ...args], {env, stdio: ['ignore', 'pipe', 'ignore']})
  const lines: Watcher['lines'] = []
  let pending = ''
  child.stdout!.on('data', (d: Buffer) => {
    pending += d.toString('utf8')
    let end
    while ((end = pending.indexOf('\n')) >= 0) {
      lines.push({at: Date.now(), text: pending.slice(0, end)})
      pending = pending.slice(end + 1)
    }
  })
  return {
    child,
    lines,
    passAfter: async (since, timeoutMs = 20_000) => {
      await waitFor('a pass of the watcher', () => lines.some((l) => l.at > since), timeoutMs)
    },
  }
}

/** Whether a process of this pid is there (signal 0). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 5000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
