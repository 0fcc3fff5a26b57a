import {PaneId, TmuxSessionId, isPaneId, isTmuxSessionId} from '../model/ids.js'
import {randomBytes} from '../model/random.js'

import {PkError} from '../model/errors.js'
import {TmuxCommandError, runTmux, tmuxArgv, tmuxScript} from './exec.js'
import {FIELD_SEPARATOR} from './panes.js'

/** Pure: a label made safe as a tmux session name (tmux itself mangles `.` and `:`; we keep it plain). */
export function safeSessionName(label: string): string {
  const name = label
    .normalize('NFKC')
    .replaceAll(/[^\w-]+/g, '-')
    .replaceAll(/-{2,}/g, '-')
    .replaceAll(/^-+|-+$/g, '')
    .slice(0, 40)
  return name === '' ? 'pk' : name
}

/** Variables that describe the caller's terminal or tmux client, not what the agent needs. */
const NOT_PASSED = new Set(['TMUX', 'TMUX_PANE', 'COLUMNS', 'LINES', '_'])

/** Pure: the caller's environment as it should reach the pane. */
export function paneEnvironment(env: Record<string, string | undefined>): [string, string][] {
  const pairs: [string, string][] = []
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || NOT_PASSED.has(name) || name === '' || name.includes('=') || name.includes('\0') || value.includes('\0')) continue
    pairs.push([name, value])
  }
  return pairs
}

/** Pure: `-e NAME=value` words for new-session. They go to tmux through a pipe, never on a command line. */
export function environmentFlags(env: Record<string, string | undefined>): string[] {
  return paneEnvironment(env).flatMap(([name, value]) => ['-e', `${name}=${value}`])
}

const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * Pure: variables the pane would inherit from the server's global environment that the caller does not
 * have, so the gate can remove them and the agent gets the caller's environment exactly. (Only names a
 * shell can unset; tmux sets TMUX and TMUX_PANE itself.)
 */
export function variablesToUnset(globalNames: string[], env: Record<string, string | undefined>): string[] {
  const wanted = new Set(paneEnvironment(env).map(([name]) => name))
  return globalNames.filter((name) => SHELL_NAME.test(name) && !wanted.has(name) && name !== 'TMUX' && name !== 'TMUX_PANE')
}

/** Pure: names in `show-environment -g` output (`NAME=value`, or `-NAME` for a removed one). */
export function parseEnvironmentNames(text: string): string[] {
  const names: string[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('-')) continue
    const at = line.indexOf('=')
    if (at > 0) names.push(line.slice(0, at))
  }
  return names
}

/**
 * The pane's first process: a POSIX shell that waits for pk's go (SIGUSR1) and then execs the command,
 * so the agent keeps the pid and start time pk recorded before it ever ran. If pk is killed before it
 * recorded the session, no go comes: the gate gives up after a while and the command never runs, so no
 * agent can run without a record. Arguments: the sleep program, the seconds to wait, then the argv.
 */
export const GATE_SCRIPT = [
  's=$1; t=$2; shift 2',
  'for n in ${PK_GATE_UNSET-}; do unset "$n"; done',
  'unset PK_GATE_UNSET',
  '"$s" "$t" & p=$!',
  `trap 'kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; trap - USR1; exec "$@"' USR1`,
  'wait "$p"',
  'echo "pk: pk bg stopped before it had recorded this session; the command was not started" >&2',
  'exit 125',
].join('\n')

export const GATE_NAME = 'pk-gate'
/** Exit status of a gate whose go never came. */
export const GATE_GAVE_UP = 125
export const GATE_SECONDS = 30

/** Pure: the pane's argv: the gate, then the command. */
export function gateArgv(sleepProgram: string, seconds: number, argv: string[]): string[] {
  return ['/bin/sh', '-c', GATE_SCRIPT, GATE_NAME, sleepProgram, String(seconds), ...argv]
}

/** Pure: a path as tmux's `-c` reads it: the start directory is a format, so `#` is written `##`. */
export const formatLiteral = (text: string) => text.replaceAll('#', '##')

