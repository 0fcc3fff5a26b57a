/** Exit codes shared by every command (README, "Exit codes"). */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  noSuchSession: 3,
  ambiguous: 4,
  refused: 5,
  /** pk typed what was asked but cannot say it took effect (pk send, pk answer): a script must look before it types again. */
  unconfirmed: 6,
  /** `pk wait` ran out of time (the convention of timeout(1)). */
  timeout: 124,
  /** Ended by Ctrl-C (SIGINT): what the shell reports, 128 + 2; pk sets no handler that changes it. */
  interrupted: 130,
} as const

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

/**
 * Every error code pk throws on purpose: a stable machine-readable name, the one exit it always gives
 * (README, "Exit codes"), and what it means for a person. A throw site names the code and says what
 * happened; it never picks the exit, so a code cannot mean two exits.
 */
export const ERRORS = {
  'ambiguous-id': {exit: ExitCode.ambiguous, meaning: 'the id prefix matches more than one session: type more of the id'},
  'bad-branch': {exit: ExitCode.usage, meaning: 'not a branch name git accepts'},
  'bad-config': {exit: ExitCode.usage, meaning: 'a config file does not load or is invalid: the message names the file and the key'},
  'bad-cwd': {exit: ExitCode.usage, meaning: 'the working directory does not exist or is not a directory'},
  'bad-flags': {exit: ExitCode.usage, meaning: 'flags that mean nothing together, or a bad value'},
  'bad-host': {exit: ExitCode.usage, meaning: 'a host name pk does not know and that is not an ssh destination'},
  'bad-id': {exit: ExitCode.usage, meaning: 'not a session id (8 hex digits, or a prefix of one)'},
  'bad-owner': {exit: ExitCode.refused, meaning: 'owner.json in the state directory is missing its namespace, unreadable or a link: pk doctor explains'},
  'bad-payload': {exit: ExitCode.usage, meaning: 'an event payload that is not what pk takes (a JSON object)'},
  'bad-settings': {exit: ExitCode.usage, meaning: "an agent's settings file is not JSON: fix it first, pk will not overwrite it"},
  'bad-socket': {exit: ExitCode.usage, meaning: 'a --socket that is not a socket path or name'},
  'bad-text': {exit: ExitCode.usage, meaning: 'text pk send will not type (control characters)'},
  'branch-checked-out': {exit: ExitCode.usage, meaning: 'the branch is checked out in another worktree already'},
  cancelled: {exit: ExitCode.failure, meaning: 'you said no'},
  conflict: {exit: ExitCode.ambiguous, meaning: 'two records claim one process: pk refuses rather than guesses (pk doctor)'},
  'conversation-taken': {exit: ExitCode.ambiguous, meaning: 'the conversation is live in another session, or was resumed already'},
  'dialog-changed': {
    exit: ExitCode.refused,
    meaning: 'pk answer --dialog (a tap on the page): the dialog on the screen is not the one answered (it changed since it was shown): nothing was typed',
  },
  'died-at-once': {exit: ExitCode.failure, meaning: 'the command exited at once: its last output is in the message'},
  exited: {exit: ExitCode.noSuchSession, meaning: 'the session has exited: nothing to do to it (pk resume starts it again)'},
  'fleet-recursion': {exit: ExitCode.refused, meaning: 'a pk started by another pk over ssh does not fan out again'},
  'foreign-namespace': {exit: ExitCode.refused, meaning: 'this pk runs in another pid namespace than the one that owns the state: it writes nothing'},
  'foreign-socket': {exit: ExitCode.refused, meaning: "the socket is another user's tmux server"},
  'gate-lost': {exit: ExitCode.failure, meaning: "the new pane's process ended before pk let it start: nothing was started"},
  'git-failed': {exit: ExitCode.failure, meaning: 'git failed: its message follows'},
  gone: {exit: ExitCode.noSuchSession, meaning: 'the session ended meanwhile'},
  'handoff-unpaired': {exit: ExitCode.failure, meaning: 'the resumed agent never reported running the conversation: the original keeps running'},
  'land-conflict': {exit: ExitCode.failure, meaning: 'pk land: the work conflicts with its branch (the files are listed): nothing was changed'},
  'land-refused': {
    exit: ExitCode.refused,
    meaning: 'pk land: not a worktree session, a main checkout that is dirty or on another branch, or uncommitted work without --commit: nothing was changed',
  },
  moved: {exit: ExitCode.refused, meaning: 'the session moved between two checks: try again'},
  'unsafe-checkout': {
    exit: ExitCode.refused,
    meaning: "a worktree whose .git names a git directory that is not its repository's own: pk reads nothing there (its configuration could run programs)",
  },
  'name-taken': {exit: ExitCode.failure, meaning: 'no free tmux session name for --name'},
  'needs-yes': {exit: ExitCode.usage, meaning: 'a destructive step without a terminal to confirm it: pass --yes'},
  'no-base': {
    exit: ExitCode.refused,
    meaning: 'pk diff, pk land: pk knows no commit the session started from (it started before pk recorded them, or outside git): it will not guess',
  },
  'no-boot-id': {exit: ExitCode.failure, meaning: '/proc/sys/kernel/random/boot_id is unreadable: run pk where /proc is mounted'},
  'no-caller': {exit: ExitCode.failure, meaning: 'pk bg --handoff found no agent among its ancestors'},
  'no-children': {exit: ExitCode.failure, meaning: 'pk wait --children: the session has no children to wait on (none started by it lives)'},
  'no-command': {exit: ExitCode.usage, meaning: 'nothing to start: give an agent preset or a command after --'},
  'no-conversation': {exit: ExitCode.failure, meaning: 'no conversation id is known for the session: pass --conversation ID or install its hooks'},
  'no-dialog': {exit: ExitCode.failure, meaning: 'pk answer: the screen shows no permission dialog pk knows: nothing was typed'},
  'no-git': {exit: ExitCode.failure, meaning: 'git is not installed'},
  'no-gh': {exit: ExitCode.failure, meaning: 'pk land --pr: the branch was pushed, but gh is not installed to open the pull request (the message says how)'},
  'no-hosts': {exit: ExitCode.usage, meaning: '--fleet with no hosts in the config'},
  'no-resume': {exit: ExitCode.failure, meaning: 'the session has no conversation pk can resume: the message says why'},
  'no-service-manager': {exit: ExitCode.failure, meaning: 'neither a systemd user manager nor crontab: autostart cannot be arranged here'},
  'no-program': {exit: ExitCode.failure, meaning: 'pk bg: the program to start is not installed (not on PATH) or not executable: nothing was started'},
  'no-server': {exit: ExitCode.failure, meaning: 'pk serve --url: no pk serve runs now (or none has run here yet)'},
  'no-setup': {exit: ExitCode.usage, meaning: 'pk setup knows no integration for that agent'},
  'no-sleep': {exit: ExitCode.failure, meaning: 'the sleep program (coreutils) is missing'},
  'no-such-choice': {exit: ExitCode.usage, meaning: 'pk answer: the dialog has no such choice (the message lists them): nothing was typed'},
  'no-such-host': {exit: ExitCode.noSuchSession, meaning: 'no such host in the config'},
  'no-such-session': {exit: ExitCode.noSuchSession, meaning: 'no session has that id'},
  'no-terminal': {exit: ExitCode.failure, meaning: 'pk attach needs a terminal: use --print for the tmux command'},
  'no-view': {exit: ExitCode.refused, meaning: 'pk cannot see which processes are whose here (/proc or ps, the boot, the clock): it refuses to write'},
  'mcp-audit': {exit: ExitCode.refused, meaning: 'pk mcp: the call could not be written to its audit log (STATE/mcp/audit.jsonl), so it was not done'},
  'mcp-off': {exit: ExitCode.refused, meaning: 'pk mcp: every pk MCP server refuses every call (pk mcp --off): pk mcp --on turns them on again'},
  'mcp-refused': {
    exit: ExitCode.refused,
    meaning: "pk mcp: a call outside the rights the server was given (--allow), or on a session that is not the caller's child",
  },
  'not-a-file': {exit: ExitCode.failure, meaning: 'a FIFO, directory or link where a regular file should be: never read or written'},
  'not-a-repo': {exit: ExitCode.usage, meaning: '--worktree outside a git repository'},
  'not-a-socket': {exit: ExitCode.usage, meaning: 'the --socket path exists and is not a socket: left untouched'},
  'not-confirmed': {
    exit: ExitCode.unconfirmed,
    meaning: 'the text or keys went in, but pk could not see the agent take them (its screen, or a tmux server slow past the deadline): not typed again',
  },
  'not-limited': {exit: ExitCode.failure, meaning: 'pk continue: the session is not at a usage limit (or no longer at the one named): nothing was typed'},
  'not-continued': {
    exit: ExitCode.failure,
    meaning: "pk continue: the session's checks refused it (someone attached, another dialog up, another process, turned off): nothing was typed",
  },
  'not-ready': {exit: ExitCode.failure, meaning: 'the agent shows a dialog, not its prompt, or holds an unsent draft in its input: nothing was typed'},
  'not-submitted': {
    exit: ExitCode.unconfirmed,
    meaning: 'the text was typed but the agent did not take the Enter: it waits in the input (never exit 1 after typing)',
  },
  'notify-taken': {exit: ExitCode.failure, meaning: "Codex's config has a notify program of yours: pk never replaces it"},
  'quarantine-blocked': {exit: ExitCode.failure, meaning: 'the quarantine directory is not a directory: move it away'},
  'session-busy': {
    exit: ExitCode.refused,
    meaning: 'pk land: the agent is working, waits on a dialog, or (without --idle) still runs: the message says which; nothing was changed',
  },
  'setup-failed': {exit: ExitCode.failure, meaning: 'worktrees.setup failed: the worktree stays'},
  'state-locked': {exit: ExitCode.failure, meaning: 'another pk holds the state lock for too long: try again'},
  'still-alive': {exit: ExitCode.failure, meaning: 'the process is still alive after SIGKILL'},
  timeout: {
    exit: ExitCode.timeout,
    meaning: 'the deadline passed before anything was done (pk wait, pk send/answer --timeout: a slow tmux server or an agent not ready): safe to try again',
  },
  'tmux-access-denied': {exit: ExitCode.failure, meaning: 'tmux refused the connection (permissions)'},
  'tmux-error': {exit: ExitCode.failure, meaning: 'tmux failed: its message follows'},
  'tmux-failed': {exit: ExitCode.failure, meaning: 'tmux did not start the session'},
  'tmux-missing': {exit: ExitCode.failure, meaning: 'tmux is not installed'},
  'tmux-no-server': {exit: ExitCode.failure, meaning: 'no tmux server on that socket'},
  'tmux-stale-socket': {exit: ExitCode.failure, meaning: 'the socket file is left over from a server that is gone (pk doctor --fix)'},
  'tmux-unresponsive': {exit: ExitCode.failure, meaning: 'the tmux server did not answer in time (stopped?)'},
  'unknown-agent': {exit: ExitCode.usage, meaning: 'no preset of that name: the message lists them'},
  'unsafe-socket-dir': {exit: ExitCode.refused, meaning: 'the socket directory (or one above it) is writable by another user'},
  'unsafe-state-dir': {exit: ExitCode.refused, meaning: 'the state directory is not yours, or open to others'},
  'unwritable-value': {exit: ExitCode.usage, meaning: 'a value pk would write into a systemd unit or a crontab holds a line end or a control character'},
  unverified: {exit: ExitCode.refused, meaning: 'the session cannot be verified against a live pane from here'},
  'unverified-server': {exit: ExitCode.refused, meaning: 'the tmux server cannot be verified as yours and of this namespace'},
  'worktree-exists': {exit: ExitCode.usage, meaning: 'the worktree path exists already'},
} as const satisfies Record<string, {exit: ExitCodeValue; meaning: string}>

