import {ChildProcess, spawn} from 'node:child_process'
import {appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {isAbsolute, join} from 'node:path'

import type {SessionRow} from '../../src/lib/model/contract.js'
import {LsJson, RunResult, Sandbox, Watcher, startWatcher, waitFor} from '../helpers/sandbox.js'
import {AgentDriver} from './drivers.js'
import {Look, ScreenLog, Told, parseTold} from './report.js'

/**
 * The agents' check, one agent at a time: the real agent from the pinned (or the newest) release, in a pk
 * sandbox (its own tmux, state directory and HOME), driven by pk's own verbs through a fake model API on
 * 127.0.0.1. Every look it takes (pk's row and the pane's screen) is kept; a step that waits in vain says
 * which agent and release, what it waited for, what pk said, and the screen it saw.
 */

/** What `npm run agents` (test/agents/run.mjs) hands the check: where the agents are, and which releases. */
export interface Installed {
  /** The folder of the agents' programs (node_modules/.bin of the install). */
  bin: string
  /** A node the agents that need Node 22+ run on (Pi 1.6, Claude Code 2.1). */
  node: string
  /** Each agent's release as installed, and as pinned in test/agents/package.json. */
  versions: Record<string, string>
  pinned: Record<string, string>
  /** Where the screens and the report go. */
  out: string
  /** Where opencode keeps the provider packages it fetches on first use, across runs. */
  cache: string
}

export function installedAgents(): Installed | null {
  const env = process.env
  if (!env.PK_AGENTS_BIN || !env.PK_AGENTS_NODE || !env.PK_AGENTS_OUT) return null
  return {
    bin: env.PK_AGENTS_BIN,
    node: env.PK_AGENTS_NODE,
    versions: JSON.parse(env.PK_AGENTS_VERSIONS ?? '{}') as Record<string, string>,
    pinned: JSON.parse(env.PK_AGENTS_PINNED ?? '{}') as Record<string, string>,
    out: env.PK_AGENTS_OUT,
    cache: env.PK_AGENTS_CACHE ?? join(env.PK_AGENTS_OUT, 'cache'),
  }
}

/** The fake model API (test/agents/fake-api.mjs), run as a child of the check. */
export class FakeApi {
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(): Promise<FakeApi> {
    const child = spawn(process.execPath, [join(import.meta.dirname, 'fake-api.mjs')], {env: {...process.env, PORT: '0'}, stdio: ['ignore', 'pipe', 'inherit']})
    let out = ''
    child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')))
    // (a node starting on a loaded machine took more than 10 s: a setup that fails is a failed check, said)
    const port = await waitFor('the fake API to listen', () => /^(\d+)\n/.exec(out)?.[1], 60_000)
    return new FakeApi(child, Number(port))
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  async behave(behavior: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${this.url}/__fake/behavior`, {method: 'POST', body: JSON.stringify(behavior)})
    if (!res.ok) throw new Error(`the fake API refused ${JSON.stringify(behavior)}: ${res.status}`)
  }

  async log(): Promise<FakeRequest[]> {
    return (await (await fetch(`${this.url}/__fake/log`)).json()) as FakeRequest[]
  }

  /** The conversation's own requests (not titles or other side requests). */
  async turns(): Promise<FakeRequest[]> {
    return (await this.log()).filter((r) => !r.side)
  }

  stop(): void {
    this.child.kill('SIGKILL')
  }
}

export interface FakeRequest {
  n: number
  t: number
  api: string
  side: boolean
  users: string[]
  toolResult: boolean
  toolResults: string[]
  answer?: string
}

/** Pure: how many of the user's messages in the newest request of the conversation hold `text` (a message taken once: 1). */
export function timesSent(turns: FakeRequest[], text: string): number {
  const last = turns.at(-1)
  return last === undefined ? 0 : last.users.filter((u) => u.includes(text)).length
}

export interface ExpectOptions {
  attention?: boolean
  /** How long to wait (ms). */
  timeoutMs?: number
  /** The fixture this screen stands for (STATE.WHAT), compared with the release's captured one. */
  fixture?: string
  /** More than the state: the row and the screen must also pass this. */
  also?: (row: SessionRow, screen: string) => boolean
}

/**
 * What pk said of a session over one wait, as runs of the same word: "working (hook) 16 s, then idle (pane)
 * 2 s", so that a failure says what pk said all along, not only at its last look.
 */
export class Said {
  private runs: {what: string; from: number; to: number}[] = []
  saw(look: Look): void {
    const what = look.row === null ? 'no such session' : `${look.row.state} (${look.row.stateSource})`
    const run = this.runs.at(-1)
    if (run?.what === what) run.to = look.at
    else this.runs.push({what, from: look.at, to: look.at})
  }
  toString(): string {
    return `pk said ${this.runs.map((r) => `${r.what} ${Math.round((r.to - r.from) / 1000)} s`).join(', then ')}`
  }
}

export class AgentLab {
  readonly sb = new Sandbox()
  readonly work: string
  readonly toldFile: string
  readonly screens: ScreenLog
  fake!: FakeApi
  watcher: Watcher | null = null
  /** The step being run, for what is kept and what a failure says. */
  step = 'start'
  /** A step failed: the later ones of this agent are skipped (they would fail for the same reason). */
  broken: string | null = null

  constructor(
    readonly driver: AgentDriver,
    readonly installed: Installed,
  ) {
    this.work = join(this.sb.root, 'work')
    mkdirSync(this.work)
    // (a second folder, for a second window of the agent)
    mkdirSync(`${this.work}-other`)
    this.toldFile = join(this.sb.root, 'told')
    writeFileSync(this.toldFile, '')
    this.screens = new ScreenLog(join(installed.out, `${driver.name}-${this.version}`), this.sb.root)
  }

  get version(): string {
    return this.installed.versions[this.driver.name] ?? 'unknown'
  }

  async start(): Promise<void> {
    this.fake = await FakeApi.start()
    const {env} = this.sb
    // The agents' programs, and a node new enough for those that need one, before everything else.
    env.PATH = `${join(this.installed.node, '..')}:${this.installed.bin}:${env.PATH}`
    env.XDG_CACHE_HOME = this.installed.cache
    Object.assign(env, this.driver.env(this.fake.url))
    this.driver.setup({home: this.sb.home, work: this.work, api: this.fake.url, version: this.version})
    // Told: every notification through a command that appends a line, and nothing else.
    const config = join(this.sb.home, '.config', 'pk')
    mkdirSync(config, {recursive: true})
    const line = `printf '%s|%s|%s|%s\\n' "$PK_ID" "$PK_STATE" "$PK_REASON" "$PK_SINCE" >> '${this.toldFile}'`
    writeFileSync(join(config, 'config.json'), JSON.stringify({notify: [{command: ['sh', '-c', line]}]}))
    const setup = await this.sb.pk(['setup', this.driver.preset])
    if (setup.code !== 0) throw new Error(`pk setup ${this.driver.preset} exited ${setup.code}: ${setup.stderr}`)
    // A watcher runs throughout, as the dashboard or pk serve would: screens no hook reports are told by it.
    this.watcher = startWatcher(this.sb.env)
  }

  async finish(): Promise<void> {
    this.watcher?.child.kill('SIGTERM')
    this.fake?.stop()
    this.sb.cleanup()
  }

  pk(args: string[], opts: {input?: string} = {}): Promise<RunResult> {
    return this.sb.pk(args, {cwd: this.work, ...opts})
  }

  /** `pk bg` of the agent in the work folder (or `cwd`): its id. */
  async bg(name: string, cwd = this.work): Promise<string> {
    const result = await this.pk(['bg', this.driver.preset, '--name', name, '--cwd', cwd, '--json'])
    if (result.code !== 0) throw new Error(`pk bg ${this.driver.preset} exited ${result.code}: ${result.stderr}`)
    return (JSON.parse(result.stdout) as {session: SessionRow}).session.id
  }

  async row(id: string): Promise<SessionRow | undefined> {
    const ls = await this.sb.pkJson<LsJson>(['ls', '--all'])
    return ls.sessions.find((r) => r.id === id)
  }

  /** The pane as it shows now (plain text), or '' for a session with no pane. */
  screen(row: SessionRow | undefined): string {
    if (row?.tmux == null) return ''
    const shown = this.sb.tmuxTry(row.tmux.socket, 'capture-pane', '-p', '-t', row.tmux.pane)
    return shown.code === 0 ? shown.stdout : ''
  }

  /** One look: pk's row and the pane, kept. */
  async look(id: string): Promise<Look> {
    const row = await this.row(id)
    const look = {at: Date.now(), step: this.step, row: row ?? null, screen: this.screen(row)}
    this.screens.keep(look)
    return look
  }

  /**
   * Until pk says `state` (and the rest of `opts`) of the session: the look that said it. On its deadline, the
   * error names the agent and release, the step, what pk said and the screen it saw.
   */
  async expectState(id: string, state: string, opts: ExpectOptions = {}): Promise<Look> {
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000)
    let last: Look | null = null
    const said = new Said()
    for (;;) {
      last = await this.look(id)
      const row = last.row
      said.saw(last)
      const ok =
        row !== null &&
        row.state === state &&
        (opts.attention === undefined || row.attention === opts.attention) &&
        this.ownSays(row, state) &&
        (opts.also?.(row, last.screen) ?? true)
      if (ok) {
        if (opts.fixture) this.screens.stands(`${state}.${opts.fixture}`, last)
        return last
      }
      if (Date.now() > deadline) {
        // The screen that should have read so: the drift report compares it with the pinned release's.
        if (opts.fixture) this.screens.stands(`${state}.${opts.fixture}`, last, true)
        const whatFailed = opts.also === undefined ? '' : ` and the screen to show what this step looks for`
        throw this.failure(`pk to say ${state}${opts.attention === undefined ? '' : ` with attention ${opts.attention}`}${whatFailed} (${said})`, last)
      }
      await new Promise((r) => setTimeout(r, 250))
    }
  }

  /**
   * Whether the agent's own word (where it keeps one: AgentDriver.ownState) says `state` too, for the states
   * it can name; a limit or an exit is the screen's and the kernel's. pk's row must then have it from there
   * or from a report that agrees.
   */
  ownSays(row: SessionRow, state: string): boolean {
    if (this.driver.ownState === undefined || row.pid === null || !['working', 'waiting', 'idle'].includes(state)) return true
    const own = this.driver.ownState(this.sb.home, row.pid)
    this.lastOwn = own
    return own === state && (row.stateSource === 'agent' || row.stateSource === 'hook')
  }

  /** What the agent last said of itself in a look (for a failure's words). */
  lastOwn: string | null = null

  /** Looks for `ms`: every one must say `state` (a state held, not one look's luck). */
  async holds(id: string, state: string, ms: number): Promise<void> {
    const until = Date.now() + ms
    while (Date.now() < until) {
      const look = await this.look(id)
      if (look.row?.state !== state) throw this.failure(`pk to keep saying ${state} for ${ms / 1000} s`, look)
      await new Promise((r) => setTimeout(r, 250))
    }
  }

  /** An error that says what was waited for, what pk said, and the screen (as kept). */
  failure(what: string, look: Look | null): Error {
    const row = look?.row
    const said =
      row == null
        ? 'no such session'
        : `${row.state} (from ${row.stateSource}), attention ${row.attention}${row.attentionSince ? ` since ${row.attentionSince}` : ''}${this.driver.ownState ? `, the agent's own record ${this.lastOwn ?? 'none'}` : ''}`
    const screen = (look?.screen ?? '').split('\n').filter((l) => l.trim() !== '')
    return new Error(
      `${this.driver.name} ${this.version}, step "${this.step}": waited for ${what}; pk said ${said}${this.believed(row?.record ?? null)}; the screen it saw (${this.screens.last ?? 'not kept'}):\n` +
        screen.slice(-18).join('\n'),
    )
  }

  /** What the session's record holds of its last report and screen episode (the dates events are told by). */
  believed(record: string | null): string {
    if (record === null) return ''
    try {
      const file = isAbsolute(record) ? record : join(this.sb.stateDir, 'sessions', record)
      const kept = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
      return `; its record: status ${JSON.stringify(kept.status ?? null)}, screen episode ${JSON.stringify(kept.observed ?? null)}`
    } catch (error) {
      return `; its record unreadable (${error instanceof Error ? error.message : String(error)})`
    }
  }

  /** The notifications so far. */
  told(): Told[] {
    return parseTold(readFileSync(this.toldFile, 'utf8'))
  }

  /** Until the session was told of `count` events since `since` (ms); the tellings. */
  async toldSince(id: string, since: number, count = 1, timeoutMs = 30_000): Promise<Told[]> {
    const of = () => this.told().filter((t) => t.id === id && Date.parse(t.since) >= since)
    try {
      await waitFor(`${count} telling(s)`, () => of().length >= count, timeoutMs)
    } catch {
      const all = this.told().filter((t) => t.id === id)
      throw this.failure(`${count} notification(s) since ${new Date(since).toISOString()} (told of it: ${JSON.stringify(all)})`, await this.look(id))
    }
    return of()
  }

  /** Each event told at most once: no (session, since) told twice. */
  toldTwice(): Told[] {
    const seen = new Set<string>()
    return this.told().filter((t) => {
      const key = `${t.id} ${t.since}`
      if (seen.has(key)) return true
      seen.add(key)
      return false
    })
  }

  /** hook.log's lines that put an event of this agent on nobody, but for those the agent's driver expects. */
  strays(): string[] {
    const log = join(this.sb.stateDir, 'hook.log')
    if (!existsSync(log)) return []
    return (
      readFileSync(log, 'utf8')
        .split('\n')
        // (an agent's events; pk's own watchers' looks at a session that has gone since are not)
        .filter((line) => / nobody's /.test(line) && !/ pk-screen event /.test(line) && !this.driver.expectedStrays.some((re) => re.test(line)))
    )
  }

  /** Type as a person does, into the session's pane (not through pk). */
  async typeByHand(id: string, keys: string[], literal = true): Promise<void> {
    const row = await this.row(id)
    if (row?.tmux == null) throw new Error(`session ${id} has no pane`)
    this.sb.tmux(row.tmux.socket, 'send-keys', '-t', row.tmux.pane, ...(literal ? ['-l'] : []), ...keys)
  }

  note(text: string): void {
    appendFileSync(join(this.screens.dir, 'notes.txt'), `${this.step}: ${text}\n`)
  }
}
