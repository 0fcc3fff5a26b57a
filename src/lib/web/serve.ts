import {readFileSync} from 'node:fs'
import {createServer as createHttpsServer} from 'node:https'
import {AddressInfo} from 'node:net'
import {join} from 'node:path'

import {createAdaptorServer} from '@hono/node-server'

import {Context} from '../config/context.js'
import {PkError} from '../model/errors.js'
import {writeFileAtomic} from '../registry/atomic.js'
import {readRegularFile} from '../registry/files.js'
import {mayWrite, readTrust} from '../registry/ownership.js'
import {StateDir} from '../registry/state-dir.js'
import {resolveHosts} from '../fleet/fleet.js'
import {processSource} from '../proc/source.js'
import {buildApp} from './server.js'
import {allowedHosts, checkExposure, isToken, Listen, newToken} from './security.js'

/**
 * Starting and stopping `pk serve`, and the one file it keeps: `serve.json` in the state directory (0600),
 * with the token (so that a restarted server keeps the sign-in of the pages that used it), the address of
 * the server started last, and every server that runs now (its address, pid and start time: a server that
 * stops takes itself out; one killed is known gone by the kernel), so that `pk serve --url` prints the
 * address of one that runs.
 */

export const SERVE_FILE = 'serve.json'

export interface Running {
  origin: string
  pid: number
  startTime: number
}

interface ServeFile {
  token: string
  origin: string
  servers: Running[]
}

const isRunning = (v: unknown): v is Running => {
  const r = v as Partial<Running>
  return typeof r?.origin === 'string' && Number.isSafeInteger(r.pid) && Number.isSafeInteger(r.startTime)
}

/** The token kept in the state directory, when there is a valid one, with the servers it names. */
export function keptServe(state: StateDir | null): ServeFile | null {
  if (state === null) return null
  try {
    const data = JSON.parse(readRegularFile(join(state.root, SERVE_FILE), 64 * 1024)) as Partial<ServeFile>
    if (typeof data.token !== 'string' || !isToken(data.token) || typeof data.origin !== 'string') return null
    return {token: data.token, origin: data.origin, servers: Array.isArray(data.servers) ? data.servers.filter(isRunning) : []}
  } catch {
    return null
  }
}

/** The servers of `kept` that run now, by the kernel's word (pid and start time), newest last. */
export function runningServers(kept: ServeFile): Running[] {
  return kept.servers.filter((s) => processSource().stat(s.pid)?.startTime === s.startTime)
}

/** Notes a server in serve.json (started) or takes it out (stopped); the servers gone since are left out too. */
function noteServer(state: StateDir, token: string, change: {add: Running} | {remove: number}): void {
  const kept = keptServe(state)
  const others = (kept === null ? [] : runningServers(kept)).filter((s) => s.pid !== ('add' in change ? change.add.pid : change.remove))
  const servers = 'add' in change ? [...others, change.add] : others
  const origin = 'add' in change ? change.add.origin : (servers.at(-1)?.origin ?? kept?.origin ?? '')
  writeFileAtomic(join(state.root, SERVE_FILE), JSON.stringify({token, origin, servers}) + '\n', 'replace')
}

/** Pure: the address to open: signing in with the token, then the page. */
export const signInUrl = (origin: string, token: string) => `${origin}/login?token=${token}`

export interface Serving {
  url: string
  origin: string
  readOnly: string | null
  close(): Promise<void>
}

/** Start the server; resolves once it listens. */
export async function startServe(opts: {
  ctx: Context
  listen: Listen
  tls: {cert: string; key: string} | null
  readOnly: boolean
  assetsDir: string
  intervalMs?: number
  /** Which other hosts to list and act on (pk serve --fleet, --host NAME). */
  fleet?: {fleet: boolean; hosts: string[]}
}): Promise<Serving> {
  checkExposure(opts.listen, opts.tls !== null)
  const {config} = await opts.ctx.config()
  const publicUrl = config.serve?.publicUrl
  const remotes = opts.fleet ? resolveHosts(config, opts.fleet, opts.ctx.env) : []
  // (made where none is yet: the token is kept there from the first run on, and pk serve --url reads it)
  let state = opts.ctx.readState()
  if (state === null && !opts.readOnly) state = opts.ctx.writeState()
  // A pk in another pid namespace than the state's may not act on its sessions: it serves the view only.
  const trust = readTrust(state)
  const readOnly = opts.readOnly
    ? 'this pk serve was started with --read-only: it shows sessions and changes nothing'
    : !trust.trusted
      ? `read only: ${trust.reason}`
      : state !== null && !mayWrite(state)
        ? 'read only: this pk may not write the state directory from here (pk doctor says why)'
        : null
  const token = keptServe(state)?.token ?? newToken()
  const tls = opts.tls === null ? null : {cert: readFileSync(opts.tls.cert), key: readFileSync(opts.tls.key)}
  let server: ReturnType<typeof createAdaptorServer> | null = null
  // The Host headers are known once the port is (a port of 0 is chosen by the kernel).
  const hosts = new Set<string>()
  const {app, feed} = buildApp({
    ctx: opts.ctx,
    token,
    hosts,
    tls: tls !== null,
    publicUrl,
    readOnly,
    assetsDir: opts.assetsDir,
    intervalMs: opts.intervalMs,
    remotes,
  })
  server =
    tls === null
      ? createAdaptorServer({fetch: app.fetch})
      : createAdaptorServer({fetch: app.fetch, createServer: createHttpsServer, serverOptions: {cert: tls.cert, key: tls.key}})
  await new Promise<void>((resolve, reject) => {
    server!.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new PkError(
              'bad-flags',
              `${opts.listen.host}:${opts.listen.port} is in use (another pk serve? pk serve --url prints its address); --listen picks another`,
            )
          : error,
      ),
    )
    server!.listen(opts.listen.port, opts.listen.host, resolve)
  })
  const port = (server.address() as AddressInfo).port
  for (const host of allowedHosts(opts.listen, port, publicUrl)) hosts.add(host)
  const shown = opts.listen.host.includes(':') ? `[${opts.listen.host}]` : opts.listen.host
  const origin = `${tls === null ? 'http' : 'https'}://${shown}:${port}`
  const me = processSource().stat(process.pid)
  const noted = state !== null && readOnly === null && me !== null
  if (noted) noteServer(state!, token, {add: {origin, pid: process.pid, startTime: me.startTime}})
  return {
    url: signInUrl(origin, token),
    origin,
    readOnly,
    close: () =>
      new Promise<void>((resolve) => {
        feed.stop()
        if (noted) noteServer(state!, token, {remove: process.pid})
        server!.close(() => resolve())
        // Open event streams would hold the server open: end them.
        ;(server as unknown as {closeAllConnections?: () => void}).closeAllConnections?.()
      }),
  }
}
