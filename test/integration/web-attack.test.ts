import {ChildProcess, execFileSync, spawn} from 'node:child_process'
import {existsSync, readFileSync, statSync} from 'node:fs'
import {request} from 'node:http'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {installTuiStandin} from '../helpers/standins.js'
import {LsJson, PK_BIN, Sandbox, waitFor} from '../helpers/sandbox.js'

/**
 * Issue 53's attacks on pk serve, at the HTTP level, as a page elsewhere, a process of this user without
 * the token, or another local user would make them: each refused, and nothing typed into any pane.
 */
let sb: Sandbox
let server: ChildProcess | null = null
let env: NodeJS.ProcessEnv
let submitted: string
beforeEach(() => {
  sb = new Sandbox()
  submitted = join(sb.root, 'submitted')
  env = {PATH: installTuiStandin(sb.root), STANDIN_SUBMITTED: submitted, STANDIN_READY_MS: '0'}
})
afterEach(() => {
  server?.kill('SIGTERM')
  server = null
  sb.cleanup()
})

async function serve(args: string[] = []): Promise<{url: string; origin: string; token: string}> {
  const child = spawn(process.execPath, [PK_BIN, 'serve', '--listen', '127.0.0.1:0', ...args], {env: {...sb.env, ...env}, stdio: ['ignore', 'pipe', 'pipe']})
  server = child
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  const url = await waitFor('the address printed', () => /^(http:\/\/127\.0\.0\.1:\d+)\/login\?token=([\w-]+)\n/.exec(out), 20_000)
  return {url: url[0].trim(), origin: url[1]!, token: url[2]!}
}

