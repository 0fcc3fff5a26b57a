import {ChildProcess, spawn} from 'node:child_process'
import {constants} from 'node:os'
import {readFileSync, unlinkSync} from 'node:fs'

import {Ran, RunEnv, run} from './run.js'

/**
 * A small shell that starts programs for a pk that lives long and starts one every poll (a watcher, the
 * dashboard, pk serve list tmux's panes every 0.7 s). Started from node, each program costs the fork of
 * node's whole heap: about 11 ms of CPU at 90 MB, the largest part of pk serve's idle CPU. Started by
 * this shell, well under one. Only for what can be asked again: when the shell is gone (killed), a
 * program it was running is run again the usual way.
 *
 * Each request is one command line of the shell, every word quoted; the program writes into two files of
 * a private directory, and the shell reports its pid (`p ID PID`) and its end (`d ID STATUS`) on stdout,
 * a line each (one write: lines of several programs at once never interleave). The shell removes its
 * directory when pk closes its input (pk ended, however it ended).
 */
export class Spawner {
  private readonly child: ChildProcess
  private readonly ready: Promise<string | null>
  private next = 0
  private inFlight = 0
  private readonly waiting = new Map<number, {pid?: number; done: (status: number | null) => void; killed: boolean}>()
  private dead = false
  private settleReady: () => void = () => {}

  constructor(private readonly env: RunEnv) {
    // The shell reads its script from its input as it comes: first a directory of its own (mktemp -d makes it
    // private; its name is the shell's first line), removed once its input ends and what runs has ended.
    this.child = spawn('sh', ['-s'], {env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'ignore']})
    // A Ctrl-C or a signal to pk's process group does not leave the directory behind: the shell lives on to
    // the end of its input (pk's end), or cleans up on its way out.
    this.child.stdin!.write(
      // (dash runs no EXIT trap for an exit in another trap: each cleans up itself)
      'd=$(mktemp -d "${TMPDIR:-/tmp}/pk-spawner.XXXXXX") || exit 1; trap \'wait; rm -rf "$d"\' EXIT; trap \'\' INT; trap \'rm -rf "$d"; exit 143\' TERM; trap \'rm -rf "$d"; exit 129\' HUP; echo "$d"\n',
    )
    this.child.on('error', () => this.end())
    this.child.on('exit', () => this.end())
    this.child.stdin!.on('error', () => this.end())
    let buffered = ''
    let first: ((dir: string | null) => void) | null = null
    this.ready = new Promise((resolve) => (first = resolve))
    this.settleReady = () => first?.(null)
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (buffered + chunk.toString('utf8')).split('\n')
      buffered = lines.pop()!
      for (const line of lines) {
        if (first !== null) {
          first(line.startsWith('/') ? line : null)
          first = null
          continue
        }
        const [what, id, value] = line.split(' ')
        const request = this.waiting.get(Number(id))
        if (request === undefined) continue
        if (what === 'p') {
          request.pid = Number(value)
          if (request.killed) this.kill(request.pid)
        } else if (what === 'd') {
          this.waiting.delete(Number(id))
          request.done(Number(value))
        }
      }
    })
    this.child.stdout!.on('end', () => this.end())
    // (its pipes never keep pk running; the process does while a request is in flight)
    ;(this.child.stdout as unknown as {unref: () => void}).unref()
    ;(this.child.stdin as unknown as {unref: () => void}).unref()
    this.unrefIfIdle()
  }

  /** Whether it can take requests with this environment. */
  serves(env: RunEnv): boolean {
    return !this.dead && sameEnv(env, this.env)
  }

  get ended(): boolean {
    return this.dead
  }

  /** The shell's pid (tests stop and kill it). */
  get pid(): number | undefined {
    return this.child.pid
  }

  /** Run `argv` (no input, output collected) within `deadlineMs`: as `run` would. */
  async run(argv: readonly string[], deadlineMs: number | undefined): Promise<Ran> {
    this.inFlight++
    this.child.ref()
    try {
      return await this.runOne(argv, deadlineMs)
    } finally {
      this.inFlight--
      this.unrefIfIdle()
    }
  }

  private async runOne(argv: readonly string[], deadlineMs: number | undefined): Promise<Ran> {
    const dir = await this.ready
    if (dir === null || this.dead) return run(argv, {env: this.env, deadlineMs})
    const id = this.next++
    const out = `${dir}/${id}.o`
    const err = `${dir}/${id}.e`
    let timedOut = false
    const status = await new Promise<number | null>((resolve) => {
      const request = {done: resolve, killed: false} as {pid?: number; done: (status: number | null) => void; killed: boolean}
      this.waiting.set(id, request)
      const timer =
        deadlineMs === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = true
              request.killed = true
              if (request.pid !== undefined) this.kill(request.pid)
              // A shell that cannot even report the end (stopped) does not hold the caller past its deadline; the
              // request stays, so that a program the shell starts later is killed as it starts.
              setTimeout(() => resolve(null), 1000).unref()
            }, deadlineMs)
      const finish = request.done
      request.done = (value) => {
        clearTimeout(timer)
        finish(value)
      }
      const words = argv.map(quote).join(' ')
      // (`jobs` reaps the requests that ended: a non-interactive shell leaves them zombies until a wait)
      this.child.stdin!.write(`(exec 0</dev/null; ${words} >'${out}' 2>'${err}' & p=$!; echo "p ${id} $p"; wait $p; echo "d ${id} $?") & jobs >/dev/null\n`)
    })
    const stdout = take(out)
    const stderr = take(err)
    // The shell went (killed) before the program ended: ask again the usual way.
    if (status === null && !timedOut) return run(argv, {env: this.env, deadlineMs})
    // 127: the shell found no such program; run says so the usual way (ENOENT).
    if (status === 127) return run(argv, {env: this.env, deadlineMs})
    const signalled = status !== null && status > 128
    return {
      code: status === null || signalled ? null : status,
      signal: signalled ? signalName(status - 128) : timedOut ? 'SIGKILL' : null,
      stdout,
      stderr,
      timedOut,
      error: null,
    }
  }

  private kill(pid: number): void {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // ended meanwhile
    }
  }

  private end(): void {
    if (this.dead) return
    this.dead = true
    this.settleReady()
    for (const request of this.waiting.values()) request.done(null)
    this.waiting.clear()
  }

  /** A spawner with nothing to do does not keep pk running. */
  private unrefIfIdle(): void {
    if (this.inFlight > 0) return
    this.child.unref()
  }
}

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`

function take(path: string): string {
  try {
    const text = readFileSync(path, 'utf8')
    unlinkSync(path)
    return text
  } catch {
    return ''
  }
}

function signalName(n: number): NodeJS.Signals | null {
  for (const [name, value] of Object.entries(constants.signals)) if (value === n) return name as NodeJS.Signals
  return null
}

function sameEnv(a: RunEnv, b: RunEnv): boolean {
  const keys = Object.keys(a).filter((k) => a[k] !== undefined)
  return keys.length === Object.keys(b).filter((k) => b[k] !== undefined).length && keys.every((k) => a[k] === b[k])
}

let spawner: Spawner | null = null
let enabled = false

/** For a pk that polls for as long as it runs: programs that only read start through a Spawner. */
export function useSpawner(): void {
  enabled = true
}

/**
 * The spawner for a read with this environment, when this pk uses one: made on first use, and again after
 * it died. A read with another environment than the first (none, in pk) starts the usual way.
 */
export function spawnerFor(env: RunEnv): Spawner | null {
  if (!enabled) return null
  if (spawner === null || spawner.ended) spawner = new Spawner(env)
  return spawner.serves(env) ? spawner : null
}
