import {spawn} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {shellQuote} from '../../src/lib/model/shell.js'
import {SessionRow} from '../../src/lib/model/contract.js'
import {PK_BIN, Sandbox, waitFor} from '../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

const bg = (...args: string[]) => sb.bgRow(args)

const pkCommand = (...args: string[]) => [process.execPath, PK_BIN, ...args].map(shellQuote).join(' ')

/** A pk started with a tmux that notes its calls: `looked()` once its first look has been answered (a wait has begun). */
function begun(args: string[]): {result: ReturnType<Sandbox['pk']>; looked: () => Promise<unknown>} {
  const tmux = sb.tmuxCalls()
  const result = sb.pk(args, {env: {PATH: `${tmux.path}:${sb.env.PATH}`}})
  return {result, looked: () => waitFor('its first look', () => tmux.answered().some((call) => call.includes('list-panes')), 30_000)}
}

/** Report a hook state from inside a session's pane (a shell), as an agent's hook would. */
function reportFromPane(row: SessionRow, state: string): void {
  sb.tmux(sb.pkSocket, 'send-keys', '-t', row.tmux!.pane, `${pkCommand('hook', 'shell', JSON.stringify({state}))}`, 'Enter')
}

describe('pk ui in a real terminal', () => {
  it('navigates, filters, attaches with Enter, and comes back after detach', async () => {
    const a = await bg('--name', 'alpha', '--', 'sleep', '1000')
    const b = await bg('--name', 'beta', '--', 'sleep', '1001')
    const term = sb.socket('term')
    const status = join(sb.root, 'ui-status')
    const tmux = sb.tmuxCalls()
    const looks = () => tmux.answered().filter((call) => call.includes('list-panes')).length
    sb.tmux(
      term,
      'new-session',
      '-d',
      '-x',
      '110',
      '-y',
      '20',
      '-s',
      'term',
      '--',
      'env',
      '-u',
      'TMUX',
      '-u',
      'TMUX_PANE',
      'sh',
      '-c',
      `PATH=${shellQuote(tmux.path)}:"$PATH"; ${pkCommand()}; echo $? > ${shellQuote(status)}; exec sleep 1000`,
    )
    const screen = () => sb.tmux(term, 'capture-pane', '-p', '-t', 'term')
    await waitFor('dashboard', () => screen().includes('2 session(s)'), 10_000)
    const selectedLine = () =>
      screen()
        .split('\n')
        .find((l) => l.startsWith('> '))!
    // Newest first: beta, then alpha.
    expect(selectedLine()).toContain(b.id)
    sb.tmux(term, 'send-keys', '-t', 'term', 'j')
    await waitFor('moved down', () => selectedLine().includes(a.id))
    sb.tmux(term, 'send-keys', '-t', 'term', 'k')
    await waitFor('moved up', () => selectedLine().includes(b.id))

    sb.tmux(term, 'send-keys', '-t', 'term', '/', 'a', 'l', 'p')
    await waitFor('filtered', () => screen().includes('filter: alp') && !screen().includes(b.id))
    expect(selectedLine()).toContain(a.id)
    sb.tmux(term, 'send-keys', '-t', 'term', 'Enter')
    await waitFor('filter kept', () => screen().includes('q quit'))

    sb.tmux(term, 'send-keys', '-t', 'term', 'Enter')
    await waitFor('attached to alpha', () => sb.tmuxTry(sb.pkSocket, 'list-clients', '-F', '#{pane_id}').stdout.trim() === a.tmux!.pane, 10_000)
    sb.tmux(sb.pkSocket, 'detach-client', '-s', a.tmux!.sessionId)
    await waitFor('back in the dashboard', () => screen().includes('filter: alp') && screen().includes('q quit'), 10_000)

    // Resize: the screen is redrawn to the new width.
    sb.tmux(term, 'resize-window', '-t', 'term', '-x', '60', '-y', '12')
    await waitFor(
      'redrawn narrower',
      () =>
        screen()
          .split('\n')
          .every((l) => l.length <= 60) && screen().includes('q quit'),
    )

    // The logs view stays until a key, with no refresh drawn over it (it was, within a second).
    sb.tmux(term, 'resize-window', '-t', 'term', '-x', '110', '-y', '20')
    sb.tmux(term, 'send-keys', '-t', 'term', 'l')
    await waitFor('logs shown', () => screen().includes('any key: back'), 10_000)
    // Two of the dashboard's refreshes since: either would have drawn over the logs.
    const shown = looks()
    await waitFor('two refreshes', () => looks() >= shown + 2, 20_000)
    expect(screen()).toContain('any key: back')
    sb.tmux(term, 'send-keys', '-t', 'term', 'x')
    await waitFor('back from the logs', () => screen().includes('? keys'), 10_000)

    // A phone's 40 columns: each session on two lines, its state and where it works whole; the help wrapped,
    // not cut; the logs view leaves nothing behind once pk quits.
    sb.tmux(term, 'resize-window', '-t', 'term', '-x', '40', '-y', '20')
    await waitFor(
      'two lines a session',
      () =>
        screen().includes('q quit') &&
        /^\s+\S.*· \/tmp\//m.test(screen()) &&
        screen()
          .split('\n')
          .every((l) => l.length <= 40),
      10_000,
    )
    sb.tmux(term, 'send-keys', '-t', 'term', '?')
    await waitFor('help wrapped', () => screen().includes('last screen and') && screen().includes('scrollback'), 10_000)
    sb.tmux(term, 'send-keys', '-t', 'term', 'x')
    sb.tmux(term, 'send-keys', '-t', 'term', 'l')
    await waitFor('logs shown', () => screen().includes('any key: back'), 10_000)
    sb.tmux(term, 'send-keys', '-t', 'term', 'q')
    await waitFor('back from the logs', () => screen().includes('q quit'), 10_000)

    sb.tmux(term, 'send-keys', '-t', 'term', 'q')
    expect(await waitFor('dashboard exit', () => existsSync(status) && readFileSync(status, 'utf8'))).toBe('0\n')
    expect(sb.tmux(term, 'capture-pane', '-p', '-S', '-', '-t', 'term')).not.toContain('any key: back')
  })

  it('prints what pk ls prints when stdout is not a terminal', async () => {
    const a = await bg('--', 'sleep', '1000')
    const ui = await sb.pk(['ui'])
    expect(ui.code).toBe(0)
    // The age ticks between the two runs (9s → 10s widens the column): compare with ages and padding folded.
    const sameAge = (text: string) => text.replaceAll(/\b\d+[smhd]\b/g, 'N').replaceAll(/ +/g, ' ')
    expect(sameAge(ui.stdout)).toBe(sameAge((await sb.pk(['ls'])).stdout))
    expect(ui.stdout).toContain(a.id)
  })
})

