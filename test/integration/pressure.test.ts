import {ChildProcess, spawn} from 'node:child_process'
import {chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LsJson, PK_BIN, ROOT, Sandbox, startWatcher, waitFor} from '../helpers/sandbox.js'

/**
 * Issue 35: slow is not absent. A tmux server that answers late (a busy machine; here, stopped with
 * SIGSTOP for 5 s) is not a server that is gone: pk says "not verified just now", waits within a caller's
 * own deadline, and a watcher keeps what it last saw.
 */
let sb: Sandbox
const stopped: number[] = []
const children: ChildProcess[] = []
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => {
  for (const pid of stopped.splice(0)) {
    try {
      process.kill(pid, 'SIGCONT')
    } catch {
      // gone
    }
  }
  for (const child of children.splice(0)) child.kill('SIGKILL')
  sb.cleanup()
})

const serverPid = (socket: string) => Number(sb.tmux(socket, 'display-message', '-p', '#{pid}').trim())

/** Stop the server for `ms`, then let it go on. */
function stopFor(pid: number, ms: number): Promise<void> {
  stopped.push(pid)
  process.kill(pid, 'SIGSTOP')
  return new Promise((resolve) =>
    setTimeout(() => {
      process.kill(pid, 'SIGCONT')
      resolve()
    }, ms),
  )
}

describe('a tmux server stopped for 5 s', () => {
  it('pk ls --json during it lists its sessions from their records, not verified just now, with the reason; never "in no pane"', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    const pid = serverPid(sb.pkSocket)
    const resumed = stopFor(pid, 5000)
    const json = await sb.pkJson<LsJson>(['ls'])
    await resumed
    const listed = json.sessions.find((s) => s.id === row.id)!
    expect(listed).toMatchObject({verified: false, pid: row.pid, notVerifiedJustNow: expect.stringMatching(/tmux server .* did not answer in time/)})
    expect(json.problems).toContainEqual(
      expect.objectContaining({
        code: 'server-unresponsive',
        socket: sb.pkSocket,
        message: expect.stringMatching(/shown from their records, not verified just now/),
      }),
    )
    expect(json.problems.map((p) => p.code)).not.toContain('unreachable')
    // Once it answers again, the session is as it was.
    expect((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id)).toMatchObject({verified: true, notVerifiedJustNow: null})
  })

  it('pk send started during the stop submits after it (exit 0): it waits within its own deadline', async () => {
    const row = await sb.bgRow(['--', 'cat'])
    const pid = serverPid(sb.pkSocket)
    const resumed = stopFor(pid, 5000)
    const sent = await sb.pk(['send', row.id, 'after the stop', '--json'])
    await resumed
    expect(sent.code, sent.stderr).toBe(0)
    // (a plain command: pk claims nothing about whether it took the line, and pressed Enter once)
    expect(JSON.parse(sent.stdout)).toMatchObject({id: row.id, submitted: null, enters: 1})
    await waitFor('the line in the pane', () => sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', row.tmux!.pane).includes('after the stop'))
  })

  it('pk send to a pane nobody recorded, started during a longer stop (7 s), waits for the server rather than saying there is no such session', async () => {
    sb.tmux(sb.pkSocket, 'new-session', '-d', '--', 'cat')
    const pane = (await sb.pkJson<LsJson>(['ls', '--all'])).sessions.find((s) => s.command.includes('cat') || s.kind === 'pane')!
    // (longer than one look's longest wait, 6 s: the pane is missing from a whole look)
    const resumed = stopFor(serverPid(sb.pkSocket), 7000)
    const sent = await sb.pk(['send', pane.id, 'after the stop'])
    await resumed
    expect(sent.code, sent.stderr).toBe(0)
    await waitFor('the line in the pane', () => sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', pane.tmux!.pane).includes('after the stop'))
  })

  it('pk attach --print during it says "not just now", not that the session cannot be verified', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    const pid = serverPid(sb.pkSocket)
    const resumed = stopFor(pid, 5000)
    const attach = await sb.pk(['attach', row.id, '--print'])
    await resumed
    // A stop longer than one look: tried, said what is true, did nothing.
    if (attach.code !== 0) {
      expect(attach.code).toBe(1)
      expect(attach.stderr).toMatch(/cannot be checked just now: its tmux server .* did not answer in time; nothing was done, try again/)
    }
  })

  it('pk logs --follow goes on through the stop: the lines written meanwhile are printed after it, and it ends with the session', async () => {
    const go = `${sb.root}/go`
    const row = await sb.bgRow(['--', 'sh', '-c', `echo 'line 1'; while [ ! -e '${go}' ]; do sleep 0.1; done; echo 'line 2'; sleep 1; echo 'line 3'; exit 4`])
    const follow = spawn(process.execPath, [PK_BIN, 'logs', row.id, '--follow'], {env: sb.env, stdio: ['ignore', 'pipe', 'pipe']})
    children.push(follow)
    let out = ''
    let err = ''
    follow.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    follow.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')))
    const exited = new Promise<number | null>((resolve) => follow.on('exit', (code) => resolve(code)))
    await waitFor('the first line', () => out.includes('line 1'), 15_000)
    // Stopped past pk's deadline for a tmux answer, while the session writes its next line.
    const resumed = stopFor(serverPid(sb.pkSocket), 5000)
    writeFileSync(go, '')
    await resumed
    expect(await exited, err).toBe(0)
    expect(out.match(/line \d/g)).toEqual(['line 1', 'line 2', 'line 3'])
  }, 60_000)

  it('a running pk ls --watch --json emits no change that flips a session to unknown, nor removes one', async () => {
    const rows = await Promise.all([sb.bgRow(['--', 'sleep', '100000']), sb.bgRow(['--', 'sleep', '100001'])])
    const watcher = startWatcher(sb.env, ['--interval', '1'])
    children.push(watcher.child)
    const events = () => watcher.lines.map((l) => JSON.parse(l.text) as {type: string; session?: {id: string; state: string; verified: boolean}; id?: string})
    await watcher.passAfter(0, 15_000)
    const pid = serverPid(sb.pkSocket)
    await stopFor(pid, 5000)
    // Two whole passes after it answers again: its heartbeats (a pass that found no change) or changes.
    const answered = Date.now()
    await waitFor('two passes after the stop', () => watcher.lines.filter((l) => l.at > answered).length >= 2, 20_000)
    const flips = events().filter((e) => (e.type === 'changed' && (e.session!.state === 'unknown' || !e.session!.verified)) || e.type === 'removed')
    expect(flips).toEqual([])
    expect(rows.every((r) => events()[0]!.type === 'snapshot' && JSON.stringify(events()[0]).includes(r.id))).toBe(true)
  }, 60_000)
})

