/** Exit codes shared by every command (README, "Exit codes"). */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  noSuchSession: 3,
  ambiguous: 4,
  refused: 5,
  /** `pk wait` ran out of time (the convention of timeout(1)). */
  timeout: 124,
} as const

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

/** Every error code pk throws on purpose: a stable machine-readable name. */
export const ERROR_CODES = [
  'ambiguous-id', 'bad-config', 'bad-cwd', 'bad-host', 'bad-id', 'bad-owner', 'bad-payload', 'bad-settings', 'bad-socket', 'cancelled',
  'conflict', 'conversation-taken', 'died-at-once', 'exited', 'fleet-recursion', 'foreign-namespace', 'foreign-socket', 'gate-lost', 'gone',
  'handoff-unpaired', 'moved', 'name-taken', 'needs-yes', 'no-boot-id', 'no-caller', 'no-command', 'no-conversation', 'no-hosts', 'no-resume',
  'no-setup', 'no-sleep', 'no-such-host', 'no-such-session', 'no-terminal', 'no-view', 'not-a-file', 'not-a-socket', 'notify-taken',
  'quarantine-blocked', 'state-locked', 'timeout', 'tmux-failed', 'tmux-missing', 'unknown-agent', 'unsafe-ssh-dir', 'unsafe-state-dir', 'unsafe-socket-dir', 'not-ready', 'not-submitted', 'still-alive',
  'unverified', 'unverified-server', 'bad-text', 'bad-flags', 'no-git', 'git-failed', 'not-a-repo', 'bad-branch', 'branch-checked-out', 'worktree-exists', 'setup-failed', 'tmux-no-server', 'tmux-stale-socket', 'tmux-unresponsive', 'tmux-access-denied', 'tmux-error',
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

/**
 * The one error type lib code throws on purpose. `code` is a stable machine-readable name,
 * `exitCode` is what the command exits with, and the message is written for a person.
 */
export class PkError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly exitCode: ExitCodeValue = ExitCode.failure,
  ) {
    super(message)
    this.name = 'PkError'
  }
}

export const usageError = (code: ErrorCode, message: string) => new PkError(code, message, ExitCode.usage)
export const refusal = (code: ErrorCode, message: string) => new PkError(code, message, ExitCode.refused)

export function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as {code: unknown}).code) : undefined
}

const SYSTEM_ADVICE: Record<string, string> = {
  ENOSPC: 'no space left on the device; free some space and try again',
  EDQUOT: 'your disk quota is used up; free some space and try again',
  EROFS: 'the file system is read-only; point PK_STATE_DIR (or TMUX_TMPDIR) at a writable directory',
  EACCES: 'permission denied; check the owner and mode of the path',
  EPERM: 'operation not permitted; check the owner and mode of the path',
  EMFILE: 'too many open files; raise the limit (ulimit -n) or close some',
  ENFILE: 'the system has too many open files; try again later',
  EIO: 'an input/output error from the device',
  EEXIST: 'something already exists there',
  ENOTDIR: 'a part of the path is not a directory',
}

/**
 * Any error as one plain line and an exit code: pk's own errors as they are, system errors (errno) as
 * what failed, where, and what to do. Scripts and people never see a stack trace for these.
 */
/**
 * Pure: text safe to print on a terminal: control characters but newline and tab become `?`. Names pk
 * prints (socket files, record files, a cwd, a label) can hold escape sequences that would otherwise
 * reach the terminal raw.
 */
export function terminalSafe(text: string): string {
  // eslint-disable-next-line no-control-regex -- these are exactly what is replaced
  return text.replaceAll(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, '?')
}

export function describeError(error: unknown): {message: string; exitCode: ExitCodeValue} {
  if (error instanceof PkError) return {message: terminalSafe(error.message), exitCode: error.exitCode}
  const code = errnoCode(error)
  if (code !== undefined && typeof error === 'object' && error !== null && 'syscall' in error) {
    const e = error as {syscall?: string; path?: string; message: string}
    const advice = SYSTEM_ADVICE[code] ?? e.message
    return {message: terminalSafe(`${e.syscall ?? 'a system call'} ${e.path ?? ''} failed (${code}): ${advice}`.replace('  ', ' ')), exitCode: ExitCode.failure}
  }
  const message = error instanceof Error ? error.message : String(error)
  return {message: `${message} (this is a bug in pk; run with PK_DEBUG=1 for details)`, exitCode: ExitCode.failure}
}
