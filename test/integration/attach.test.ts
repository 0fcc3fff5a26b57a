import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {shellQuote} from '../../src/lib/model/shell.js'
import {SessionRow} from '../../src/lib/model/contract.js'
import {sessionIdOf} from '../../src/lib/proc/identity.js'
import {processSource, readView} from '../../src/lib/proc/source.js'
import {PK_BIN, Sandbox, waitFor, LsJson} from '../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

const bg = (args: string[]) => sb.bgRow(args)

const pkCommand = (...args: string[]) => [process.execPath, PK_BIN, ...args].map(shellQuote).join(' ')

/** The pane each client of a server is looking at. */
function clientPanes(socket: string): string[] {
  const out = sb.tmuxTry(socket, 'list-clients', '-F', '#{pane_id}').stdout
  return out.split('\n').filter(Boolean)
}

describe('pk attach through a real terminal', () => {
  it('outside tmux: attaches a client to the right pane, and exits 0 on detach', async () => {
    const a = await bg(['--', 'sleep', '1000'])
    const b = await bg(['--', 'sleep', '1000'])
    // The "terminal": a pane of a separate tmux server, with no TMUX in its environment. A shell around pk
    // records its exit status (tmux 3.3 can miss the SIGCHLD of a short-lived node pane process).
    const term = sb.socket('term')
    const status = join(sb.root, 'attach-status')
    const script = `${pkCommand('attach', b.id.slice(0, 5))}; echo "$?" > ${shellQuote(status)}; exec sleep 1000`
    sb.tmux(term, 'new-session', '-d', '-x', '100', '-y', '30', '-s', 'term', '--', 'env', '-u', 'TMUX', '-u', 'TMUX_PANE', 'sh', '-c', script)
    await waitFor('client on the pk server', () => clientPanes(sb.pkSocket).length === 1)
    expect(clientPanes(sb.pkSocket)).toEqual([b.tmux!.pane])
    expect(clientPanes(sb.pkSocket)).not.toContain(a.tmux!.pane)

    sb.tmux(sb.pkSocket, 'detach-client', '-s', b.tmux!.sessionId)
    expect(await waitFor('pk attach to exit', () => existsSync(status) && readFileSync(status, 'utf8'))).toBe('0\n')
  })

  it('inside tmux on the same server: switches the client to the pane', async () => {
    const shell = await bg(['--', 'bash', '--norc', '--noprofile'])
    const target = await bg(['--', 'sleep', '1000'])
    const term = sb.socket('term')
    sb.tmux(term, 'new-session', '-d', '-x', '100', '-y', '30', '--', 'env', '-u', 'TMUX', 'tmux', '-S', sb.pkSocket, 'attach-session', '-t', shell.tmux!.pane)
    await waitFor('client on the shell pane', () => clientPanes(sb.pkSocket)[0] === shell.tmux!.pane)
    sb.tmux(sb.pkSocket, 'send-keys', '-t', shell.tmux!.pane, pkCommand('attach', target.id), 'Enter')
    await waitFor('client switched', () => clientPanes(sb.pkSocket)[0] === target.tmux!.pane, 10_000)
    expect(clientPanes(sb.pkSocket)).toEqual([target.tmux!.pane])
  })

  it('inside tmux on another server: a popup holds a nested client; the user stays in their session', async () => {
    const target = await bg(['--', 'sleep', '1000'])
    const outer = sb.socket('outer')
    sb.tmux(outer, 'new-session', '-d', '-s', 'work', '-x', '120', '-y', '40', '--', 'bash', '--norc', '--noprofile')
    const term = sb.socket('term')
    sb.tmux(term, 'new-session', '-d', '-x', '120', '-y', '40', '--', 'env', '-u', 'TMUX', 'tmux', '-S', outer, 'attach-session', '-t', 'work')
    await waitFor('client on the outer server', () => clientPanes(outer).length === 1)
    sb.tmux(outer, 'send-keys', '-t', 'work', pkCommand('attach', target.id) + '; echo "attach-exit=$?"', 'Enter')
    await waitFor('nested client in the popup', () => clientPanes(sb.pkSocket)[0] === target.tmux!.pane, 10_000)
    // The user's own client is still on their own session.
    expect(sb.tmux(outer, 'list-clients', '-F', '#{session_name}').trim()).toBe('work')

    sb.tmux(sb.pkSocket, 'detach-client', '-s', target.tmux!.sessionId)
    await waitFor('popup closed and pk exited', () => sb.tmux(outer, 'capture-pane', '-p', '-t', 'work').includes('attach-exit=0'), 10_000)
  })
})