/**
 * Within the caller's deadline, slow is waiting: the server stopped for 4 s at each step of pk send and of
 * pk answer. Each ends with exit 0 (the step waited), the text in the agent exactly once; a deadline shorter
 * than the stop is exit 124 with nothing typed. Never exit 1 after typing.
 */
describe('a tmux server stopped at each step of pk send and pk answer', () => {
  const tui = (extra: NodeJS.ProcessEnv = {}) => {
    const bin = join(sb.root, 'bin')
    mkdirSync(bin, {recursive: true})
    copyFileSync(join(ROOT, 'test', 'helpers', 'tui-standin.cjs'), join(bin, 'claude'))
    chmodSync(join(bin, 'claude'), 0o755)
    const files = {submitted: join(sb.root, 'submitted'), pastes: join(sb.root, 'pastes'), enters: join(sb.root, 'enters')}
    const env = {
      PATH: `${bin}:${process.env.PATH}`,
      STANDIN_SUBMITTED: files.submitted,
      STANDIN_PASTES: files.pastes,
      STANDIN_ENTERS: files.enters,
      STANDIN_READY_MS: '0',
      STANDIN_REDRAW_MS: '1000',
      ...extra,
    }
    const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [])
    return {env, submitted: () => read(files.submitted).map((l) => JSON.parse(l) as string), seen: (what: 'pastes' | 'enters') => read(files[what]).length > 0}
  }
  const started = async (env: NodeJS.ProcessEnv) => {
    const id = (await sb.pk(['bg', 'claude'], {env})).stdout.trim()
    await waitFor('its prompt', async () => ((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)?.state === 'idle' ? true : null), 15_000)
    return id
  }

  it.each([
    ['before the paste', null],
    ['between the paste and Enter', 'pastes'],
    ['during the confirm', 'enters'],
  ] as const)(
    'pk send, stopped %s: exit 0, submitted once',
    async (_step, marker) => {
      const agent = tui()
      const id = await started(agent.env)
      const pid = serverPid(sb.pkSocket)
      let resumed: Promise<void> | null = marker === null ? stopFor(pid, 4000) : null
      const send = sb.pk(['send', id, 'slow but once', '--json', '--timeout', '30'])
      if (marker !== null) {
        await waitFor(`the ${marker} marker`, () => agent.seen(marker), 20_000)
        resumed = stopFor(pid, 4000)
      }
      const sent = await send
      await resumed
      expect(sent.code, sent.stderr).toBe(0)
      expect(JSON.parse(sent.stdout)).toMatchObject({id, submitted: true, enters: 1})
      expect(agent.submitted()).toEqual(['slow but once'])
    },
    60_000,
  )

  it('pk send with a deadline shorter than the stop, before the paste: exit 124, nothing typed', async () => {
    const agent = tui()
    const id = await started(agent.env)
    // Stopped until pk gave up (however long a loaded machine takes to start it), then let go.
    const pid = serverPid(sb.pkSocket)
    stopped.push(pid)
    process.kill(pid, 'SIGSTOP')
    const sent = await sb.pk(['send', id, 'never typed', '--timeout', '1'])
    process.kill(pid, 'SIGCONT')
    expect([sent.code, sent.stderr]).toEqual([124, expect.stringMatching(/did not answer .*nothing was (typed|done), try again/)])
    expect(agent.seen('pastes')).toBe(false)
    expect(sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)!.tmux!.pane)).not.toContain(
      'never typed',
    )
  }, 60_000)

  const dialog = async () => {
    const bin = join(sb.root, 'bin-codex')
    mkdirSync(bin, {recursive: true})
    copyFileSync(join(ROOT, 'test', 'helpers', 'dialog-standin.cjs'), join(bin, 'codex'))
    chmodSync(join(bin, 'codex'), 0o755)
    const answered = join(sb.root, 'answered')
    const env = {
      PATH: `${bin}:${process.env.PATH}`,
      STANDIN_SCREEN: join(ROOT, 'test', 'fixtures', 'panes', 'codex-0.171.0.waiting.permission.txt'),
      STANDIN_KEYS: 'codex',
      STANDIN_ANSWERED: answered,
    }
    const id = (await sb.pk(['bg', 'codex', '--', '--x'], {env})).stdout.trim()
    const row = (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)!
    sb.tmux(sb.pkSocket, 'resize-window', '-t', row.tmux!.pane, '-x', '120', '-y', '35')
    await waitFor('waiting', async () => ((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)?.state === 'waiting' ? true : null), 15_000)
    return {id, taken: () => (existsSync(answered) ? readFileSync(answered, 'utf8').trim().split('\n').map(Number) : [])}
  }

  it.each([
    ['before the keys', false],
    ['during the confirm', true],
  ] as const)(
    'pk answer, stopped %s: exit 0, answered once',
    async (_step, afterKeys) => {
      const {id, taken} = await dialog()
      const pid = serverPid(sb.pkSocket)
      let resumed: Promise<void> | null = afterKeys ? null : stopFor(pid, 4000)
      const answer = sb.pk(['answer', id, 'yes', '--json'])
      if (afterKeys) {
        await waitFor('the keys', () => taken().length > 0, 20_000)
        resumed = stopFor(pid, 4000)
      }
      const result = await answer
      await resumed
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({id, choice: {n: 1}, confirmed: true})
      expect(taken()).toEqual([1])
    },
    60_000,
  )

  it('pk answer with a deadline shorter than the stop: exit 124 (could not look), not 1 (no dialog); nothing typed', async () => {
    const {id, taken} = await dialog()
    // Stopped until pk answered (however long a loaded machine takes to start it), then let go.
    const pid = serverPid(sb.pkSocket)
    stopped.push(pid)
    process.kill(pid, 'SIGSTOP')
    const result = await sb.pk(['answer', id, 'yes', '--timeout', '1'])
    process.kill(pid, 'SIGCONT')
    expect([result.code, result.stderr]).toEqual([124, expect.stringMatching(/did not answer .*nothing was (typed|done), try again/)])
    expect(taken()).toEqual([])
  }, 60_000)
})
