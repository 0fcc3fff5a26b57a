import {ChildProcess} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer, IncomingHttpHeaders} from 'node:http'
import {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LsJson, PK_BIN, Sandbox, startWatcher, waitFor} from '../helpers/sandbox.js'
import {spooled as spooledIn} from '../helpers/reporting-session.js'
import {installStandins} from '../helpers/standins.js'

let sb: Sandbox
let env: NodeJS.ProcessEnv
let told: string
const children: ChildProcess[] = []
beforeEach(() => {
  sb = new Sandbox()
  env = {PATH: `${installStandins(sb.root)}:${process.env.PATH}`, STANDIN_OUT: sb.root}
  told = join(sb.root, 'told')
  configure([{command: ['sh', '-c', 'echo "$PK_ID $PK_STATE $PK_REASON {label}" >> "$0"', told]}, {tmux: true}])
})
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  sb.cleanup()
})

function configure(notify: unknown[]): void {
  mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
  writeFileSync(join(sb.home, '.config', 'pk', 'config.json'), JSON.stringify({notify}))
}

const lines = () => (existsSync(told) ? readFileSync(told, 'utf8').trim().split('\n').filter(Boolean) : [])

describe('notifications', () => {
  it('a waiting hook with nobody attached notifies exactly once, with the event in the environment', async () => {
    // The record's process was replaced by respawn-pane; report from a pane pk knows through its hook.
    const row = await sb.bgRow(
      [
        '--name',
        'api-fix',
        '--',
        'sh',
        '-c',
        `printf %s '{"hook_event_name":"Notification","notification_type":"permission_prompt","session_id":"c1"}' | "${process.execPath}" "${PK_BIN}" hook claude; exec sleep 100000`,
      ],
      {env},
    )
    await waitFor('told', () => lines().length > 0, 15_000)
    // The writer the hook started, and whatever it started, have ended: nothing more could tell it now.
    await sb.settled()
    // Asked again, by anyone: the same event is never told twice.
    await sb.pk(['notify'], {env})
    await sb.pk(['ls'], {env})
    expect(lines()).toEqual([`${row.id} waiting waiting for you api-fix`])
  })

  it('says nothing while a client is attached to the session, nor after it looked', async () => {
    const report = `sleep 2; printf %s '{"hook_event_name":"Notification","notification_type":"permission_prompt","session_id":"c3"}' | "${process.execPath}" "${PK_BIN}" hook claude; exec sleep 100000`
    const row = await sb.bgRow(['--name', 'watched', '--', 'sh', '-c', report], {env})
    const term = sb.socket('term')
    sb.tmux(term, 'new-session', '-d', '-x', '100', '-y', '20', '--', 'env', '-u', 'TMUX', 'tmux', '-S', sb.pkSocket, 'attach', '-t', row.tmux!.sessionId)
    await waitFor('attached', () => sb.tmuxTry(sb.pkSocket, 'list-clients').stdout.trim() !== '')
    const seen = await waitFor(
      'waiting',
      async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id && s.state === 'waiting'),
      15_000,
    )
    expect(seen.attached).toBe(true)
    // Where it would have been told: the hook's writer applied the event and ended.
    await waitFor('the event applied', () => spooledIn(sb).length === 0, 15_000)
    await sb.settled()
    expect(lines()).toEqual([])
    // Detached after looking: the event is acknowledged, and still nobody is told.
    sb.tmux(sb.pkSocket, 'detach-client', '-s', row.tmux!.sessionId)
    await sb.pk(['notify'], {env})
    expect(lines()).toEqual([])
  })

  it('two watchers and the hook notify once in all', async () => {
    const watchers = [0, 1].map(() => startWatcher({...sb.env, ...env}))
    children.push(...watchers.map((w) => w.child))
    // Both looked once before the session starts.
    await Promise.all(watchers.map((w) => w.passAfter(0)))
    const row = await sb.bgRow(
      [
        '--name',
        'crowd',
        '--',
        'sh',
        '-c',
        `printf %s '{"hook_event_name":"Stop","session_id":"c2"}' | "${process.execPath}" "${PK_BIN}" hook claude; exec sleep 100000`,
      ],
      {env},
    )
    await waitFor('told', () => lines().length > 0, 15_000)
    // Each watcher looked again after it was told, and what any of them started has ended.
    const told = Date.now()
    await Promise.all(watchers.map((w) => w.passAfter(told)))
    await sb.settled(watchers.map((w) => w.child.pid!))
    expect(lines()).toEqual([`${row.id} idle finished its turn crowd`])
  })

  it('a hanging notifier is killed and logged; pk notify --test reports every channel', async () => {
    configure([{command: ['sleep', '100'], timeout: 1}, {command: ['sh', '-c', 'echo "$PK_ID" > "$0"', told]}, {desktop: true}])
    await sb.bgRow(['--', 'sleep', '100000'], {env})
    const started = Date.now()
    const result = await sb.pk(['notify', '--test', '--json'], {env: {...env, DISPLAY: ''}})
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(result.code).toBe(1)
    const {results, delivered} = JSON.parse(result.stdout) as {delivered: boolean; results: {channel: string; ok: boolean; detail: string}[]}
    expect(delivered).toBe(true)
    expect(results).toEqual([
      {channel: 'command sleep', ok: false, detail: 'killed after 1 s', delivered: false},
      {channel: 'command sh', ok: true, detail: 'ran', delivered: true},
      {channel: 'desktop', ok: true, detail: 'no display (skipped)', delivered: false},
    ])
    expect(lines()).toEqual(['00000000'])
    expect(readFileSync(join(sb.stateDir, 'notify.log'), 'utf8')).toMatch(/command sleep: killed after 1 s/)
  })

  it('the tmux message reaches an attached client of another server', async () => {
    configure([{tmux: true}])
    const other = sb.socket('elsewhere')
    sb.tmux(other, 'new-session', '-d', '-s', 'mine', '--', 'sleep', '100000')
    const term = sb.socket('term')
    // Nobody attached anywhere: the channel did its part (exit 0), and pk says the sample reached nobody.
    const nobody = await sb.pk(['notify', '--test'], {env})
    expect(nobody.code).toBe(0)
    expect(nobody.stdout).toMatch(/skip tmux: no tmux client attached/)
    expect(nobody.stderr).toMatch(/reached nobody/)
    const nobodyJson = await sb.pk(['notify', '--test', '--json'], {env})
    expect([nobodyJson.code, JSON.parse(nobodyJson.stdout).delivered]).toEqual([0, false])
    sb.tmux(term, 'new-session', '-d', '-x', '120', '-y', '20', '-s', 'term', '--', 'env', '-u', 'TMUX', 'tmux', '-S', other, 'attach', '-t', 'mine')
    await waitFor('attached elsewhere', () => sb.tmuxTry(other, 'list-clients').stdout.trim() !== '')
    const result = await sb.pk(['notify', '--test'], {env})
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/ok {3}tmux: 1 client\(s\)/)
    await waitFor('message on the screen', () => sb.tmux(term, 'capture-pane', '-p', '-t', 'term').includes('pk: pk (test) 00000000 is testing'))
  })
})

