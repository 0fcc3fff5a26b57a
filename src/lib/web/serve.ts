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
import {buildApp} from './server.js'
import {allowedHosts, checkExposure, isToken, Listen, newToken} from './security.js'

/**
 * Starting and stopping `pk serve`, and the one file it keeps: `serve.json` in the state directory (0600),
 * with the token and the address, so that `pk serve --url` can print the address again and a restarted
 * server keeps the sign-in of the browsers that used it.
 */

export const SERVE_FILE = 'serve.json'

interface ServeFile {
  token: string
  origin: string
}

/** The token kept in the state directory, when there is a valid one. */
export function keptServe(state: StateDir | null): ServeFile | null {
  if (state === null) return null
  try {
    const data = JSON.parse(readRegularFile(join(state.root, SERVE_FILE), 4096)) as Partial<ServeFile>
    return typeof data.token === 'string' && isToken(data.token) && typeof data.origin === 'string' ? {token: data.token, origin: data.origin} : null
  } catch {
    return null
  }
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
  const state = opts.ctx.readState()
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
  if (state !== null && readOnly === null) writeFileAtomic(join(state.root, SERVE_FILE), JSON.stringify({token, origin}) + '\n', 'replace')
  return {
    url: signInUrl(origin, token),
    origin,
    readOnly,
    close: () =>
      new Promise<void>((resolve) => {
        feed.stop()
        server!.close(() => resolve())
        // Open event streams would hold the server open: end them.
        ;(server as unknown as {closeAllConnections?: () => void}).closeAllConnections?.()
      }),
  }
}
