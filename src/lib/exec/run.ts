import {spawn, spawnSync} from 'node:child_process'
import type {Writable} from 'node:stream'

/**
 * The one way pk runs another program: an argv array (never a shell), within a deadline, and it never
 * throws for what the program did. tmux, git, ssh, systemctl, crontab and a notifier's command all go
 * through `run`; a terminal handed over goes through `runInTerminal`; pk's own writer starts through
 * `startPkDetached`; a long-lived poll's tmux reads start through a Spawner (spawner.ts), which answers
 * as `run` does. Callers turn a `Ran` into their own typed errors.
 */

export type RunEnv = Readonly<Record<string, string | undefined>>

export interface RunOptions {
  /** The program's environment (default: pk's own). */
  env?: RunEnv
  cwd?: string
  /** Text for the program's standard input: a pipe, closed after it. Without it stdin is /dev/null. */
  input?: string
  /** When to give up: the program (its whole group, with `group`) is killed with SIGKILL. None: no limit. */
  deadlineMs?: number
  /** Its own process group, killed whole at the deadline: a notifier that started helpers takes them along. */
  group?: boolean
  /**
   * When the run counts as over. `close` (the default): exited and every pipe closed, so nothing it wrote is
   * lost. `exit`: exited, whatever still holds its pipes (a helper a notifier left behind). `stdout`: exited and
   * stdout drained: ssh's ControlPersist master holds stderr open for its lifetime.
   */
  until?: 'close' | 'exit' | 'stdout'
  /** Where its stdout and stderr go instead of being read (a worktree's setup command writes to pk's stderr). */
  output?: Writable | number
  /** Each line of stdout as it comes (a stream of events); stdout is then not collected. */
  onLine?: (line: string) => void
  /** Ends the program with SIGTERM when aborted. */
  signal?: AbortSignal
}

export interface Ran {
  /** Its exit status; null when it was killed, or never started (then `error` says why). */
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** It ran past the deadline and was killed. */
  timedOut: boolean
  /** It could not be started (ENOENT: no such program). */
  error: NodeJS.ErrnoException | null
}

export function run(argv: readonly string[], opts: RunOptions = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const stdio = opts.output === undefined ? ('pipe' as const) : opts.output
    // Without input, stdin is /dev/null: one pipe fewer, which a listing pays for on every start.
    const child = spawn(argv[0]!, argv.slice(1), {
      env: opts.env as NodeJS.ProcessEnv | undefined,
      cwd: opts.cwd,
      detached: opts.group,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', stdio, stdio],
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let pending = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      if (!opts.onLine) return void out.push(chunk)
      const lines = (pending + chunk.toString('utf8')).split('\n')
      pending = lines.pop()!
      for (const line of lines) opts.onLine(line)
    })
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk))
    let timedOut = false
    let exited: {code: number | null; signal: NodeJS.Signals | null} | null = null
    let stdoutEnded = child.stdout === null
    let settled = false
    const finish = (error: NodeJS.ErrnoException | null = null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (opts.onLine && pending !== '') opts.onLine(pending)
      // Let go of pipes something else still holds (ssh's master, a notifier's helper): this process must be able to exit.
      child.stdout?.destroy()
      child.stderr?.destroy()
      resolve({
        code: exited?.code ?? null,
        signal: exited?.signal ?? null,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
        error,
      })
    }
    const timer =
      opts.deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true
            // Our ends of the pipes close too: a program may have handed copies to another process (tmux hands the
            // client's to its server), and then its death alone would not end the run.
            child.stdout?.destroy()
            child.stderr?.destroy()
            kill(child.pid, opts.group === true, () => child.kill('SIGKILL'))
          }, opts.deadlineMs)
    opts.signal?.addEventListener('abort', () => child.kill('SIGTERM'), {once: true})
    child.on('error', (error) => finish(error))
    child.stdout?.on('end', () => {
      stdoutEnded = true
      if (opts.until === 'stdout' && exited) finish()
    })
    child.on('exit', (code, signal) => {
      exited = {code, signal}
      if (opts.until === 'exit' || (opts.until === 'stdout' && stdoutEnded)) setImmediate(() => finish())
    })
    child.on('close', (code, signal) => {
      exited ??= {code, signal}
      finish()
    })
    if (opts.input !== undefined) {
      // A program that exits before reading its input must not turn into an unhandled EPIPE.
      child.stdin!.on('error', () => {})
      child.stdin!.end(opts.input)
    }
  })
}

function kill(pid: number | undefined, group: boolean, fallback: () => void): void {
  if (!group || pid === undefined) return fallback()
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    fallback()
  }
}

/** A program that takes over the terminal (a tmux client attaching, ssh -t) until it ends: its exit status. */
export function runInTerminal(argv: readonly string[], env: RunEnv): {status: number; error: NodeJS.ErrnoException | null} {
  const result = spawnSync(argv[0]!, argv.slice(1), {stdio: 'inherit', env: env as NodeJS.ProcessEnv})
  return {status: result.status ?? 1, error: (result.error as NodeJS.ErrnoException | undefined) ?? null}
}

/**
 * Start `pk ARGS...` (this same pk) detached, never waited on: the event writer, started by a hook or a
 * watcher that must not wait for it. Its pid, or null when it could not start (the next caller tries again).
 */
export function startPkDetached(args: readonly string[], env: RunEnv): number | null {
  const entry = process.argv[1]
  if (!entry) return null
  try {
    const child = spawn(process.execPath, [entry, ...args], {detached: true, stdio: 'ignore', env: env as NodeJS.ProcessEnv})
    child.on('error', () => {})
    child.unref()
    return child.pid ?? null
  } catch {
    return null
  }
}