describe('pk ls --watch --json', () => {
  it('streams a snapshot, then events as sessions start, change state and exit; ends on SIGINT', async () => {
    const first = await bg('--', 'sleep', '1000')
    const child = spawn(process.execPath, [PK_BIN, 'ls', '--watch', '--json'], {env: sb.env, stdio: ['ignore', 'pipe', 'pipe']})
    const events: {type: string; id?: string; session?: SessionRow; sessions?: SessionRow[]}[] = []
    createInterface({input: child.stdout!}).on('line', (line) => events.push(JSON.parse(line)))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    try {
      await waitFor('snapshot', () => events.length >= 1, 10_000)
      expect(events[0]).toMatchObject({type: 'snapshot', schema: 1})
      expect(events[0]!.sessions!.map((s) => s.id)).toEqual([first.id])

      const shell = await bg('--', 'sh')
      await waitFor('added', () => events.some((e) => e.type === 'added' && e.session!.id === shell.id), 10_000)
      reportFromPane(shell, 'waiting')
      await waitFor('changed', () => events.some((e) => e.type === 'changed' && e.session!.id === shell.id && e.session!.state === 'waiting'), 10_000)
      sb.tmux(sb.pkSocket, 'kill-session', '-t', first.tmux!.sessionId)
      // An exited session stays listed, as exited, until it is pruned.
      await waitFor('exited', () => events.some((e) => e.type === 'changed' && e.session!.id === first.id && e.session!.state === 'exited'), 10_000)
      const order = events.map((e) => `${e.type}:${e.id ?? e.session?.id ?? ''}`)
      expect(order.indexOf(`added:${shell.id}`)).toBeLessThan(order.findIndex((o) => o === `changed:${shell.id}`))
    } finally {
      child.kill('SIGINT')
    }
    expect(await exited).toBe(0)
  })

  it('ends cleanly when the reader goes away (SIGPIPE)', async () => {
    await bg('--', 'sleep', '1000')
    const child = spawn(process.execPath, [PK_BIN, 'ls', '--watch', '--json'], {env: sb.env, stdio: ['ignore', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr += d))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    // Read the first line, then close our end of the pipe, as `| head -n 1` does.
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
    child.stdout!.destroy()
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000))])
    if (code === 'still running') child.kill('SIGKILL')
    expect(code).toBe(0)
    expect(stderr).toBe('')
  })

  it('prints one short line for a status bar', async () => {
    const shell = await bg('--', 'sh')
    reportFromPane(shell, 'waiting')
    await waitFor('waiting', async () => (await sb.pk(['ls', '--format', 'short'])).stdout === '1 need you\n', 10_000)
    expect((await sb.pk(['ls', '--format', 'short', '--color'])).stdout).toBe('#[fg=white,bg=red,bold]1 need you#[default]\n')
  })
})

