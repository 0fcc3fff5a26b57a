import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'

import {Context as HonoContext, Hono} from 'hono'
import {streamSSE} from 'hono/streaming'

import {parseAnswer} from '../agents/dialogs.js'
import {Context} from '../config/context.js'
import {SessionRow} from '../model/contract.js'
import {describeError, ExitCode, PkError} from '../model/errors.js'
import {NO_DIALOG, answerDialog} from '../verbs/answer.js'
import {readLogs, resumeSession, screenOf, stopSession} from '../verbs/lifecycle.js'
import {sendText} from '../verbs/send.js'
import {continueSession} from '../verbs/continue.js'
import {HostConfig} from '../config/config.js'
import {remoteProblem, runRemote, splitFleetId} from '../fleet/fleet.js'
import {checkIdForm} from '../listing/resolve.js'
import {SessionFeed} from './feed.js'
import {markViewed} from '../tmux/session.js'
import {allowedOrigins, bearer, CSP, FailedTries, PageKeys, sameSecret} from './security.js'

/**
 * `pk serve`'s HTTP side: one page and its API. A request is a command: it lists with the listing (through
 * the one poller every page shares) and acts with the verbs pk's commands use, under their checks; what a
 * verb refuses, the page is told in the verb's own words, with the exit the command would give.
 */

export interface WebOptions {
  ctx: Context
  token: string
  /** Host headers answered (DNS rebinding is refused). */
  hosts: Set<string>
  tls: boolean
  publicUrl?: string
  /** Why every action is refused (--read-only, or a pk in a foreign pid namespace), or null. */
  readOnly: string | null
  /** How often the shared poller looks. */
  intervalMs?: number
  /** The page's files (assets/web) and xterm.js's. */
  assetsDir: string
  /** Other hosts whose sessions are listed and acted on, through their own pk over ssh (--fleet, --host). */
  remotes?: HostConfig[]
  /** The page keys of this run (a test gives its own clock). */
  keys?: PageKeys
}

/** How long an action waits for a slow tmux server: what the CLI's --timeout defaults to. */
const ACTION_TIMEOUT_MS = 30_000

/** Pure: the HTTP status for a verb's exit: what a script would branch on, as a page can. */
export function httpStatus(exit: number): 200 | 202 | 400 | 403 | 404 | 409 | 500 | 504 {
  if (exit === ExitCode.ok) return 200
  if (exit === ExitCode.usage) return 400
  if (exit === ExitCode.noSuchSession) return 404
  if (exit === ExitCode.failure || exit === ExitCode.ambiguous) return 409
  if (exit === ExitCode.refused) return 403
  if (exit === ExitCode.unconfirmed) return 202
  if (exit === ExitCode.timeout) return 504
  return 500
}

const FILES: Record<string, {file: string; type: string}> = {
  '/': {file: 'index.html', type: 'text/html; charset=utf-8'},
  '/app.js': {file: 'app.js', type: 'text/javascript; charset=utf-8'},
  '/app.css': {file: 'app.css', type: 'text/css; charset=utf-8'},
  '/manifest.webmanifest': {file: 'manifest.webmanifest', type: 'application/manifest+json'},
  '/icon.svg': {file: 'icon.svg', type: 'image/svg+xml'},
}

/** The page's files, read once: a fixed list, so no request names a path on disk. */
function loadFiles(assetsDir: string): Map<string, {body: string; type: string}> {
  const files = new Map<string, {body: string; type: string}>()
  for (const [path, {file, type}] of Object.entries(FILES)) files.set(path, {body: readFileSync(join(assetsDir, file), 'utf8'), type})
  // xterm.js, as its package ships it (the page needs no build step).
  const require = createRequire(import.meta.url)
  const xterm = join(require.resolve('@xterm/xterm/package.json'), '..')
  files.set('/vendor/xterm.mjs', {body: readFileSync(join(xterm, 'lib', 'xterm.mjs'), 'utf8'), type: 'text/javascript; charset=utf-8'})
  files.set('/vendor/xterm.css', {body: readFileSync(join(xterm, 'css', 'xterm.css'), 'utf8'), type: 'text/css; charset=utf-8'})
  return files
}

