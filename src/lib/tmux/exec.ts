import {toBytes} from '../model/bytes.js'

import {errnoCode, PkError} from '../model/errors.js'
import {run, runInTerminal} from '../exec/run.js'
import {spawnerFor} from '../exec/spawner.js'

/**
 * tmux splits its argv into commands at any argument that ends in ';' (and `\;` keeps a literal ';').
 * Every argument pk passes, the user's argv included, is escaped so that only pk's own separators split.
 */
export function escapeTmuxArg(arg: string): string {
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg
}

/** Pure: `tmux -S socket cmd1 ; cmd2 ...` as one argv, with every command's arguments escaped. */
export function tmuxArgv(socket: string, commands: string[][]): string[] {
  const argv = ['-S', socket]
  commands.forEach((command, i) => {
    if (i > 0) argv.push(';')
    argv.push(...command.map(escapeTmuxArg))
  })
  return argv
}

/**
 * Pure: one word of tmux's command language (what `source-file` reads) that stands for exactly `text`.
 * Every byte outside a small safe set is written as an octal escape inside double quotes, so nothing in
 * the text is a quote, a variable (`$X`, `~`), a format (`#{}`), a separator (`;`) or a line end to tmux.
 */
export function tmuxConfigWord(text: string): string {
  let out = '"'
  // toBytes: the exact bytes, also of a value that is not UTF-8 (carried as escapes, see bytes.ts).
  for (const byte of toBytes(text)) {
    const safe =
      (byte >= 0x30 && byte <= 0x39) ||
      (byte >= 0x41 && byte <= 0x5a) ||
      (byte >= 0x61 && byte <= 0x7a) ||
      byte === 0x2d ||
      byte === 0x5f ||
      byte === 0x2f ||
      byte === 0x2e
    out += safe ? String.fromCharCode(byte) : `\\${byte.toString(8).padStart(3, '0')}`
  }
  return out + '"'
}

/** Pure: commands as the text of a tmux config file, one command a line, every word quoted. */
export function tmuxScript(commands: string[][]): string {
  return commands.map((command) => command.map(tmuxConfigWord).join(' ') + '\n').join('')
}

export type TmuxFailureKind = 'no-server' | 'stale-socket' | 'unresponsive' | 'access-denied' | 'error'

export class TmuxCommandError extends PkError {
  constructor(
    readonly kind: TmuxFailureKind,
    readonly stderr: string,
    message: string,
    /** What tmux printed before failing: output of the commands that ran. */
    readonly stdout: string = '',
  ) {
    super(`tmux-${kind}`, message)
  }
}

/** Pure: what tmux's complaint means. */
export function classifyTmuxFailure(stderr: string): TmuxFailureKind {
  if (/no server running on /.test(stderr)) return 'no-server'
  if (/error connecting to .*\(No such file or directory\)/.test(stderr)) return 'no-server'
  if (/error connecting to .*\(Connection refused\)/.test(stderr)) return 'stale-socket'
  if (/access not allowed|error connecting to .*\(Permission denied\)/.test(stderr)) return 'access-denied'
  return 'error'
}

export const tmuxMissing = () =>
  new PkError('tmux-missing', 'tmux is not installed or not on PATH. Install it (for example: apt-get install tmux, brew install tmux) and try again.')

/** The environment tmux clients run with: no TMUX, so pk never talks to the caller's server by accident. */
export function clientEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = {...env}
  delete copy.TMUX
  delete copy.TMUX_PANE
  return copy
}

export interface TmuxResult {
  stdout: string
  stderr: string
}

/**
 * How long one tmux call may take. A stopped (SIGSTOP) or wedged server makes every client block
 * forever, so every call has a deadline and the client is killed when it passes. Listing a thousand
 * panes or capturing a hundred takes well under a tenth of this.
 */
export const TMUX_DEADLINE_MS = 2000

export interface RunTmuxOptions {
  env?: NodeJS.ProcessEnv
  /** Text for tmux's standard input (what `source-file -` reads): a pipe, never a command line. */
  input?: string
  deadlineMs?: number
  /** A program that runs tmux (its argv, up to where tmux's begins): systemd-run placing a new server in a scope. */
  wrap?: string[]
}

