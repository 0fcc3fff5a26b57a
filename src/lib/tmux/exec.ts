import {execFile} from 'node:child_process'

import {PkError, errnoCode} from '../errors.js'

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

export type TmuxFailureKind = 'no-server' | 'stale-socket' | 'error'

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
  return 'error'
}

export const tmuxMissing = () =>
  new PkError('tmux-missing', 'tmux is not installed or not on PATH. Install it (for example: apt-get install tmux, brew install tmux) and try again.')

/** The environment tmux clients run with: no TMUX, so pk never talks to the caller's server by accident. */
export function clientEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
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
 * Run tmux with an argv array (never a shell). Rejects with a typed error that says what went wrong.
 * `-u`: without a UTF-8 locale (cron, a non-interactive ssh) tmux writes control characters in its
 * output as `_`, which would turn pk's field separator into an ordinary character.
 */
export function runTmux(argv: string[], env: NodeJS.ProcessEnv = clientEnv()): Promise<TmuxResult> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-u', ...argv], {env, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8'}, (error, stdout, stderr) => {
      if (!error) return resolve({stdout, stderr})
      if (errnoCode(error) === 'ENOENT') return reject(tmuxMissing())
      const kind = classifyTmuxFailure(stderr)
      const detail = stderr.trim() || error.message
      reject(new TmuxCommandError(kind, stderr, `tmux ${argv[2] ?? ''}: ${detail}`, stdout))
    })
  })
}
