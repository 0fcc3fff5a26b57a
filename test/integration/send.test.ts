import {Ajv} from 'ajv'
import {chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {installTuiStandin} from '../helpers/standins.js'
import {LsJson, PK_BIN, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'

const answerShape = new Ajv().compile(JSON.parse(readFileSync(join(ROOT, 'schemas', 'answer.schema.json'), 'utf8')))

/** Issue #22: a script starts an agent and gives it work at once; pk send submits it, or says it did not. */
let sb: Sandbox
let env: NodeJS.ProcessEnv
let submitted: string
beforeEach(() => {
  sb = new Sandbox()
  submitted = join(sb.root, 'submitted')
  env = {PATH: installTuiStandin(sb.root), STANDIN_SUBMITTED: submitted}
})
afterEach(() => sb.cleanup())

const lines = () =>
  existsSync(submitted)
    ? readFileSync(submitted, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : []

describe('pk send to an agent', () => {
  it('right after pk bg: waits for the prompt, pastes, lets the paste settle, submits, and says so', async () => {
    const started = await sb.pk(['bg', 'claude'], {env})
    expect(started.code, started.stderr).toBe(0)
    const id = started.stdout.trim()
    const text = `fix the tests; it's "quoted" $(whoami)\nand a second line`
    const sent = await sb.pk(['send', id, '--json', text], {env})
    expect(sent.code, sent.stderr).toBe(0)
    expect(JSON.parse(sent.stdout)).toMatchObject({id, submitted: true, enters: 1, state: 'idle'})
    expect(lines()).toEqual([text])
  })

  it('refuses an agent that waits on a dialog: the text would answer it', async () => {
    const id = (await sb.pk(['bg', 'claude'], {env: {...env, STANDIN_DIALOG: '1', STANDIN_READY_MS: '0'}})).stdout.trim()
    const sent = await sb.pk(['send', id, 'yes please', '--timeout', '10'], {env})
    expect(sent.code).toBe(1)
    expect(sent.stderr).toMatch(/waiting on a dialog .*pk attach/)
    const row = (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === id)!
    expect(sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', row.tmux!.pane)).not.toContain('yes please')
  })

  it('exits 6 (never 1 after typing) when the agent never takes the Enter, and says the text is typed but not submitted', async () => {
    const enters = join(sb.root, 'enters')
    const id = (await sb.pk(['bg', 'claude'], {env: {...env, STANDIN_NEVER_SUBMIT: '1', STANDIN_READY_MS: '0', STANDIN_ENTERS: enters}})).stdout.trim()
    const sent = await sb.pk(['send', id, 'stuck'], {env})
    expect(sent.code).toBe(6)
    expect(sent.stderr).toMatch(/did not take the Enter \(its screen did not change after 2 tries\)/)
    expect(lines()).toEqual([])
    // The text was to be seen in the input both times: the second Enter was safe.
    expect(readFileSync(enters, 'utf8')).toBe('enter\nenter\n')
  }, 30_000)

  it('a screen redrawn after Enter with the text still in the input is not a submission: Enter once more, then exit 6, not submitted', async () => {
    const enters = join(sb.root, 'enters')
    const id = (await sb.pk(['bg', 'claude'], {env: {...env, STANDIN_REDRAW_KEEP: '1', STANDIN_READY_MS: '0', STANDIN_ENTERS: enters}})).stdout.trim()
    const sent = await sb.pk(['send', id, 'kept in the box', '--json'])
    expect([sent.code, sent.stderr]).toEqual([6, expect.stringMatching(/the text is in session .* input, but claude did not take the Enter/)])
    expect(lines()).toEqual([])
    expect(readFileSync(enters, 'utf8')).toBe('enter\nenter\n')
  }, 30_000)

  it('never presses twice when the text is not to be seen in the input: exit 6, not confirmed', async () => {
    const enters = join(sb.root, 'enters')
    const standin = {...env, STANDIN_NEVER_SUBMIT: '1', STANDIN_READY_MS: '0', STANDIN_HIDE_INPUT: '1', STANDIN_ENTERS: enters}
    const id = (await sb.pk(['bg', 'claude'], {env: standin})).stdout.trim()
    const sent = await sb.pk(['send', id, 'hidden text'], {env})
    expect(sent.code).toBe(6)
    expect(sent.stderr).toMatch(/cannot tell whether it took it \(not pressed again\)/)
    expect(readFileSync(enters, 'utf8')).toBe('enter\n')
  }, 30_000)

  it('a paste the agent draws late (a loaded machine) is typed once and submitted once, never pasted again', async () => {
    const pastes = join(sb.root, 'pastes')
    const id = (await sb.pk(['bg', 'claude'], {env: {...env, STANDIN_READY_MS: '0', STANDIN_PASTE_SHOW_MS: '2500', STANDIN_PASTES: pastes}})).stdout.trim()
    const sent = await sb.pk(['send', id, 'drawn late', '--json'], {env})
    expect(sent.code, sent.stderr).toBe(0)
    expect(JSON.parse(sent.stdout)).toMatchObject({submitted: true, enters: 1})
    expect(lines()).toEqual(['drawn late'])
    expect(readFileSync(pastes, 'utf8')).toBe('paste\n')
  }, 30_000)

  it('a paste never drawn: exit 6, what was typed said, never typed again and no Enter', async () => {
    const pastes = join(sb.root, 'pastes')
    const enters = join(sb.root, 'enters')
    const standin = {...env, STANDIN_READY_MS: '0', STANDIN_PASTE_SHOW_MS: '600000', STANDIN_PASTES: pastes, STANDIN_ENTERS: enters}
    const id = (await sb.pk(['bg', 'claude'], {env: standin})).stdout.trim()
    const sent = await sb.pk(['send', id, 'never drawn'], {env})
    expect([sent.code, sent.stderr]).toEqual([
      6,
      expect.stringMatching(/"never drawn" went to session .* pk did not see it in claude's input within 6.5 s, so Enter was not pressed/),
    ])
    expect(readFileSync(pastes, 'utf8')).toBe('paste\n')
    expect(existsSync(enters)).toBe(false)
  }, 30_000)

  it('an agent slow to show it took the text (opencode at load): submitted, seen late, not a failure', async () => {
    const enters = join(sb.root, 'enters')
    const standin = {...env, STANDIN_READY_MS: '0', STANDIN_REDRAW_MS: '6000', STANDIN_EMPTY_ENTER_IGNORED: '1', STANDIN_ENTERS: enters}
    const id = (await sb.pk(['bg', 'claude'], {env: standin})).stdout.trim()
    const sent = await sb.pk(['send', id, 'slow to redraw', '--json'], {env})
    expect(sent.code, sent.stderr).toBe(0)
    expect(JSON.parse(sent.stdout)).toMatchObject({submitted: true})
    expect(lines()).toEqual(['slow to redraw'])
  }, 30_000)

  it('--when-idle waits for the running turn to end; --timeout bounds the wait (exit 124, nothing typed)', async () => {
    const turnEnds = join(sb.root, 'turn-ends')
    const id = (await sb.pk(['bg', 'claude'], {env: {...env, STANDIN_READY_MS: '0', STANDIN_WORKING_UNTIL: turnEnds}})).stdout.trim()
    const early = await sb.pk(['send', id, 'too soon', '--when-idle', '--timeout', '1'], {env})
    expect(early.code).toBe(124)
    expect(early.stderr).toMatch(/still working after 1 s; nothing was typed/)
    // The turn ends while send waits for it.
    const sending = sb.pk(['send', id, 'after the turn', '--when-idle', '--json'], {env})
    setTimeout(() => writeFileSync(turnEnds, ''), 1500)
    const sent = await sending
    expect(sent.code, sent.stderr).toBe(0)
    expect(JSON.parse(sent.stdout)).toMatchObject({submitted: true, state: 'idle'})
    expect(lines()).toEqual(['after the turn'])
  }, 60_000)

  it('no text is a usage error; Enter alone only when asked for by name', async () => {
    const id = (await sb.pk(['bg', 'claude'], {env: {...env, STANDIN_READY_MS: '0'}})).stdout.trim()
    const bare = await sb.pk(['send', id], {env})
    expect(bare.code).toBe(2)
    expect(bare.stderr).toMatch(/no text to send .*--enter-only/)
    expect((await sb.pk(['send', id, 'x', '--enter-only'], {env})).code).toBe(2)
  })
})

describe('pk send to a plain command', () => {
  it('types the text and one Enter at once, never twice, and claims nothing (submitted null), also where nothing echoes', async () => {
    const got = join(sb.root, 'got')
    // No echo: the screen never changes, so a check of the screen would have pressed Enter again.
    const row = await sb.bgRow(['--', 'sh', '-c', `stty -echo; while IFS= read -r line; do printf '%s\\n' "$line" >> '${got}'; done`])
    const sent = await sb.pk(['send', row.id, '--json', 'one', 'line'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(JSON.parse(sent.stdout)).toMatchObject({id: row.id, submitted: null, enters: 1, enter: true})
    await waitFor('the line', () => (existsSync(got) ? readFileSync(got, 'utf8') : null))
    expect((await sb.pk(['send', row.id, '--enter-only'])).code).toBe(0)
    expect((await sb.pk(['send', row.id, 'no enter', '--no-enter'])).code).toBe(0)
    expect((await sb.pk(['send', row.id, '--enter-only'])).code).toBe(0)
    await waitFor('three lines', () => (readFileSync(got, 'utf8').split('\n').length === 4 ? true : null))
    expect(readFileSync(got, 'utf8')).toBe('one line\n\nno enter\n')
  })

  it("pk bg shell, the README's first example, takes a send at once: a preset that reads no state is a plain command", async () => {
    const got = join(sb.root, 'from-the-shell')
    const row = await sb.bgRow(['shell'], {env: {SHELL: '/bin/sh'}})
    expect(row.agent).toBe('shell')
    const sent = await sb.pk(['send', row.id, '--json', '--timeout', '10', `echo sent > '${got}'`])
    expect(sent.code, sent.stderr).toBe(0)
    expect(JSON.parse(sent.stdout)).toMatchObject({submitted: null, enters: 1})
    expect(await waitFor('the line run', () => (existsSync(got) ? readFileSync(got, 'utf8') : null), 10_000)).toBe('sent\n')
  })

  it('refuses standard input that is not UTF-8 (exit 2), typing nothing', async () => {
    const row = await sb.bgRow(['--', 'cat'])
    const sent = await sb.pk(['send', row.id, '--stdin'], {input: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])})
    expect(sent.code).toBe(2)
    expect(sent.stderr).toMatch(/standard input is not UTF-8 text/)
    expect(sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', row.tmux!.pane).trim()).toBe('')
  })
})

describe('pk wait --next after pk send (issue 39)', () => {
  it('waits for the end of the turn the text started, not the idle state from before', async () => {
    const id = (await sb.pk(['bg', 'claude'], {env: {...env, STANDIN_READY_MS: '0', STANDIN_TURN_MS: '6000'}})).stdout.trim()
    await waitFor('idle', async () => ((await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === id)?.state === 'idle' ? true : null), 15_000)
    expect((await sb.pk(['wait', id, '--for', 'idle', '--next', '--timeout', '1'], {env})).code).toBe(124)
    expect((await sb.pk(['send', id, 'a task'], {env})).code).toBe(0)
    const started = Date.now()
    const waited = await sb.pk(['wait', id, '--for', 'idle', '--next', '--timeout', '60'], {env})
    expect(waited.code, waited.stderr).toBe(0)
    // It waited for the turn (6 s of work from the Enter), not the screen from before.
    expect(Date.now() - started).toBeGreaterThan(1500)
    expect(lines()).toEqual(['a task'])
  }, 90_000)
})

describe('pk wait over every session (issue 39)', () => {
  it('ends on a session started after the wait began that needs you, of the agent asked for, and names it in --json', async () => {
    await sb.bgRow(['--', 'sleep', '100000'])
    // No ids is a usage error, not every session: `pk wait $(pk ls -q --agent x)` with none must not wait on others.
    expect((await sb.pk(['wait', '--for', 'idle'], {env})).code).toBe(2)
    const tmux = sb.tmuxCalls()
    const waiting = sb.pk(['wait', '--all-sessions', '--agent', 'claude', '--json', '--timeout', '60'], {env: {...env, PATH: `${tmux.path}:${env.PATH}`}})
    // (what is there when it starts needs nobody: the wait has to see the new session) Its first look
    // over, and a second begun: the new session starts while it waits.
    await waitFor('the wait has looked, and looks again', () => tmux.answered().filter((call) => call.includes('list-panes')).length >= 2, 30_000)
    const id = (await sb.pk(['bg', 'claude'], {env: {...env, STANDIN_DIALOG: '1', STANDIN_READY_MS: '0'}})).stdout.trim()
    const done = await waiting
    expect(done.code, done.stderr).toBe(0)
    // (attentionSince: when an event or a watcher dated it; a dialog only seen on the screen just now has none)
    const {attentionSince, ...reached} = JSON.parse(done.stdout).sessions[0]
    expect(reached).toEqual({id, agent: 'claude', label: null, state: 'waiting', attention: true, exitStatus: null})
    expect(attentionSince === null || typeof attentionSince === 'string').toBe(true)
    const plain = await sb.pk(['wait', '--all-sessions', '--for', 'waiting'], {env})
    expect([plain.code, plain.stdout]).toEqual([0, `${id}\n`])
    const none = await sb.pk(['wait', '--all-sessions', '--agent', 'codex', '--timeout', '1'], {env})
    expect([none.code, none.stderr.trim()]).toEqual([124, 'pk: no session of codex was needing you after 1 s'])
    expect((await sb.pk(['wait', id, '--agent', 'claude'], {env})).code).toBe(2)
    expect((await sb.pk(['wait', id, '--all-sessions'], {env})).code).toBe(2)
  }, 90_000)
})

describe('pk answer: a permission dialog answered from a script (issue 39)', () => {
  const dialogs = [
    ['claude', 'claude-2.1.197.waiting.permission'],
    ['codex', 'codex-0.171.0.waiting.permission'],
    ['gemini', 'gemini-0.61.0.waiting.allow-shell'],
    ['opencode', 'opencode-1.18.33.waiting.permission'],
  ] as const
  const showing = async (agent: string, fixture: string, extra: NodeJS.ProcessEnv = {}) => {
    const bin = join(sb.root, `bin-${agent}`)
    mkdirSync(bin, {recursive: true})
    copyFileSync(join(ROOT, 'test', 'helpers', 'dialog-standin.cjs'), join(bin, agent))
    chmodSync(join(bin, agent), 0o755)
    const answered = join(sb.root, `answered-${agent}`)
    const standin = {
      PATH: `${bin}:${process.env.PATH}`,
      STANDIN_SCREEN: join(ROOT, 'test', 'fixtures', 'panes', `${fixture}.txt`),
      STANDIN_KEYS: agent,
      STANDIN_ANSWERED: answered,
      ...extra,
    }
    const started = await sb.pk(['bg', agent, '--', '--x'], {env: standin})
    expect(started.code, started.stderr).toBe(0)
    const id = started.stdout.trim()
    // The size the screens were captured at.
    const row = (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)!
    sb.tmux(sb.pkSocket, 'resize-window', '-t', row.tmux!.pane, '-x', '120', '-y', '35')
    await waitFor('waiting', async () => ((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)?.state === 'waiting' ? true : null), 15_000)
    return {id, taken: () => (existsSync(answered) ? readFileSync(answered, 'utf8').trim().split('\n').map(Number) : [])}
  }

  it.each(dialogs)(
    '%s: yes allows once, no refuses, a number picks that choice, by the keys the agent takes',
    async (agent, fixture) => {
      for (const [answer, n] of [
        ['yes', 1],
        ['no', 3],
        ['2', 2],
      ] as const) {
        const {id, taken} = await showing(agent, fixture)
        const result = await sb.pk(['answer', id, answer, '--json'])
        expect(result.code, result.stderr).toBe(0)
        expect(JSON.parse(result.stdout)).toMatchObject({$schema: 'urn:pk:answer', id, agent, choice: {n}, confirmed: true})
        expect(answerShape(JSON.parse(result.stdout)), JSON.stringify(answerShape.errors)).toBe(true)
        expect(taken()).toEqual([n])
        expect((await sb.pk(['stop', id])).code).toBe(0)
        rmSync(join(sb.root, `answered-${agent}`), {force: true})
      }
    },
    120_000,
  )

  it('types nothing where the screen is not the dialog, or the choice is not on it; says when the dialog stayed', async () => {
    const {id, taken} = await showing('claude', 'claude-2.1.197.waiting.trust-folder')
    const none = await sb.pk(['answer', id, 'yes'])
    expect([none.code, none.stderr]).toEqual([1, expect.stringMatching(/shows no permission dialog pk knows how to answer; nothing was typed/)])
    const plain = await sb.bgRow(['--', 'sleep', '100000'])
    expect((await sb.pk(['answer', plain.id, 'yes'])).code).toBe(1)
    const dialog = await showing('gemini', 'gemini-0.61.0.waiting.allow-shell')
    const nine = await sb.pk(['answer', dialog.id, '9'])
    expect([nine.code, nine.stderr]).toEqual([2, expect.stringMatching(/has no choice 9 \(its choices: 1 \(yes\), .*\); nothing was typed/)])
    expect((await sb.pk(['answer', dialog.id, 'maybe'])).code).toBe(2)
    expect([taken(), dialog.taken()]).toEqual([[], []])
    const stuck = await showing('codex', 'codex-0.171.0.waiting.permission', {STANDIN_STUCK: '1'})
    const result = await sb.pk(['answer', stuck.id, 'yes'])
    expect([result.code, result.stderr]).toEqual([6, expect.stringMatching(/dialog was still on its screen .*not typed again/)])
    expect(stuck.taken()).toEqual([1])
  }, 120_000)
})

describe('pk answer --text: a question that takes words', () => {
  it('types the answer into a session waiting on a question, once; refuses a session not waiting (agent-screens: a permission dialog)', async () => {
    const asked = await sb.bgRow(['claude'], {
      env: {...env, STANDIN_QUESTION: 'What should the new branch be called?', STANDIN_READY_MS: '0', STANDIN_PK: PK_BIN},
    })
    await waitFor('waiting', async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === asked.id && s.state === 'waiting'), 15_000)
    // pk send refuses it (the text would answer it); pk answer --text is how to answer.
    expect((await sb.pk(['send', asked.id, 'fix/login'], {env})).code).toBe(1)
    const answered = await sb.pk(['answer', asked.id, '--text', 'fix/login "quoted" $(x)', '--json'], {env})
    expect(answered.code, answered.stderr).toBe(0)
    expect(JSON.parse(answered.stdout)).toMatchObject({id: asked.id, submitted: true, enters: 1})
    expect(lines()).toEqual(['fix/login "quoted" $(x)'])

    const idle = await sb.bgRow(['claude'], {env: {...env, STANDIN_READY_MS: '0'}})
    await waitFor('idle', async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === idle.id && s.state === 'idle'), 15_000)
    const notWaiting = await sb.pk(['answer', idle.id, '--text', 'hello'], {env})
    expect(notWaiting.code).toBe(1)
    expect(notWaiting.stderr).toMatch(/is idle, not waiting on a question; nothing was typed/)
    expect((await sb.pk(['answer', idle.id], {env})).code).toBe(2)
    expect((await sb.pk(['answer', idle.id, 'yes', '--text', 'x'], {env})).code).toBe(2)
    expect(lines()).toEqual(['fix/login "quoted" $(x)'])
  })

  /** A session of a stand-in of Claude Code's question tool (test/helpers/question-standin.cjs), waiting on it. */
  async function question() {
    const bin = join(sb.root, 'bin-question')
    mkdirSync(bin, {recursive: true})
    copyFileSync(join(ROOT, 'test', 'helpers', 'question-standin.cjs'), join(bin, 'claude'))
    chmodSync(join(bin, 'claude'), 0o755)
    const answers = join(sb.root, `answers-${Math.random().toString(36).slice(2)}`)
    const qenv = {PATH: `${bin}:${process.env.PATH}`, STANDIN_PK: PK_BIN, STANDIN_ANSWERED: answers}
    const row = await sb.bgRow(['claude'], {env: qenv})
    await waitFor('waiting', async () => (await sb.pkJson<LsJson>(['ls'], {env: qenv})).sessions.find((s) => s.id === row.id && s.state === 'waiting'), 15_000)
    await waitFor('the question drawn', () => sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', row.tmux!.pane).includes('Enter to select'), 15_000)
    return {
      id: row.id,
      env: qenv,
      answers: () =>
        existsSync(answers)
          ? readFileSync(answers, 'utf8')
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l))
          : [],
    }
  }

  it("Claude Code's question with choices: a number picks that choice (the mark moved to it first), words go in its own field", async () => {
    const picked = await question()
    // What a script or the page sees: the question and its choices; words answer it too.
    const look = await sb.pkJson<{dialog: {question: string; choices: {n: number; label: string}[]}; question: boolean}>([
      'logs',
      picked.id,
      '--screen',
      '--json',
    ])
    expect(look.dialog).toMatchObject({question: 'Which database should the migration run against?', body: 'Database'})
    expect(look.dialog.choices.map((c) => [c.n, c.label])).toEqual([
      [1, 'staging'],
      [2, 'production'],
      [4, 'Chat about this'],
    ])
    expect(look.question).toBe(true)
    // No choice means yes; the field for words takes words, not a number: nothing typed.
    expect(await sb.pk(['answer', picked.id, 'yes'])).toMatchObject({code: 2, stderr: expect.stringMatching(/no "yes" choice.*nothing was typed/)})
    expect(await sb.pk(['answer', picked.id, '3'])).toMatchObject({code: 2, stderr: expect.stringMatching(/takes words: give them with --text/)})
    const second = await sb.pk(['answer', picked.id, '2', '--json'])
    expect(second.code, second.stderr).toBe(0)
    expect(JSON.parse(second.stdout)).toMatchObject({choice: {n: 2, label: 'production'}, confirmed: true})
    expect(picked.answers()).toEqual(['production'])

    const worded = await question()
    const typed = await sb.pk(['answer', worded.id, '--text', 'the staging copy, please', '--json'])
    expect(typed.code, typed.stderr).toBe(0)
    expect(JSON.parse(typed.stdout)).toMatchObject({submitted: true, enters: 1})
    // (typed on the list, the words would be lost and Enter would pick "staging")
    expect(worded.answers()).toEqual(['the staging copy, please'])
  }, 60_000)
})