describe('pk wait', () => {
  it('returns 0 when the state is reached, 124 on timeout, 3 when the session goes away', async () => {
    const shell = await bg('--', 'sh')
    const waiting = begun(['wait', shell.id.slice(0, 6), '--for', 'waiting', '--timeout', '30'])
    await waiting.looked()
    reportFromPane(shell, 'waiting')
    expect((await waiting.result).code).toBe(0)

    const timeout = await sb.pk(['wait', shell.id, '--for', 'idle', '--timeout', '1'])
    expect(timeout.code).toBe(124)
    expect(timeout.stderr).toMatch(/still waiting after 1 s/)

    const gone = begun(['wait', shell.id, '--for', 'idle', '--timeout', '30'])
    await gone.looked()
    sb.tmux(sb.pkSocket, 'kill-session', '-t', shell.tmux!.sessionId)
    const goneResult = await gone.result
    expect(goneResult.code).toBe(3)
  })

  it('--for exited returns 0 when the process ends; unknown ids exit 3', async () => {
    const short = await bg('--', 'sh', '-c', 'sleep 2')
    expect((await sb.pk(['wait', short.id, '--for', 'exited', '--timeout', '30'])).code).toBe(0)
    expect((await sb.pk(['wait', 'abcdef12', '--for', 'exited'])).code).toBe(3)
    expect((await sb.pk(['wait', short.id, '--for', 'sleepy'])).code).toBe(2)
  })
})

describe('pk wait on several sessions (issue #23)', () => {
  it('waits until all, or any, and without --for until they need you; prints the ids that did', async () => {
    const a = await bg('--', 'sh')
    const b = await bg('--', 'sh')
    const any = begun(['wait', a.id, b.id, '--any', '--timeout', '30'])
    await any.looked()
    reportFromPane(b, 'waiting')
    const first = await any.result
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toBe(`${b.id}\n`)
    const none = await sb.pk(['wait', a.id, b.id, '--timeout', '1'])
    expect(none.code).toBe(124)
    expect(none.stderr).toMatch(new RegExp(`session ${a.id} is still`))
    reportFromPane(a, 'waiting')
    const all = await sb.pk(['wait', a.id, b.id, '--all', '--timeout', '30'])
    expect(all.code, all.stderr).toBe(0)
    expect(all.stdout.trim().split('\n').sort()).toEqual([a.id, b.id].sort())
  }, 60_000)
})