export interface NewSession {
  paneId: PaneId
  panePid: number
  sessionId: TmuxSessionId
  serverPid: number
  sessionName: string
}

const NEW_SESSION_FORMAT = ['#{pane_id}', '#{pane_pid}', '#{session_id}', '#{pid}', '#{session_name}'].join(FIELD_SEPARATOR)

export function parseNewSession(stdout: string): NewSession | null {
  const f = stdout.replace(/\n$/, '').split(FIELD_SEPARATOR)
  const [paneId, panePid, sessionId, serverPid, sessionName] = f as [string, string, string, string, string]
  if (f.length !== 5 || !isPaneId(paneId) || !/^\d+$/.test(panePid) || !isTmuxSessionId(sessionId) || !/^\d+$/.test(serverPid)) return null
  return {paneId, panePid: Number(panePid), sessionId, serverPid: Number(serverPid), sessionName}
}

/** Pure: the session names to try, in order: the label, numbered variants, then ones no label can take. */
export function candidateNames(name: string, random: () => string = () => randomBytes(3).toString('hex')): string[] {
  const names = [name]
  for (let n = 2; n <= 5; n++) names.push(`${name}-${n}`)
  for (let n = 0; n < 5; n++) names.push(`${name.slice(0, 32)}-${random()}`)
  return names
}

/** The names in the server's global environment, or null when no server answers there (pk starts it). */
async function globalEnvironmentNames(socket: string): Promise<string[] | null> {
  try {
    return parseEnvironmentNames((await runTmux(tmuxArgv(socket, [['show-environment', '-g']]))).stdout)
  } catch (error) {
    if (error instanceof TmuxCommandError && (error.kind === 'no-server' || error.kind === 'stale-socket')) return null
    throw error
  }
}

/**
 * What the agents need of a tmux server, set only on a server pk starts itself (never on one of yours):
 * Pi warns when extended keys are off (it cannot tell Shift+Enter from Enter), Claude Code when focus
 * events are off. Plus the detach time (see DETACH_HOOK).
 */
const OWN_SERVER_OPTIONS = [
  ['set-option', '-s', 'extended-keys', 'on'],
  ['set-option', '-g', 'focus-events', 'on'],
]

/**
 * When a client detaches, the session notes the time (`@pk-detached`, listed with the panes): an event that
 * happened while someone was attached and looking has been seen, and raises no attention after they
 * leave (tmux itself keeps only when a client last attached). One fixed hook index, so setting it again
 * replaces it; a failure changes nothing but that date.
 */
const DETACH_HOOK_NAME = 'client-detached[4242]'

/** How long a page's look at a session lasts once said (the page says it every 2 s while it is visible). */
export const VIEW_LEASE_S = 5

/**
 * A page of pk serve shows the session, visible: `@pk-viewed` is the time until which someone looks at it
 * (now and a lease), listed with the panes like the detach time, so that what happens while the page shows
 * it is seen, as in an attached client. Whether it was noted.
 */
export async function markViewed(socket: string, sessionId: TmuxSessionId): Promise<boolean> {
  const until = Math.floor(Date.now() / 1000) + VIEW_LEASE_S
  return runTmux(tmuxArgv(socket, [['set-option', '-t', sessionId, '@pk-viewed', String(until)]]), {deadlineMs: 2000}).then(
    () => true,
    () => false,
  )
}
const DETACH_HOOK = 'run-shell -b "tmux -S #{q:socket_path} set-option -t #{q:session_id} @pk-detached $(date +%s) >/dev/null 2>&1"'

/**
 * Start `argv` behind the gate in a new detached session. The client's command line is only
 * `start-server ; source-file -`: the session, its environment (the caller's, as `-e` words) and the
 * command reach tmux through a pipe, because a tmux server keeps the argv of the client that started it
 * for its whole life, visible to every user in `ps`. Only the new session is ever named in the script,
 * and only the one command runs, so a name that is taken fails the call instead of reaching another
 * session.
 */
