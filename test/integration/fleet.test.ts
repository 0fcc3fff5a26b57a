import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, beforeEach, afterEach, describe, expect, it} from 'vitest'

import {shellQuote} from '../../src/lib/model/shell.js'
import {FleetRow} from '../../src/lib/fleet/fleet.js'
import {PK_BIN, Sandbox, waitFor} from '../helpers/sandbox.js'
import {SshWorld, sshUnavailable, startSshWorld} from '../helpers/sshd.js'

const skipReason = sshUnavailable()
if (skipReason) console.warn(`skipping ssh host tests: ${skipReason}`)
const sshDescribe = describe.skipIf(skipReason !== null)

interface FleetJson {
  schema: number
  sessions: FleetRow[]
  problems: {code: string; host?: string; message: string}[]
}

let world: SshWorld
let HOST_USERS: [string, string]
let scratch: Sandbox
let sb: Sandbox
const hostIds: Record<string, string> = {}

sshDescribe('pk across hosts over real OpenSSH', () => {
  beforeAll(async () => {
    scratch = new Sandbox()
    world = await startSshWorld(scratch.root)
    HOST_USERS = world.users
    for (const user of HOST_USERS) hostIds[user] = world.pkAs(user, ['bg', '--', 'sleep', '1000']).trim()
  }, 120_000)
  afterAll(() => {
    world?.stop()
    scratch?.cleanup()
  })
  beforeEach(() => {
    sb = new Sandbox()
  })
  afterEach(() => sb.cleanup())

  const host = (name: string, user: string, extra: Record<string, unknown> = {}) => ({
    name,
    destination: `${user}@127.0.0.1`,
    pk: world.remotePk,
    options: world.options,
    ...extra,
  })
  function configure(hosts: unknown[]): void {
    mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
    writeFileSync(join(sb.home, '.config', 'pk', 'config.json'), JSON.stringify({hosts}))
  }

  it('merges this machine and two hosts, each row tagged with its host and HOST/ID', async () => {
    configure([host('one', HOST_USERS[0]), host('two', HOST_USERS[1])])
    const local = await sb.pk(['bg', '--', 'sleep', '1000'])
    const result = await sb.pk(['ls', '--fleet', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const json = JSON.parse(result.stdout) as FleetJson
    expect(json.problems).toEqual([])
    const byHost = Object.fromEntries(json.sessions.map((s) => [s.host ?? 'local', s.id]))
    expect(byHost).toEqual({local: local.stdout.trim(), one: `one/${hostIds[HOST_USERS[0]]}`, two: `two/${hostIds[HOST_USERS[1]]}`})
    expect(json.sessions.every((s) => s.verified)).toBe(true)
    const text = await sb.pk(['ls', '--host', 'two'])
    expect(text.stdout).toContain(`two/${hostIds[HOST_USERS[1]]}`)
    expect(text.stdout).not.toContain(`one/`)
  })

  it('attaches to HOST/ID through ssh -t in a real terminal, verified on that host', async () => {
    configure([host('one', HOST_USERS[0])])
    const id = hostIds[HOST_USERS[0]]!
    const pane = JSON.parse(world.pkAs(HOST_USERS[0], ['ls', '--json'])).sessions[0].tmux.pane
    const printed = await sb.pk(['attach', `one/${id}`, '--print'])
    expect(printed.stdout).toMatch(new RegExp(`^ssh -t .* -- ${HOST_USERS[0]}@127\\.0\\.0\\.1 `))
    const term = sb.socket('term')
    const pk = [process.execPath, PK_BIN, 'attach', `one/${id.slice(0, 5)}`].map(shellQuote).join(' ')
    const status = join(sb.root, 'status')
    sb.tmux(
      term,
      'new-session',
      '-d',
      '-x',
      '100',
      '-y',
      '30',
      '--',
      'env',
      '-u',
      'TMUX',
      'sh',
      '-c',
      `${pk}; echo $? > ${shellQuote(status)}; exec sleep 1000`,
    )
    await waitFor('remote client', () => world.tmuxAs(HOST_USERS[0], ['list-clients', '-F', '#{pane_id}']).trim() === pane, 20_000)
    world.tmuxAs(HOST_USERS[0], ['detach-client', '-a'])
    world.tmuxAs(HOST_USERS[0], ['detach-client'])
    expect(await waitFor('ssh returns', () => existsSync(status) && readFileSync(status, 'utf8'), 20_000)).toBe('0\n')
  })

  it('reports unreachable hosts (stopped sshd, wrong key) and a missing remote pk, without hiding the others', async () => {
    configure([
      host('good', HOST_USERS[0]),
      host('closed', HOST_USERS[1], {options: world.options.map((o) => (o === String(world.port) ? '1' : o))}),
      host('wrongkey', HOST_USERS[1], {options: world.options.map((o) => (o.endsWith('/id') ? `${o}.pub` : o))}),
      host('nopk', HOST_USERS[1], {pk: '/nonexistent/pk'}),
    ])
    const result = await sb.pk(['ls', '--fleet', '--json'])
    expect(result.code).toBe(0)
    const json = JSON.parse(result.stdout) as FleetJson
    expect(json.sessions.map((s) => s.id)).toEqual([`good/${hostIds[HOST_USERS[0]]}`])
    const codes = Object.fromEntries(json.problems.map((p) => [p.host, p.code]))
    expect(codes).toEqual({closed: 'host-unreachable', wrongkey: 'host-unreachable', nopk: 'host-no-pk'})
    expect(json.problems.find((p) => p.host === 'closed')!.message).toMatch(/refused/i)
  })

  it('does not let a slow host hold up the rest beyond its timeout', async () => {
    configure([host('good', HOST_USERS[0]), host('slow', HOST_USERS[1], {pk: `sleep 30; ${world.remotePk}`, timeout: 2})])
    const started = Date.now()
    const json = JSON.parse((await sb.pk(['ls', '--fleet', '--json'])).stdout) as FleetJson
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(json.sessions.map((s) => s.host)).toEqual(['good'])
    expect(json.problems).toEqual([expect.objectContaining({code: 'host-unreachable', host: 'slow', message: expect.stringMatching(/no answer within 2 s/)})])
  })

  it('merges the watch streams of this machine and the hosts, tagged by host', async () => {
    configure([host('one', HOST_USERS[0])])
    const {spawn} = await import('node:child_process')
    const {createInterface} = await import('node:readline')
    const child = spawn(process.execPath, [PK_BIN, 'ls', '--watch', '--json', '--fleet'], {env: sb.env, stdio: ['ignore', 'pipe', 'pipe']})
    const events: {type: string; host?: string; sessions?: FleetRow[]}[] = []
    createInterface({input: child.stdout!}).on('line', (line) => events.push(JSON.parse(line)))
    const exited = new Promise((resolve) => child.on('exit', resolve))
    try {
      const snapshot = await waitFor('host snapshot', () => events.find((e) => e.type === 'snapshot' && e.host === 'one'), 20_000)
      expect(snapshot.sessions!.map((s) => s.id)).toEqual([`one/${hostIds[HOST_USERS[0]]}`])
      expect(events.some((e) => e.type === 'snapshot' && e.host === undefined)).toBe(true)
    } finally {
      child.kill('SIGINT')
    }
    expect(await exited).toBe(0)
  })

  it('runs doctor per host, and a remote pk never fans out again', async () => {
    configure([host('one', HOST_USERS[0])])
    const doctor = JSON.parse((await sb.pk(['doctor', '--fleet', '--json'])).stdout)
    expect(doctor.hosts).toEqual([expect.objectContaining({host: 'one', ok: true, problem: null})])
    expect(doctor.hosts[0].checks.map((c: {id: string}) => c.id)).toContain('tmux')
    const guarded = await sb.pk(['ls', '--fleet'], {env: {PK_FLEET_DEPTH: '1'}})
    expect(guarded.code).toBe(5)
    expect(guarded.stderr).toMatch(/does not fan out/)
  })
})
