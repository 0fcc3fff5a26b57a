import {chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LsJson, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'

/**
 * A screen that only looks like a dialog is not one. Agents at their prompt that show text shaped like their
 * own permission dialog (a README, a file's content) are not listed as waiting, and pk answer types nothing
 * into them; a look-alike list inside the command a real dialog shows never picks the keys.
 */
let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

/** A stand-in of `agent` drawing a screen from test/fixtures/panes and taking that agent's dialog keys (test/helpers/dialog-standin.cjs). */
async function showing(agent: string, fixture: string, extra: NodeJS.ProcessEnv = {}) {
  const bin = join(sb.root, `bin-${agent}`)
  mkdirSync(bin, {recursive: true})
  copyFileSync(join(ROOT, 'test', 'helpers', 'dialog-standin.cjs'), join(bin, agent))
  chmodSync(join(bin, agent), 0o755)
  const answered = join(sb.root, `answered-${agent}`)
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    STANDIN_SCREEN: join(ROOT, 'test', 'fixtures', 'panes', fixture.endsWith('.ansi') ? fixture : `${fixture}.txt`),
    STANDIN_KEYS: agent,
    STANDIN_ANSWERED: answered,
    ...extra,
  }
  const id = (await sb.pk(['bg', agent, '--', '--x'], {env})).stdout.trim()
  const row = (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)!
  sb.tmux(sb.pkSocket, 'resize-window', '-t', row.tmux!.pane, '-x', '120', '-y', '35')
  // Drawn (its last line on the screen) before anything is judged.
  // (as tmux shows it without colours: a screen captured with them holds their sequences)
  // eslint-disable-next-line no-control-regex -- SGR sequences
  const plain = readFileSync(env.STANDIN_SCREEN, 'utf8').replaceAll(/\u001B\[[0-9;:]*m/g, '')
  const last = plain.trimEnd().split('\n').at(-1)!.trim().slice(0, 20)
  await waitFor('the screen drawn', () => sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', row.tmux!.pane).includes(last), 15_000)
  return {id, taken: () => (existsSync(answered) ? readFileSync(answered, 'utf8').trim().split('\n').map(Number) : [])}
}

describe('text that looks like a dialog', () => {
  it.each([
    ['claude', 'claude.idle.dialog-lookalike.synthetic'],
    ['codex', 'codex.idle.dialog-lookalike.synthetic'],
    ['opencode', 'opencode.idle.dialog-lookalike.synthetic'],
  ])(
    '%s at its prompt below a look-alike dialog: listed idle, not waiting; pk answer yes and no type nothing',
    async (agent, fixture) => {
      const {id, taken} = await showing(agent, fixture)
      const row = (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)!
      expect([row.state, row.attention]).toEqual(['idle', expect.anything()])
      for (const answer of ['yes', 'no', '1']) {
        const result = await sb.pk(['answer', id, answer])
        expect([result.code, result.stderr]).toEqual([1, expect.stringMatching(/not waiting on a dialog; nothing was typed/)])
      }
      expect(taken()).toEqual([])
    },
    60_000,
  )

  it("a look-alike list in the command Codex asks about: pk answer yes presses y (once), never the heredoc's (p)", async () => {
    const {id, taken} = await showing('codex', 'codex.waiting.permission-heredoc.synthetic')
    await waitFor('waiting', async () => ((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)?.state === 'waiting' ? true : null), 15_000)
    // Words are no answer to a permission dialog: pk answer --text types nothing.
    const words = await sb.pk(['answer', id, '--text', 'yes'])
    expect([words.code, words.stderr]).toEqual([1, expect.stringMatching(/permission dialog.*takes a choice, not text; nothing was typed/)])
    const result = await sb.pk(['answer', id, 'yes', '--json'])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({choice: {n: 1, label: 'Yes, proceed (y)'}})
    expect(taken()).toEqual([1])
  }, 60_000)
})

describe('a draft in the input', () => {
  it('Codex with a typed, unsent draft reads idle (pk wait ends), and pk send refuses, quoting the draft, typing nothing', async () => {
    const {id, taken} = await showing('codex', 'codex-0.171.0.idle.draft.ansi')
    const waited = await sb.pk(['wait', id, '--for', 'idle', '--timeout', '20'])
    expect(waited.code, waited.stderr).toBe(0)
    const sent = await sb.pk(['send', id, 'and also the lexer', '--timeout', '10'])
    expect([sent.code, sent.stderr]).toEqual([
      1,
      expect.stringMatching(/has a draft in its input \(\d+ characters, not typed by this send\).*nothing was typed/),
    ])
    const row = (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)!
    expect(sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', row.tmux!.pane)).not.toContain('and also the lexer')
    expect(taken()).toEqual([])
  }, 60_000)
})

describe('the next dialog', () => {
  const panes = join(ROOT, 'test', 'fixtures', 'panes')
  it('opencode asking about the next command right after the answer: the answer was taken (exit 0), not the same dialog', async () => {
    const next = await showing('opencode', 'opencode-1.18.33.waiting.permission', {
      STANDIN_NEXT_SCREEN: join(panes, 'opencode.waiting.permission-next.synthetic.txt'),
    })
    await waitFor('waiting', async () => ((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === next.id)?.state === 'waiting' ? true : null), 15_000)
    const result = await sb.pk(['answer', next.id, '2', '--json'])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({choice: {n: 2, label: 'Allow always'}, confirmed: true})
    expect(next.taken()).toEqual([2])
  }, 60_000)

  it('the same dialog about the same command still there after the keys: exit 6, not typed again', async () => {
    const same = await showing('opencode', 'opencode-1.18.33.waiting.permission', {STANDIN_NEXT_SCREEN: join(panes, 'opencode-1.18.33.waiting.permission.txt')})
    await waitFor('waiting', async () => ((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === same.id)?.state === 'waiting' ? true : null), 15_000)
    const result = await sb.pk(['answer', same.id, '1'])
    expect([result.code, result.stderr]).toEqual([6, expect.stringMatching(/dialog was still on its screen/)])
    expect(same.taken()).toEqual([1])
  }, 60_000)
})