describe('the ntfy channel', () => {
  /** A stand-in for an ntfy server: it keeps every request it gets, and answers with `status`. */
  async function ntfyServer(status = 200) {
    const got: {method: string; url: string; headers: IncomingHttpHeaders; body: string}[] = []
    const server = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        got.push({method: req.method!, url: req.url!, headers: req.headers, body})
        res.writeHead(status, {'Content-Type': 'application/json'}).end('{"id":"x"}')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    return {got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close()}
  }

  it('publishes a waiting session once: title, priority, tags, token and a link to its page', async () => {
    const ntfy = await ntfyServer()
    try {
      mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
      writeFileSync(
        join(sb.home, '.config', 'pk', 'config.json'),
        JSON.stringify({notify: [{ntfy: {url: `${ntfy.url}/pk-alerts`, token: 'tk_secret'}}], serve: {publicUrl: 'https://box.tailnet.ts.net'}}),
      )
      const row = await sb.bgRow(
        [
          '--name',
          'тест ünïcode',
          '--',
          'sh',
          '-c',
          `printf %s '{"hook_event_name":"Notification","notification_type":"permission_prompt","session_id":"c9"}' | "${process.execPath}" "${PK_BIN}" hook claude; exec sleep 100000`,
        ],
        {env},
      )
      await waitFor('published', () => ntfy.got.length > 0, 15_000)
      // Asked again, by anyone: the same event is never published twice.
      await sb.pk(['notify'], {env})
      await sb.pk(['ls'], {env})
      expect(ntfy.got).toHaveLength(1)
      const [request] = ntfy.got
      expect(request).toMatchObject({method: 'POST', url: '/pk-alerts', body: `claude (тест ünïcode) ${row.id} is waiting for you: pk attach ${row.id}`})
      expect(request!.headers).toMatchObject({
        priority: '4',
        tags: 'bell,claude',
        authorization: 'Bearer tk_secret',
        click: `https://box.tailnet.ts.net/#session=${row.id}`,
      })
      // A label outside ASCII reaches the title as an RFC 2047 word, which ntfy decodes.
      const title = /^=\?UTF-8\?B\?(.+)\?=$/.exec(String(request!.headers.title))
      expect(Buffer.from(title![1]!, 'base64').toString('utf8')).toBe('pk: claude (тест ünïcode) waiting for you')
    } finally {
      ntfy.close()
    }
  })

  it('pk notify --test says when the server refuses, and the token never reaches the log', async () => {
    const ntfy = await ntfyServer(403)
    try {
      configure([{ntfy: {url: `${ntfy.url}/t`, token: 'tk_secret'}}])
      await sb.bgRow(['--', 'sleep', '1000'], {env}) // a state directory to log in
      const result = await sb.pk(['notify', '--test'], {env})
      expect(result.code).toBe(1)
      expect(result.stdout).toMatch(/ntfy 127\.0\.0\.1:\d+: the server answered 403/)
      expect(ntfy.got).toHaveLength(1)
      const log = readFileSync(join(sb.stateDir, 'notify.log'), 'utf8')
      expect(log).toMatch(/403/)
      expect(log + result.stdout + result.stderr).not.toMatch(/tk_secret/)
    } finally {
      ntfy.close()
    }
  })

  it('a topic that is not an http(s) URL is a config error; a project config cannot set serve', async () => {
    configure([{ntfy: {url: 'ftp://x/y'}}])
    const bad = await sb.pk(['ls'], {env})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/https:\/\/HOST\/TOPIC/)
    configure([])
    const project = join(sb.root, 'project')
    mkdirSync(project)
    writeFileSync(join(project, '.pkrc.json'), JSON.stringify({serve: {publicUrl: 'https://evil.example'}}))
    const refused = await sb.pk(['ls'], {env, cwd: project})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/serve: a project's config cannot set/)
  })
})