describe('in a terminal', () => {
  it('pk bg --attach lands in the new session; pk ls draws a coloured table unless NO_COLOR', async () => {
    const term = sb.socket('term')
    sb.tmux(
      term,
      'new-session',
      '-d',
      '-x',
      '150',
      '-y',
      '30',
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
      `${pkCommand('bg', '--attach', '--', 'sleep', '1000')}; exec sleep 1000`,
    )
    await waitFor('client on the new session', () => clientPanes(sb.pkSocket).length === 1)
    const {sessions} = await sb.pkJson<LsJson>(['ls'])
    expect(sessions).toHaveLength(1)
    expect(clientPanes(sb.pkSocket)).toEqual([sessions[0]!.tmux!.pane])
    expect(sessions[0]!.attached).toBe(true)

    sb.tmux(term, 'new-window', '-t', 'term', '--', 'sh', '-c', `${pkCommand('ls')}; echo; NO_COLOR=1 ${pkCommand('ls')}; exec sleep 1000`)
    const screen = await waitFor('two tables', () => {
      const text = sb.tmux(term, 'capture-pane', '-p', '-e', '-t', 'term:1')
      return text.split('ID ').length === 3 ? text : null
    })
    const [coloured, plain] = screen.split(/\n\s*\n/)
    expect(coloured).toContain('\u001B[')
    expect(coloured).toContain(sessions[0]!.id)
    expect(plain).not.toContain('\u001B[')
  })

  it('pk bg --attach without a terminal refuses before starting anything', async () => {
    const result = await sb.pk(['bg', '--attach', '--', 'sleep', '1000'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/needs a terminal/)
    expect(sb.sockets()).toEqual([])
  })
})

describe('pk attach refuses what it cannot verify', () => {
  it('needs a terminal outside tmux, and --print gives the exact command', async () => {
    const a = await bg(['--', 'sleep', '1000'])
    const noTty = await sb.pk(['attach', a.id])
    expect(noTty.code).toBe(1)
    expect(noTty.stderr).toMatch(/needs a terminal/)
    const printed = await sb.pk(['attach', a.id, '--print'])
    expect(printed.code).toBe(0)
    expect(printed.stdout.trim()).toBe(
      `tmux -S ${sb.pkSocket} select-window -t ${a.tmux!.pane} ';' select-pane -t ${a.tmux!.pane} ';' attach-session -t ${a.tmux!.pane}`,
    )
  })

  it('exit 2 for malformed ids, 3 for unknown or exited ones, 4 for ambiguous prefixes', async () => {
    const live = await bg(['--', 'sleep', '1000'])
    for (const bad of ['', 'xyz', '../../etc', 'a b', "'; rm -rf ~", '123456789', '-1']) {
      const result = await sb.pk(['attach', '--', bad])
      expect(result.code, bad).toBe(2)
    }
    expect((await sb.pk(['attach', live.id === '00000000' ? '11111111' : '00000000'])).code).toBe(3)

    // Plant an exited record whose id shares the live id's first two characters.
    const dir = join(sb.stateDir, 'sessions')
    const record = JSON.parse(readFileSync(join(dir, `${live.id}.json`), 'utf8'))
    let startTime = 1
    const identity = () => ({...record.identity, pid: 4_000_000, startTime})
    while (sessionIdOf(identity()).slice(0, 2) !== live.id.slice(0, 2)) startTime++
    const ghost = sessionIdOf(identity())
    writeFileSync(join(dir, `${ghost}.json`), JSON.stringify({...record, identity: identity()}))

    const ambiguous = await sb.pk(['attach', live.id.slice(0, 2)])
    expect(ambiguous.code).toBe(4)
    expect(ambiguous.stderr).toContain(live.id)
    expect(ambiguous.stderr).toContain(ghost)
    const exited = await sb.pk(['attach', ghost, '--print'])
    expect(exited.code).toBe(3)
    expect(exited.stderr).toMatch(/has exited/)
    expect((await sb.pk(['attach', live.id, '--print'])).code).toBe(0)
  })
})

describe('tampering never points an id at another process', () => {
  /** Every row with a pane and a pid: the pid really is that pane's process or runs inside it. */
  function assertHonest(rows: SessionRow[]): void {
    for (const row of rows) {
      if (!row.tmux || row.pid === null) continue
      const panePid = Number(sb.tmux(row.tmux.socket, 'display-message', '-p', '-t', row.tmux.pane, '#{pane_pid}').trim())
      let pid = row.pid
      while (pid !== panePid && pid > 1) pid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])
      expect(pid, `row ${row.id}`).toBe(panePid)
      const startTime = processSource().stat(row.pid)!.startTime
      if (!row.conflict) expect(row.id).toBe(sessionIdOf({...readView().view, pid: row.pid, startTime}))
    }
  }

  it("copying A's record over B's: a conflict, nobody attaches to A, B's id still means B's pane", async () => {
    const a = await bg(['--name', 'alpha', '--', 'sleep', '1000'])
    const b = await bg(['--name', 'beta', '--', 'sleep', '1001'])
    const dir = join(sb.stateDir, 'sessions')
    writeFileSync(join(dir, `${b.id}.json`), readFileSync(join(dir, `${a.id}.json`)))

    const json = await sb.pkJson<LsJson>(['ls', '--all'])
    const conflict = json.problems.find((p) => p.code === 'conflict')!
    expect(conflict.files).toEqual([join(dir, `${a.id}.json`), join(dir, `${b.id}.json`)].sort())
    expect(json.sessions.find((s) => s.id === a.id)).toMatchObject({conflict: true, verified: false})
    const bRow = json.sessions.find((s) => s.id === b.id)!
    expect(bRow.tmux!.pane).toBe(b.tmux!.pane)
    assertHonest(json.sessions)

    expect((await sb.pk(['attach', a.id, '--print'])).code).toBe(4)
    const toB = await sb.pk(['attach', b.id, '--print'])
    expect(toB.stdout).toContain(`attach-session -t ${b.tmux!.pane}`)
  })

  it("renaming B's tmux session to A's name changes no id and no target", async () => {
    const a = await bg(['--name', 'alpha', '--', 'sleep', '1000'])
    const b = await bg(['--name', 'beta', '--', 'sleep', '1001'])
    sb.tmux(sb.pkSocket, 'rename-session', '-t', a.tmux!.sessionId, 'renamed')
    sb.tmux(sb.pkSocket, 'rename-session', '-t', b.tmux!.sessionId, a.tmux!.session)
    const json = await sb.pkJson<LsJson>(['ls'])
    expect(json.sessions.find((s) => s.id === a.id)!.tmux).toMatchObject({pane: a.tmux!.pane, session: 'renamed'})
    expect(json.sessions.find((s) => s.id === b.id)!.tmux).toMatchObject({pane: b.tmux!.pane, session: a.tmux!.session})
    assertHonest(json.sessions)
    expect((await sb.pk(['attach', a.id, '--print'])).stdout).toContain(`attach-session -t ${a.tmux!.pane}`)
  })

  it('two records claiming one process: both reported, neither attachable', async () => {
    const a = await bg(['--', 'sleep', '1000'])
    const dir = join(sb.stateDir, 'sessions')
    writeFileSync(join(dir, 'copy.json'), readFileSync(join(dir, `${a.id}.json`)))
    const json = await sb.pkJson<LsJson>(['ls'])
    expect(json.problems).toContainEqual(expect.objectContaining({code: 'conflict', files: [join(dir, `${a.id}.json`), join(dir, 'copy.json')].sort()}))
    const attach = await sb.pk(['attach', a.id])
    expect(attach.code).toBe(4)
    expect(attach.stderr).toMatch(/more than one record/)
  })
})