/**
 * Run tmux with an argv array (never a shell), within a deadline. Rejects with a typed error that says
 * what went wrong. `-u`: without a UTF-8 locale (cron, a non-interactive ssh) tmux writes control
 * characters in its output as `_`, which would turn pk's field separator into an ordinary character.
 */
export async function runTmux(argv: string[], opts: RunTmuxOptions = {}): Promise<TmuxResult> {
  const deadlineMs = opts.deadlineMs ?? TMUX_DEADLINE_MS
  const socket = argv[0] === '-S' ? argv[1] : undefined
  const env = opts.env ?? clientEnv(process.env)
  const spawner = opts.input === undefined && opts.wrap === undefined && onlyReads(argv) ? spawnerFor(env) : null
  const ran =
    spawner !== null
      ? await spawner.run(['tmux', '-u', ...argv], deadlineMs)
      : await run([...(opts.wrap ?? []), 'tmux', '-u', ...argv], {env, input: opts.input, deadlineMs})
  const {stdout, stderr} = ran
  if (ran.error) throw errnoCode(ran.error) === 'ENOENT' ? tmuxMissing() : ran.error
  if (ran.timedOut)
    throw new TmuxCommandError(
      'unresponsive',
      stderr,
      `the tmux server at ${socket ?? '(default)'} did not answer within ${deadlineMs / 1000} s (stopped or wedged); pk gave up on it`,
      stdout,
    )
  // A server that does not let this user in says so on stderr and still exits 0 (tmux 3.3).
  if (ran.code === 0 && /^access not allowed/m.test(stderr))
    throw new TmuxCommandError('access-denied', stderr, `the tmux server at ${socket ?? '(default)'} does not let you in (access not allowed)`, stdout)
  if (ran.code === 0) return {stdout, stderr}
  const detail = stderr.trim() || `tmux exited with ${ran.code ?? 'a signal'}`
  throw new TmuxCommandError(classifyTmuxFailure(stderr), stderr, `tmux ${argv[2] ?? ''}: ${detail}`, stdout)
}

/** tmux commands that change nothing: asked again when the spawner that ran one went (see spawner.ts). */
const READS = new Set(['list-panes', 'list-clients', 'list-sessions', 'list-windows', 'capture-pane', 'show-options'])

/** Pure: whether every command of a tmux argv (`-S SOCKET CMD ARGS [; CMD ARGS]...`) only reads. */
export function onlyReads(argv: readonly string[]): boolean {
  let at = 0
  while (at < argv.length && ['-S', '-L', '-f'].includes(argv[at]!)) at += 2
  if (at >= argv.length) return false
  for (let start = true; at < argv.length; at++) {
    if (start && !READS.has(argv[at]!)) return false
    start = argv[at] === ';'
  }
  return true
}

/** `tmux -V`: the version, or why there is none (not installed, or it failed). */
export async function tmuxVersion(): Promise<{ok: true; version: string} | {ok: false; reason: string}> {
  const ran = await run(['tmux', '-V'], {deadlineMs: TMUX_DEADLINE_MS})
  if (ran.error) return {ok: false, reason: errnoCode(ran.error) === 'ENOENT' ? 'tmux is not installed or not on PATH' : ran.error.message}
  if (ran.code !== 0)
    return {
      ok: false,
      reason: ran.timedOut
        ? `tmux -V did not answer within ${TMUX_DEADLINE_MS / 1000} s`
        : `tmux -V failed: ${ran.stderr.trim() || `exit ${ran.code ?? ran.signal}`}`,
    }
  return {ok: true, version: ran.stdout.trim()}
}

/** A tmux client that takes over the terminal (attach, switch, a popup) until it ends: its exit status. */
export function runClient(argv: string[], env: NodeJS.ProcessEnv): number {
  const {status, error} = runInTerminal(['tmux', ...argv], env)
  if (error) throw errnoCode(error) === 'ENOENT' ? tmuxMissing() : error
  return status
}
