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
  it("pk serve --host: the page lists the host's sessions as HOST/ID and acts on them through that host's pk", async () => {
    // Its own sessions on host two (the others' listings above stay as they are), removed at the end.
    const user = HOST_USERS[1]
    const reader = world.pkAs(user, ['bg', '--', 'sh', '-c', 'printf "ready\\n"; exec cat']).trim()
    const sleeper = world.pkAs(user, ['bg', '--', 'sleep', '1000']).trim()
    configure([host('two', user), host('closed', user, {options: world.options.map((o) => (o === String(world.port) ? '1' : o))})])
    const {spawn} = await import('node:child_process')
    const child = spawn(process.execPath, [PK_BIN, 'serve', '--listen', '127.0.0.1:0', '--fleet'], {env: sb.env, stdio: ['ignore', 'pipe', 'pipe']})
    let printed = ''
    child.stdout!.on('data', (d) => (printed += d))
    try {
      const url = await waitFor('the address printed', () => /^(http:\/\/127\.0\.0\.1:\d+)\/login\?token=[\w-]+\n/.exec(printed), 20_000)
      const origin = url[1]!
      // Signed in as the page is: the token for a key, sent in a header.
      const token = new URL(url[0].trim()).searchParams.get('token')!
      const issued = await fetch(`${origin}/api/session`, {
        method: 'POST',
        headers: {origin, 'content-type': 'application/json'},
        body: JSON.stringify({token}),
      })
      const authorization = `Bearer ${((await issued.json()) as {key: string}).key}`
      const get = (path: string) => fetch(origin + path, {headers: {authorization}})
      const post = (path: string, body: object) =>
        fetch(origin + path, {method: 'POST', headers: {authorization, origin, 'content-type': 'application/json'}, body: JSON.stringify(body)})

      // The event stream: one snapshot with this machine's and the host's sessions, and the closed host's problem.
      const events = await get('/api/events')
      const reading = events.body!.getReader()
      let buffered = ''
      type Snapshot = {type: string; sessions: FleetRow[]; problems: {code: string; host?: string; message: string}[]}
      const snapshot = await waitFor(
        'a snapshot with both hosts told',
        async () => {
          const {value} = await reading.read()
          buffered += new TextDecoder().decode(value)
          const snapshots = [...buffered.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Snapshot).filter((e) => e.type === 'snapshot')
          return snapshots.reverse().find((e) => e.sessions.some((r) => r.id === `two/${reader}`) && e.problems.some((p) => p.host === 'closed'))
        },
        30_000,
      )
      await reading.cancel()
      const row = snapshot.sessions.find((r) => r.id === `two/${reader}`)!
      expect(row.host).toBe('two')
      expect(snapshot.sessions.find((r) => r.id === `two/${sleeper}`)?.host).toBe('two')
      expect(snapshot.problems.find((p) => p.host === 'closed')).toMatchObject({code: 'host-unreachable', message: expect.stringMatching(/^closed: /)})

      // The screen, read by that host's pk logs --screen.
      const path = (id: string, verb: string) => `/api/sessions/${encodeURIComponent(`two/${id}`)}/${verb}`
      const screen = await get(path(reader, 'screen'))
      expect(screen.status).toBe(200)
      const look = (await screen.json()) as {id: string; screen: {cols: number; text: string}; dialog: unknown}
      expect(look).toMatchObject({id: `two/${reader}`, dialog: null})
      expect(look.screen.cols).toBeGreaterThan(0)
      expect(look.screen.text).toContain('ready')

      // A line sent from the page, with a leading dash (never a flag there), arrives once in the host's pane.
      const sent = await post(path(reader, 'send'), {text: '-n from the page'})
      expect(sent.status, await sent.clone().text()).toBe(200)
      expect(((await sent.json()) as {result: {id: string}}).result.id).toBe(`two/${reader}`)
      const pane = (JSON.parse(world.pkAs(user, ['ls', '--json'])) as {sessions: FleetRow[]}).sessions.find((s) => s.id === reader)!.tmux!.pane
      const shown = await waitFor("the line in the host's pane", () => {
        const text = world.tmuxAs(user, ['capture-pane', '-p', '-t', pane])
        return text.includes('-n from the page') ? text : null
      })
      expect(shown.split('-n from the page').length - 1).toBeGreaterThanOrEqual(1)
      // (cat echoes the line once: the terminal's echo and cat's copy make two, never more)
      expect(shown.split('-n from the page').length - 1).toBeLessThanOrEqual(2)

      // The host's own refusal, in its words and with its exit: a dialog answer where there is none.
      const refused = await post(path(reader, 'answer'), {answer: 'yes', dialog: '0123456789abcdef'})
      expect(refused.status).toBe(409)
      expect(((await refused.json()) as {error: {exit: number; message: string}}).error).toMatchObject({exit: 1, message: expect.stringMatching(/^two: /)})
      // Words for a question go to the host's pk on its standard input (never in an argv any user there can
      // read), and a dash there is no flag: typed into the plain command, as pk answer --text types them.
      // (pinned to the question the page showed: none where it read no dialog; words naming none are refused)
      expect((await post(path(reader, 'answer'), {text: 'unpinned'})).status).toBe(400)
      const words = await post(path(reader, 'answer'), {text: '--the secret plan', dialog: 'none'})
      expect(words.status, await words.clone().text()).toBe(200)
      await waitFor('the words there', async () =>
        ((await (await get(path(reader, 'screen'))).json()) as {screen: {text: string}}).screen.text.includes('--the secret plan'),
      )
      // A host this server does not serve, and an id there that names nothing.
      expect((await post(`/api/sessions/${encodeURIComponent(`elsewhere/${reader}`)}/stop`, {})).status).toBe(404)
      expect((await post(path('00000000', 'stop'), {})).status).toBe(404)
      // An id that is a flag there (pk stop --all) is no id: refused here, nothing run on the host.
      const flag = await post(`/api/sessions/${encodeURIComponent('two/--all')}/stop`, {})
      expect(flag.status).toBe(400)
      expect(((await flag.json()) as {error: {code: string}}).error.code).toBe('bad-id')

      // Stop, done by the host's pk stop.
      const stopped = await post(path(sleeper, 'stop'), {})
      expect(stopped.status, await stopped.clone().text()).toBe(200)
      const after = (JSON.parse(world.pkAs(user, ['ls', '--json', '--all'])) as {sessions: FleetRow[]}).sessions
      expect(after.find((s) => s.id === sleeper)?.state).toBe('exited')
    } finally {
      child.kill('SIGTERM')
      world.pkAs(user, ['stop', reader])
      world.pkAs(user, ['prune', '--yes'])
    }
  }, 120_000)
})
