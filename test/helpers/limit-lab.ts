import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {SessionRow} from '../../src/lib/model/contract.js'
import {PANE_FIXTURES} from './pane-fixtures.js'
import {LsJson, PK_BIN, Sandbox, waitFor} from './sandbox.js'
import {installLimitStandin} from './standins.js'

/**
 * Sessions at a usage limit, for the tests of issue 64: a sandbox with a notification log, and the limit
 * stand-in (test/helpers/limit-standin.cjs) started as Claude Code, Codex or Gemini CLI on one of their
 * captured limit screens, its reset written in by the test.
 */

/** One test's own sandbox, stand-in files and notification log (the tests run at once: each waits on a clock). */
export class Lab {
  readonly sb = new Sandbox()
  readonly told = join(this.sb.root, 'told')
  readonly submitted = join(this.sb.root, 'submitted')
  readonly keys = join(this.sb.root, 'keys')
  env: NodeJS.ProcessEnv = {}

  constructor() {
    mkdirSync(join(this.sb.home, '.config', 'pk'), {recursive: true})
    const notify = [{command: ['sh', '-c', 'echo "$PK_ID $PK_STATE $PK_REASON" >> "$0"', this.told]}]
    writeFileSync(join(this.sb.home, '.config', 'pk', 'config.json'), JSON.stringify({notify}))
  }

  /** Start the stand-in as `agent` on a captured limit screen (its reset already written in); its id. */
  async start(agent: 'claude' | 'codex' | 'gemini', limitScreen: string, extra: NodeJS.ProcessEnv = {}, bgFlags: string[] = []): Promise<string> {
    const file = join(this.sb.root, `${agent}-limit.txt`)
    writeFileSync(file, limitScreen)
    const release = {codex: 'codex-0.171.0', claude: 'claude-2.1.332', gemini: 'gemini-0.61.0'}[agent]
    this.env = {
      PATH: installLimitStandin(this.sb.root, agent),
      TZ: 'UTC',
      STANDIN_PK: PK_BIN,
      STANDIN_LIMIT_SCREEN: file,
      STANDIN_IDLE_SCREEN: join(PANE_FIXTURES, `${release}.idle.turn-done.txt`),
      STANDIN_WORKING_SCREEN: join(PANE_FIXTURES, `${release}.${{codex: 'working.busy', claude: 'working.spinner', gemini: 'working.thinking'}[agent]}.txt`),
      STANDIN_SUBMITTED: this.submitted,
      STANDIN_KEYS: this.keys,
      ...extra,
    }
    const r = await this.sb.bgRow([...bgFlags, agent], {env: this.env})
    this.sb.tmux(this.sb.pkSocket, 'resize-window', '-t', r.tmux!.pane, '-x', '150', '-y', '40')
    return r.id
  }

  /** Codex at its limit (reset `reset`), each turn meeting it again while the returned file exists. */
  async codexAgain(reset: Date, extra: NodeJS.ProcessEnv = {}): Promise<{id: string; again: string}> {
    const again = join(this.sb.root, 'again')
    writeFileSync(again, '')
    return {id: await this.start('codex', codexLimitScreen(reset), {STANDIN_LIMITED_AGAIN: again, ...extra}), again}
  }

  pk(args: string[]) {
    return this.sb.pk(args, {env: this.env})
  }

  async row(id: string): Promise<SessionRow | undefined> {
    return (await this.sb.pkJson<LsJson>(['ls'], {env: this.env})).sessions.find((s) => s.id === id)
  }

  /** Until it is listed at its limit, dated (a hook's report or a watcher's look says since when: a screen alone does not). */
  limited(id: string, also: (r: SessionRow) => boolean = (r) => r.limit!.since !== null): Promise<SessionRow> {
    return waitFor(
      'listed at its limit',
      async () => {
        const r = await this.row(id)
        return r?.state === 'limited' && r.limit !== null && also(r) ? r : undefined
      },
      20_000,
    )
  }
}

/** A test with a lab of its own, cleaned up after it whatever happens. */
export const inLab = (test: (lab: Lab) => Promise<void>) => async () => {
  const lab = new Lab()
  try {
    await test(lab)
  } finally {
    lab.sb.cleanup()
  }
}

export const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [])
export const fixture = (name: string) => readFileSync(join(PANE_FIXTURES, name), 'utf8')
export const readdir = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : [])

/** A reset on the next whole minute at least `ms` from now (the agents show it to the minute). */
export const resetIn = (ms: number) => new Date(Math.ceil((Date.now() + ms) / 60_000) * 60_000)
const h12 = (d: Date) => `${d.getUTCHours() % 12 || 12}:${String(d.getUTCMinutes()).padStart(2, '0')}`
/** Codex's clock ("5:10 AM"), Claude Code's ("5:10am"), in UTC (the stand-ins run with TZ=UTC). */
export const codexClock = (d: Date) => `${h12(d)} ${d.getUTCHours() < 12 ? 'AM' : 'PM'}`
export const claudeClock = (d: Date) => `${h12(d)}${d.getUTCHours() < 12 ? 'am' : 'pm'}`

/** Codex 0.171.0's captured limit screen, its last reset made `reset` (its clock, in UTC). */
export const codexLimitScreen = (reset: Date) => fixture('codex-0.171.0.limited.usage-limit.txt').replace('Dec 9th, 2026 6:11 AM', codexClock(reset))
