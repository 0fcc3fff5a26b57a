import {PkError} from '../errors.js'
import {TmuxCommandError, runTmux, tmuxArgv} from './exec.js'
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

/**
 * Pure: `-e NAME=value` for the caller's environment. New panes inherit the tmux *server's* environment,
 * so without this an agent would miss the caller's PATH, API keys or virtualenv.
 */
export function environmentFlags(env: Record<string, string | undefined>): string[] {
  const flags: string[] = []
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || NOT_PASSED.has(name) || name === '' || name.includes('=')) continue
    flags.push('-e', `${name}=${value}`)
  }
  return flags
}

export interface NewSession {
  paneId: string
  panePid: number
  sessionId: string
  serverPid: number
  sessionName: string
}

const NEW_SESSION_FORMAT = ['#{pane_id}', '#{pane_pid}', '#{session_id}', '#{pid}', '#{session_name}'].join(FIELD_SEPARATOR)

export function parseNewSession(stdout: string): NewSession | null {
  const f = stdout.replace(/\n$/, '').split(FIELD_SEPARATOR)
  if (f.length !== 5 || !/^%\d+$/.test(f[0]!) || !/^\d+$/.test(f[1]!) || !/^\$\d+$/.test(f[2]!) || !/^\d+$/.test(f[3]!)) return null
  return {paneId: f[0]!, panePid: Number(f[1]), sessionId: f[2]!, serverPid: Number(f[3]), sessionName: f[4]!}
}

/**
 * Start argv in a new detached session, in one tmux call: the session starts on a placeholder, the window
 * gets remain-on-exit, and only then respawn-pane replaces the placeholder with the real command, so even
 * a command that exits instantly leaves its pane, exit status and output behind to report.
 * `env --` in front guarantees tmux gets more than one argument and so execs the argv directly instead of
 * handing one string to a shell; env then execs the program, so the pane process *is* the agent.
 */
export async function newSession(opts: {
  socket: string
  name: string
  cwd: string
  argv: string[]
  env: Record<string, string | undefined>
}): Promise<NewSession> {
  for (let attempt = 1; attempt <= 50; attempt++) {
    const name = attempt === 1 ? opts.name : `${opts.name}-${attempt}`
    const argv = tmuxArgv(opts.socket, [
      ['new-session', '-d', '-s', name, '-c', opts.cwd, '--', 'sleep', '2147483647'],
      ['set-option', '-w', 'remain-on-exit', 'on'],
      ['respawn-pane', '-k', '-c', opts.cwd, ...environmentFlags(opts.env), '--', 'env', '--', ...opts.argv],
      ['display-message', '-p', NEW_SESSION_FORMAT],
    ])
    try {
      const {stdout, stderr} = await runTmux(argv)
      const created = parseNewSession(stdout)
      // tmux can exit 0 without starting anything (for example when it cannot create the socket).
      if (!created) throw new PkError('tmux-failed', `tmux did not start the session: ${stderr.trim() || JSON.stringify(stdout)}`)
      return created
    } catch (error) {
      if (error instanceof TmuxCommandError && /duplicate session/.test(error.stderr)) continue
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
export async function inspectPane(socket: string, paneId: string, lines = 20): Promise<DeadPane> {
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

export async function killSession(socket: string, sessionId: string): Promise<void> {
  await runTmux(tmuxArgv(socket, [['kill-session', '-t', sessionId]])).catch(() => {})
}

export async function setRemainOnExit(socket: string, paneId: string, value: 'on' | 'failed'): Promise<void> {
  await runTmux(tmuxArgv(socket, [['set-option', '-w', '-t', paneId, 'remain-on-exit', value]]))
}