/** One raw HTTP request: every header as given (fetch would not let a Host or an Origin be forged). */
function raw(origin: string, path: string, opts: {method?: string; headers?: Record<string, string>; body?: string} = {}) {
  const {hostname, port} = new URL(origin)
  return new Promise<{status: number; headers: Record<string, string | string[] | undefined>; body: string}>((resolve, reject) => {
    const req = request({hostname, port, path, method: opts.method ?? 'GET', headers: {Host: `${hostname}:${port}`, ...opts.headers}}, (res) => {
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({status: res.statusCode!, headers: res.headers, body}))
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

/**
 * Signing in as the page does: the printed address hands the token to the page (in the fragment of where
 * it sends it; no cookie), which exchanges it for a key of this run; the key goes in a header. The header's
 * value, for the requests below.
 */
async function signIn(origin: string, token: string): Promise<string> {
  const answer = await raw(origin, `/login?token=${token}`)
  expect(answer.status).toBe(303)
  expect(answer.headers['set-cookie']).toBeUndefined()
  expect(answer.headers.location).toBe(`/#token=${token}`)
  const issued = await raw(origin, '/api/session', {
    method: 'POST',
    headers: {'Content-Type': 'application/json', Origin: origin},
    body: JSON.stringify({token}),
  })
  expect(issued.status, issued.body).toBe(200)
  expect(issued.headers['set-cookie']).toBeUndefined()
  const {key} = JSON.parse(issued.body) as {key: string}
  expect(key).not.toContain(token)
  return `Bearer ${key}`
}

const post = (origin: string, path: string, auth: string, body: unknown, headers: Record<string, string> = {}) =>
  raw(origin, path, {
    method: 'POST',
    headers: {Authorization: auth, 'Content-Type': 'application/json', Origin: origin, ...headers},
    body: JSON.stringify(body),
  })

describe('pk serve under attack', () => {
  it('no token, a wrong token, a wrong Host, a cross-origin or form POST: refused, nothing typed', async () => {
    const row = await sb.bgRow(['claude'], {env})
    await waitFor('idle', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id && s.state === 'idle'), 15_000)
    const {origin, token} = await serve()
    const path = `/api/sessions/${row.id}/send`

    expect((await raw(origin, '/api/state')).status).toBe(401)
    expect((await post(origin, path, '', {text: 'no token'})).status).toBe(401)
    expect((await post(origin, path, 'Bearer wrong.key', {text: 'wrong key'})).status).toBe(401)
    // A cookie is no credential at all here, whatever it holds.
    expect((await raw(origin, '/api/state', {headers: {Cookie: 'pk_session=anything'}})).status).toBe(401)
    expect((await raw(origin, `/login?token=${'A'.repeat(43)}`)).status).toBe(401)
    const auth = await signIn(origin, token)
    // DNS rebinding: the page's own name in Host, with a valid key even.
    for (const host of ['evil.example:80', 'evil.example', `attacker.com:${new URL(origin).port}`]) {
      expect((await raw(origin, '/api/state', {headers: {Host: host, Authorization: auth}})).status).toBe(403)
      expect((await post(origin, path, auth, {text: 'rebinding'}, {Host: host})).status).toBe(403)
    }
    // Cross-site: another Origin, none, a form's content type, a cross-site fetch.
    expect((await post(origin, path, auth, {text: 'cross origin'}, {Origin: 'https://evil.example'})).status).toBe(403)
    expect(
      (await raw(origin, path, {method: 'POST', headers: {Authorization: auth, 'Content-Type': 'application/json'}, body: '{"text":"no origin"}'})).status,
    ).toBe(403)
    expect(
      (await raw(origin, path, {method: 'POST', headers: {Authorization: auth, Origin: origin, 'Content-Type': 'text/plain'}, body: '{"text":"form"}'})).status,
    ).toBe(400)
    expect((await raw(origin, '/api/state', {headers: {Authorization: auth, 'Sec-Fetch-Site': 'cross-site'}})).status).toBe(403)
    // The token itself is no key, and the key exchange takes a change's checks (the page's Origin, JSON).
    expect((await raw(origin, '/api/state', {headers: {Authorization: `Bearer ${token}`}})).status).toBe(401)
    expect(
      (
        await raw(origin, '/api/session', {
          method: 'POST',
          headers: {'Content-Type': 'application/json', Origin: 'https://evil.example'},
          body: JSON.stringify({token}),
        })
      ).status,
    ).toBe(403)
    expect(existsSync(submitted)).toBe(false)

    // Every answer carries the page's policy: scripts from itself only, no inline script, no eval, no frames.
    const page = await raw(origin, '/')
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'(;|$)/)
    expect(page.headers['content-security-policy']).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/)
    expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/)
    expect(page.body).not.toContain(token)
    expect(page.body).not.toMatch(/<script>|onerror=|onclick=/)

    // The same request from the page's own origin goes through: the refusals above were the checks.
    const sent = await post(origin, path, auth, {text: 'from the page'})
    expect(sent.status, sent.body).toBe(200)
    expect(readFileSync(submitted, 'utf8').trim()).toBe('"from the page"')
  }, 60_000)

  it("many wrong tokens or keys in a row are rate limited; the owner's right token and key still pass (issue 62, item 6)", async () => {
    const {origin, token} = await serve()
    const auth = await signIn(origin, token)
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) statuses.push((await raw(origin, `/login?token=wrong${i}`)).status)
    for (let i = 0; i < 6; i++) statuses.push((await raw(origin, '/api/state', {headers: {Authorization: `Bearer ${i}.${'x'.repeat(43)}`}})).status)
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401))
    expect(statuses.slice(10)).toEqual([429, 429])
    const blocked = await raw(origin, `/login?token=wrong-again`)
    expect(blocked.status).toBe(429)
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)
    // The owner: the right token signs in, the page's key and its event stream still answer.
    expect((await raw(origin, `/login?token=${token}`)).status).toBe(303)
    expect((await raw(origin, '/api/state', {headers: {Authorization: auth}})).status).toBe(200)
    expect(await signIn(origin, token)).toMatch(/^Bearer /)
  }, 30_000)

  it('refuses to listen beyond loopback without TLS (exit 2), and keeps its token 0600 for pk serve --url', async () => {
    const open = await sb.pk(['serve', '--listen', '0.0.0.0:0'])
    expect(open.code).toBe(2)
    expect(open.stderr).toMatch(/refusing to serve on 0\.0\.0\.0 without TLS/)
    expect((await sb.pk(['serve', '--listen', 'example.com:80'])).code).toBe(2)
    expect((await sb.pk(['serve', '--url'])).code).toBe(1)
    await sb.bgRow(['--', 'sleep', '1000'])
    const {url} = await serve()
    const file = join(sb.stateDir, 'serve.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const again = await sb.pk(['serve', '--url'])
    expect(again.stdout.trim()).toBe(url)
    // The token is in no process's argv.
    const token = new URL(url).searchParams.get('token')!
    const argvs = execFileSync('ps', ['-eo', 'args'], {encoding: 'utf8'})
    expect(argvs).not.toContain(token)
  }, 30_000)

  it('pk serve --url tells the address of one that runs: on a fresh install, after a second one stopped, and none once all are gone (issue 63, item 4)', async () => {
    // A fresh install: no state directory yet, no session.
    expect(existsSync(sb.stateDir)).toBe(false)
    const first = await serve()
    const url = async () => (await sb.pk(['serve', '--url'])).stdout.trim()
    expect(await url()).toBe(first.url)
    const firstServer = server!
    const second = await serve()
    expect(second.url).not.toBe(first.url)
    expect(await url()).toBe(second.url)
    server!.kill('SIGTERM')
    await waitFor('the second stopped', async () => (await url()) === first.url, 15_000)
    // Killed outright (it could not take itself out): the kernel says it is gone.
    firstServer.kill('SIGKILL')
    await waitFor('none runs', async () => (await sb.pk(['serve', '--url'])).code === 1, 15_000)
    expect((await sb.pk(['serve', '--url'])).stderr).toMatch(/no pk serve runs now \(the last one was at http/)
    server = null
  }, 60_000)

  it.skipIf(process.getuid?.() !== 0)(
    'another local user, without the token, gets nothing: not the file, not the API',
    async () => {
      await sb.bgRow(['--', 'sleep', '1000'])
      const {origin} = await serve()
      const file = join(sb.stateDir, 'serve.json')
      const read = (() => {
        try {
          execFileSync('runuser', ['-u', 'nobody', '--', 'cat', file], {stdio: 'pipe'})
          return 'read'
        } catch {
          return 'refused'
        }
      })()
      expect(read).toBe('refused')
      const status = execFileSync(
        'runuser',
        ['-u', 'nobody', '--', process.execPath, '-e', `fetch(${JSON.stringify(`${origin}/api/state`)}).then((r) => console.log(r.status))`],
        {encoding: 'utf8'},
      ).trim()
      expect(status).toBe('401')
    },
    30_000,
  )
})