type Json = Record<string, unknown>

/** A request's JSON object, or an empty one. */
async function body(c: HonoContext): Promise<Json> {
  try {
    const data: unknown = await c.req.json()
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Json) : {}
  } catch {
    return {}
  }
}
const text = (data: Json, key: string) => (typeof data[key] === 'string' ? data[key] : null)

export function buildApp(opts: WebOptions): {app: Hono; feed: SessionFeed} {
  const app = new Hono()
  const files = loadFiles(opts.assetsDir)
  const remotes = opts.remotes ?? []
  const feed = new SessionFeed(opts.ctx, opts.intervalMs ?? 700, remotes)
  const tries = new FailedTries()
  const keys = opts.keys ?? new PageKeys()
  const fail = (c: HonoContext, status: 400 | 401 | 403 | 404 | 409 | 429 | 500 | 504, code: string, message: string, exit: number = ExitCode.failure) =>
    c.json({error: {code, exit, message}}, status)

  // Every answer: no caching, no framing, no sniffing, no referrer, and the page's script policy.
  app.use('*', async (c, next) => {
    await next()
    c.header('Content-Security-Policy', CSP)
    c.header('X-Content-Type-Options', 'nosniff')
    c.header('X-Frame-Options', 'DENY')
    c.header('Referrer-Policy', 'no-referrer')
    c.header('Cache-Control', 'no-store')
    c.header('Cross-Origin-Opener-Policy', 'same-origin')
    c.header('Cross-Origin-Resource-Policy', 'same-origin')
  })

  // The Host header first: a page that pointed its own name at this address (DNS rebinding) names itself.
  app.use('*', async (c, next) => {
    if (!opts.hosts.has(c.req.header('host') ?? '')) return c.text('unknown Host: pk serve answers only to the address it printed\n', 403)
    return next()
  })

  /** A change is sent from the page's own origin, as JSON: else refused (a cross-site form or fetch). */
  const fromPage = (c: HonoContext): Response | null => {
    const origin = c.req.header('origin')
    if (origin === undefined || !allowedOrigins(opts.hosts, opts.tls, opts.publicUrl).has(origin))
      return fail(c, 403, 'bad-origin', `refused: a change requested from ${origin ?? 'no origin'}, not from pk's own page`)
    if (!(c.req.header('content-type') ?? '').startsWith('application/json')) return fail(c, 400, 'bad-request', 'a change is sent as JSON')
    return null
  }
  /** A wrong try: counted; once too many came, refused at once (the right token or key was checked before). */
  const wrong = (c: HonoContext, code: string, message: string) => {
    const wait = tries.blocked(Date.now())
    if (wait !== null)
      return c.json({error: {code: 'rate-limited', exit: ExitCode.failure, message: `too many wrong tries: try again in ${wait} s`}}, 429, {
        'Retry-After': String(wait),
      })
    tries.fail(Date.now())
    return fail(c, 401, code, message)
  }

  // The printed address: the token checked, then handed to the page in the address's fragment (never sent
  // to a server again, in no Referer), which the page keeps in its own storage and takes out of the address bar.
  app.get('/login', (c) => {
    const token = c.req.query('token') ?? ''
    if (!sameSecret(token, opts.token)) {
      const wait = tries.blocked(Date.now())
      if (wait !== null) return c.text(`too many wrong tries: try again in ${wait} s\n`, 429, {'Retry-After': String(wait)})
      tries.fail(Date.now())
      return c.text('wrong token: open the address pk serve printed (pk serve --url prints it again)\n', 401)
    }
    return c.redirect(`/#token=${token}`, 303)
  })

  // The token, for a key of this run (the page asks again when its key expires or the server restarted).
  app.post('/api/session', async (c) => {
    const refused = fromPage(c)
    if (refused !== null) return refused
    const data = await body(c)
    if (!sameSecret(text(data, 'token') ?? '', opts.token))
      return wrong(c, 'wrong-token', 'this page holds an old or wrong token: open the address pk serve printed (pk serve --url prints it again)')
    return c.json({ok: true, ...keys.issue()})
  })

  // The page's own files are no secret; everything else under /api needs the page's key, and changes need the Origin.
  app.use('/api/*', async (c, next) => {
    const key = bearer(c.req.header('authorization'))
    if (key === null) return fail(c, 401, 'no-key', 'not signed in: open the address pk serve printed (pk serve --url prints it again)')
    const verdict = keys.check(key)
    if (verdict === 'expired') return fail(c, 401, 'expired-key', "the page's key expired: it asks for another")
    if (verdict === 'wrong') return wrong(c, 'wrong-key', 'a key this server did not issue (it was restarted?): the page asks for another')
    if (c.req.header('sec-fetch-site') === 'cross-site') return fail(c, 403, 'cross-site', 'refused: a request from another site')
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const refused = fromPage(c)
      if (refused !== null) return refused
      if (opts.readOnly !== null) return fail(c, 403, 'read-only', opts.readOnly, ExitCode.refused)
    }
    return next()
  })

  for (const [path, file] of files) app.get(path, (c) => c.body(file.body, 200, {'Content-Type': file.type}))

  app.get('/api/state', (c) => c.json({readOnly: opts.readOnly, version: 1}))

  // Server-sent events: the watch stream's events, for as long as the page is open.
  app.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      let unsubscribe = () => {}
      const closed = new Promise<void>((resolve) => stream.onAbort(resolve))
      unsubscribe = feed.subscribe((event) => void stream.writeSSE({data: JSON.stringify(event)}).catch(() => {}))
      const beat = setInterval(() => void stream.writeSSE({event: 'ping', data: '{}'}).catch(() => {}), 15_000)
      await closed
      clearInterval(beat)
      unsubscribe()
    }),
  )

  /** A session the poller lists now, verified and in a pane: what the page may look at. */
  const visible = (c: HonoContext): (SessionRow & {tmux: NonNullable<SessionRow['tmux']>}) | Response => {
    const row = feed.row(c.req.param('id') ?? '')
    if (row === undefined) return fail(c, 404, 'no-such-session', `no session ${c.req.param('id')} is listed now`, ExitCode.noSuchSession)
    if (!row.verified || row.conflict || row.tmux === null)
      return fail(
        c,
        409,
        'unverified',
        `session ${row.id} ${row.conflict ? 'is claimed by two records' : row.tmux === null ? 'is in no pane' : `cannot be verified now${row.notVerifiedJustNow ? ` (${row.notVerifiedJustNow})` : ''}`}: pk shows no screen it cannot pair`,
      )
    return row as SessionRow & {tmux: NonNullable<SessionRow['tmux']>}
  }

  /**
   * Another host's session (`HOST/ID`): the request is that host's own pk command over ssh, which checks
   * and acts there as it would for a person logged in (this side only passes words and reads the answer:
   * its JSON, or its refusal with its exit). Null for a session of this machine.
   */
  async function onHost(c: HonoContext, args: (id: string) => string[], opts: {input?: string; timeoutMs?: number} = {}): Promise<Response | null> {
    const {host: name, id} = splitFleetId(c.req.param('id') ?? '')
    if (name === null) return null
    const host = remotes.find((h) => h.name === name)
    if (host === undefined) return fail(c, 404, 'no-such-host', `${name} is not a host this pk serve lists (pk serve --host ${name})`, ExitCode.noSuchSession)
    // An id there is an id, never a word the host's pk would read as a flag (`--all`).
    let remoteId: string
    try {
      remoteId = checkIdForm(id)
    } catch (error) {
      return fail(c, 400, 'bad-id', describeError(error).message, ExitCode.usage)
    }
    const timeoutMs = opts.timeoutMs ?? ACTION_TIMEOUT_MS + 10_000
    const ran = await runRemote(host, args(remoteId), timeoutMs, opts.input)
    if (ran.code === 0) {
      try {
        const result = JSON.parse(ran.stdout) as Json
        delete result.$schema
        delete result.schema
        return c.json({ok: true, result: 'id' in result ? {...result, id: `${name}/${String(result.id)}`} : result})
      } catch {
        return fail(c, 500, 'host-pk-incompatible', `${name}: pk there did not answer with JSON; it may be too old for pk serve --host`)
      }
    }
    // ssh itself failed (255), or nothing came in time: the host, not the session, is the problem.
    if (ran.timedOut || ran.code === null || ran.code === 255) {
      const problem = remoteProblem(host, ran, timeoutMs)
      return fail(c, 504, problem.code, problem.message, ExitCode.timeout)
    }
    const said = ran.stderr.trim().split('\n').filter(Boolean).at(-1) ?? `pk exited ${ran.code}`
    return c.json({ok: false, error: {code: 'host-refused', exit: ran.code, message: `${name}: ${said.replace(/^pk: /, '')}`}}, httpStatus(ran.code))
  }

  // The screen, with its colours, and the dialog pk answer would answer on it.
  app.get('/api/sessions/:id/screen', async (c) => {
    const remote = await onHost(c, (id) => ['logs', id, '--screen', '--color', '--json'], {timeoutMs: 15_000})
    if (remote !== null) return remote.status === 200 ? c.json((await remote.json()).result) : remote
    const row = visible(c)
    if (row instanceof Response) return row
    try {
      const look = await screenOf(row, 5000)
      if (look === null) return fail(c, 404, 'gone', `session ${row.id}'s pane is gone`, ExitCode.noSuchSession)
      return c.json(look)
    } catch (error) {
      const {message, exitCode} = describeError(error)
      return fail(c, 504, 'unreadable', message, exitCode)
    }
  })

  app.get('/api/sessions/:id/logs', async (c) => {
    const lines = Math.min(Math.max(Number(c.req.query('lines') ?? 50) || 50, 1), 2000)
    const remote = await onHost(c, (id) => ['logs', id, '--lines', String(lines), '--json'])
    if (remote !== null) return remote
    const out: string[] = []
    return act(c, async () => ({
      ...(await readLogs(c.req.param('id'), opts.ctx, {lines, color: false, follow: false, emit: (l) => out.push(...l)})),
      lines: out,
    }))
  })

  // What the session changed since it started: pk diff --json, read only (a reader, like the screen).
  app.get(
    '/api/sessions/:id/changes',
    async (c) =>
      (await onHost(c, (id) => ['diff', id, '--json'])) ??
      act(c, async () => {
        const {diffChanges} = await import('../verbs/review.js')
        const {row, base, changes} = await diffChanges(opts.ctx, c.req.param('id'), [])
        return {id: row.id, base, scope: base.kind, ...changes}
      }),
  )

  /** Run a verb; its refusal becomes the answer, with its words and its exit. */
  async function act(c: HonoContext, verb: () => Promise<object>) {
    try {
      return c.json({ok: true, result: await verb()})
    } catch (error) {
      const {message, exitCode} = describeError(error)
      const code = error instanceof PkError ? error.code : 'failure'
      const result = (error as {result?: unknown}).result
      return c.json({ok: false, error: {code, exit: exitCode, message}, ...(result === undefined ? {} : {result})}, httpStatus(exitCode))
    }
  }

  // An answer carries the dialog it answers (its digest, as the screen gave it): a dialog that changed since the
  // page showed it is refused, nothing typed (pk answer --dialog). Words answer a question; a choice, a dialog.
  app.post('/api/sessions/:id/answer', async (c) => {
    const data = await body(c)
    const id = c.req.param('id')
    const dialog = text(data, 'dialog')
    if (dialog !== null && !/^[0-9a-f]{16}$/.test(dialog) && dialog !== NO_DIALOG)
      return fail(c, 400, 'bad-flags', 'dialog is the digest the screen gave (none where it gave no dialog)', ExitCode.usage)
    // Words as a choice: pinned to the question they answer (its digest, or none where the page read no dialog).
    if (dialog === null)
      return fail(c, 400, 'bad-flags', 'an answer says which dialog it answers (dialog: the digest the screen gave, or none)', ExitCode.usage)
    const pinned = ['--dialog', dialog]
    const words = text(data, 'text')
    if (words !== null) {
      if (words === '') return fail(c, 400, 'bad-text', 'no text to answer with', ExitCode.usage)
      // (the words on the host's pk's standard input: never in ssh's argv nor in its, which any user can read)
      const remote = await onHost(c, (id) => ['answer', id, '--stdin', ...pinned, '--json', '--timeout', String(ACTION_TIMEOUT_MS / 1000)], {input: words})
      if (remote !== null) return remote
      return act(c, () => sendText(id, opts.ctx, words, {enter: true, timeoutMs: ACTION_TIMEOUT_MS, whenIdle: false, answering: true, dialog}))
    }
    const answer = parseAnswer(text(data, 'answer') ?? '')
    if (answer === null) return fail(c, 400, 'bad-flags', 'an answer is yes, always, no, or the number of a choice', ExitCode.usage)
    const remote = await onHost(c, (id) => ['answer', id, text(data, 'answer')!, ...pinned, '--json', '--timeout', String(ACTION_TIMEOUT_MS / 1000)])
    if (remote !== null) return remote
    return act(c, () => answerDialog(id, opts.ctx, answer, {timeoutMs: ACTION_TIMEOUT_MS, dialog}))
  })

  // A visible page showing a session is someone looking at it, as a client attached in tmux is: its events
  // then are seen, not told (the page says so every few seconds while it is visible; see tmux/session.ts).
  app.post('/api/sessions/:id/viewing', async (c) => {
    if (splitFleetId(c.req.param('id') ?? '').host !== null) return c.json({ok: true, result: {viewed: false}})
    const row = visible(c)
    if (row instanceof Response) return row
    return act(c, async () => ({viewed: await markViewed(row.tmux.socket, row.tmux.sessionId)}))
  })

  app.post('/api/sessions/:id/send', async (c) => {
    const words = text(await body(c), 'text')
    if (words === null || words === '') return fail(c, 400, 'bad-text', 'no text to send', ExitCode.usage)
    // (the words on the remote pk's standard input: text that starts with a dash is never taken for a flag)
    const remote = await onHost(c, (id) => ['send', id, '--stdin', '--json', '--timeout', String(ACTION_TIMEOUT_MS / 1000)], {input: words})
    if (remote !== null) return remote
    return act(c, () => sendText(c.req.param('id'), opts.ctx, words, {enter: true, timeoutMs: ACTION_TIMEOUT_MS, whenIdle: false}))
  })

  // A session at its usage limit, carried on now (pk continue ID): its limit dialog's choice, or the message.
  app.post(
    '/api/sessions/:id/continue',
    async (c) =>
      (await onHost(c, (id) => ['continue', id, '--json', '--timeout', String(ACTION_TIMEOUT_MS / 1000)])) ??
      act(c, () => continueSession(opts.ctx, c.req.param('id'), {timeoutMs: ACTION_TIMEOUT_MS})),
  )

  app.post(
    '/api/sessions/:id/stop',
    async (c) => (await onHost(c, (id) => ['stop', id, '--json'])) ?? act(c, () => stopSession(c.req.param('id'), opts.ctx, {force: false, timeoutMs: 10_000})),
  )

  app.post(
    '/api/sessions/:id/resume',
    async (c) =>
      (await onHost(c, (id) => ['resume', id, '--json'])) ??
      act(c, async () => {
        const resumed = await resumeSession(c.req.param('id'), opts.ctx)
        return {id: resumed.id, resumedFrom: resumed.resumedFrom}
      }),
  )

  app.notFound((c) => c.text('not found\n', 404))
  app.onError((error, c) => {
    const {message} = describeError(error)
    return c.json({ok: false, error: {code: 'failure', exit: ExitCode.failure, message}}, 500)
  })
  return {app, feed}
}