export type ErrorCode = keyof typeof ERRORS
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[]

/**
 * The one error type lib code throws on purpose. `code` is a stable machine-readable name, the exit
 * comes from the catalog, and the message is written for a person.
 */
export class PkError extends Error {
  readonly exitCode: ExitCodeValue
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'PkError'
    this.exitCode = ERRORS[code].exit
  }
}

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

/**
 * Pure: text safe to print on a terminal that may keep its colours: like terminalSafe, but a colour
 * sequence (SGR: ESC [ digits m) stays. Every other escape (a clipboard write, OSC 52; a title; a cursor
 * move) loses its ESC, so text pk did not write (a recorded cwd, a label, a pane's line) cannot act on the
 * terminal, whichever presenter printed it.
 */
export function terminalSafeColour(text: string): string {
  // eslint-disable-next-line no-control-regex -- these are exactly what is replaced
  return text.replaceAll(/\u001B(?!\[[0-9;:]*m)|[\u0000-\u0008\u000B-\u001A\u001C-\u001F\u007F-\u009F]/g, '?')
}

/**
 * How a command ended when it did not throw: `ok`; `not-all-ok` (doctor found problems, a notification
 * was not delivered, some sessions were not restored: exit 1); `firstFailure` (of several ids, some failed:
 * the first failure's exit, by the catalog); `childExit` (pk handed the terminal to tmux or ssh: their status).
 */
export type Outcome = 'ok' | 'not-all-ok' | {firstFailure: unknown} | {childExit: number}

/** Pure: the exit status of an outcome. */
export function exitOf(outcome: Outcome): number {
  if (outcome === 'ok') return ExitCode.ok
  if (outcome === 'not-all-ok') return ExitCode.failure
  if ('childExit' in outcome) return outcome.childExit
  return describeError(outcome.firstFailure).exitCode
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