export async function newSession(opts: {
  socket: string
  name: string
  cwd: string
  argv: string[]
  env: Record<string, string | undefined>
  sleepProgram: string
  /**
   * The argv prefix that starts a new server in a scope of its own (systemd-run), asked only when no
   * server runs at the socket; null for none. The caller decides (the tmux adapter knows no service manager).
   */
  scope?: () => Promise<string[] | null>
}): Promise<NewSession> {
  const existing = await globalEnvironmentNames(opts.socket)
  let wrap = existing === null ? ((await opts.scope?.()) ?? undefined) : undefined
  const unset = variablesToUnset(existing ?? [], opts.env)
  const env = environmentFlags(unset.length > 0 ? {...opts.env, PK_GATE_UNSET: unset.join(' ')} : opts.env)
  const names = candidateNames(opts.name)
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!
    const script = tmuxScript([
      ...(existing === null ? [...OWN_SERVER_OPTIONS, ['set-hook', '-g', DETACH_HOOK_NAME, DETACH_HOOK]] : []),
      [
        'new-session',
        '-d',
        '-s',
        name,
        '-c',
        formatLiteral(opts.cwd),
        '-P',
        '-F',
        NEW_SESSION_FORMAT,
        ...env,
        '--',
        ...gateArgv(opts.sleepProgram, GATE_SECONDS, opts.argv),
      ],
    ])
    try {
      const {stdout, stderr} = await runTmux(['-S', opts.socket, 'start-server', ';', 'source-file', '-'], {input: script, wrap})
      const created = parseNewSession(stdout)
      // tmux can exit 0 without starting anything (for example when it cannot create the socket).
      if (!created) throw new PkError('tmux-failed', `tmux did not start the session: ${stderr.trim() || JSON.stringify(stdout)}`)
      return created
    } catch (error) {
      if (error instanceof TmuxCommandError && /duplicate session/.test(error.stderr)) continue
      // The scope failed to start (systemd-run missing, or a user manager whose bus fails) and no server
      // runs: start tmux as it starts without one, rather than not at all.
      if (wrap !== undefined && (await globalEnvironmentNames(opts.socket)) === null) {
        wrap = undefined
        i--
        continue
      }
      throw error
    }
  }
  throw new PkError('name-taken', `could not find a free tmux session name for ${opts.name}`)
}

export interface DeadPane {
  dead: boolean
  status: number | null
  signal: number | null
  output: string
}

/** Exit status and the last lines of a pane, in one tmux call. */
export async function inspectPane(socket: string, paneId: PaneId, lines = 20): Promise<DeadPane> {
  const marker = `pk-${process.pid}-capture`
  const {stdout} = await runTmux(
    tmuxArgv(socket, [
      ['display-message', '-p', '-t', paneId, ['#{pane_dead}', '#{pane_dead_status}', '#{pane_dead_signal}'].join(FIELD_SEPARATOR)],
      ['display-message', '-p', marker],
      ['capture-pane', '-p', '-J', '-t', paneId, '-S', `-${lines}`],
    ]),
  )
  const newline = stdout.indexOf('\n')
  const [dead, status, signal] = stdout.slice(0, newline).split(FIELD_SEPARATOR)
  const number = (text: string | undefined) => (text && /^\d+$/.test(text) ? Number(text) : null)
  const rest = stdout.slice(newline + 1)
  const output = rest.startsWith(marker + '\n') ? rest.slice(marker.length + 1) : rest
  return {dead: dead === '1', status: number(status), signal: number(signal), output: paneTail(output)}
}

/** Pure: captured pane text without tmux's own "Pane is dead" banner and trailing blank lines. */
export function paneTail(captured: string): string {
  return captured
    .split('\n')
    .filter((line) => !/^Pane is dead( \(|$)/.test(line))
    .join('\n')
    .replace(/\s+$/, '')
}

export async function killSession(socket: string, sessionId: TmuxSessionId): Promise<void> {
  await runTmux(tmuxArgv(socket, [['kill-session', '-t', sessionId]])).catch(() => {})
}

export async function setRemainOnExit(socket: string, paneId: PaneId, value: 'on' | 'failed' | 'off'): Promise<void> {
  await runTmux(tmuxArgv(socket, [['set-option', '-w', '-t', paneId, 'remain-on-exit', value]]))
}
