import {createHmac, randomBytes, timingSafeEqual} from 'node:crypto'
import {isIP} from 'node:net'

import {PkError} from '../model/errors.js'

/**
 * What keeps `pk serve` a command only its user can run: pure decisions, with no I/O, so that each can be
 * tested with data. The threat model (README, "Security"): other users of this machine, any web page the
 * user visits while the server runs (cross-site requests, DNS rebinding), and anyone on the network.
 */

/** 256 random bits, URL-safe: the one secret of the server. */
export const newToken = () => randomBytes(32).toString('base64url')

/** Pure: whether a string can be a token pk made (at least 128 bits of base64url). */
export const isToken = (text: string) => /^[\w-]{22,}$/.test(text)

/** Pure: two secrets compared in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * What authorises the page's requests: a key only the page holds, issued for the token and sent in a header
 * (`Authorization: Bearer KEY`), which no other origin can read or make a browser send. A cookie would not do:
 * browsers keep cookies per host, not per port, so a page another local user serves on another port of
 * 127.0.0.1 is sent it. A key lives an hour and belongs to this run of the server (a secret made at its
 * start signs it): one a restarted server did not issue is refused, and the page asks again with its token.
 */
export class PageKeys {
  private readonly secret = randomBytes(32)
  constructor(
    readonly lifetimeMs = 60 * 60_000,
    private readonly clock: () => number = Date.now,
  ) {}

  issue(): {key: string; expiresAt: number} {
    const expiresAt = this.clock() + this.lifetimeMs
    return {key: `${expiresAt.toString(36)}.${this.sign(expiresAt)}`, expiresAt}
  }

  /** Whether a key is one this run issued and has not expired: 'valid', 'expired', or 'wrong'. */
  check(key: string): 'valid' | 'expired' | 'wrong' {
    const match = /^([0-9a-z]{1,12})\.([\w-]{43})$/.exec(key)
    if (match === null) return 'wrong'
    const expiresAt = Number.parseInt(match[1]!, 36)
    if (!sameSecret(match[2]!, this.sign(expiresAt))) return 'wrong'
    return expiresAt > this.clock() ? 'valid' : 'expired'
  }

  private sign(expiresAt: number): string {
    return createHmac('sha256', this.secret).update(`pk serve page key v1 ${expiresAt}`).digest('base64url')
  }
}

/** Pure: the key of an `Authorization: Bearer KEY` header, or null. */
export const bearer = (header: string | undefined) => /^Bearer ([\w.-]+)$/.exec(header ?? '')?.[1] ?? null

export interface Listen {
  host: string
  port: number
}

export const DEFAULT_PORT = 7433

/** Pure: `--listen HOST:PORT` (or `[v6]:PORT`, or a bare port), checked. */
export function parseListen(text: string): Listen {
  const bare = /^\d+$/.test(text)
  const match = bare ? null : /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(text)
  const port = Number(bare ? text : match?.[3])
  const host = bare ? '127.0.0.1' : (match?.[1] ?? match?.[2])
  if (host === undefined || !Number.isInteger(port) || port < 0 || port > 65_535)
    throw new PkError('bad-flags', `--listen takes HOST:PORT (127.0.0.1:${DEFAULT_PORT}, [::1]:${DEFAULT_PORT}) or a port, not ${JSON.stringify(text)}`)
  if (isIP(host) === 0 && host !== 'localhost')
    throw new PkError('bad-flags', `--listen takes an IP address (or localhost), not the name ${JSON.stringify(host)}`)
  return {host, port}
}

/** Pure: whether an address is this machine's loopback only. */
export const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)

/** Pure: a non-loopback address without TLS is refused: the token and every screen would cross the network in clear. */
export function checkExposure(listen: Listen, tls: boolean): void {
  if (isLoopback(listen.host) || tls) return
  throw new PkError(
    'bad-flags',
    `refusing to serve on ${listen.host} without TLS: the token and every screen would cross the network readable by anyone on it. Give --tls-cert and --tls-key, or keep 127.0.0.1 and reach it with ssh -L or tailscale serve (README: From a browser or a phone)`,
  )
}

/**
 * Pure: the Host headers this server answers to. A page on another site that makes its own name point at
 * 127.0.0.1 (DNS rebinding) sends its own name as Host, and is refused.
 */
export function allowedHosts(listen: Listen, port: number, publicUrl: string | undefined): Set<string> {
  const hosts = new Set<string>()
  const bracket = (h: string) => (isIP(h) === 6 ? `[${h}]` : h)
  hosts.add(`${bracket(listen.host)}:${port}`)
  if (isLoopback(listen.host)) for (const h of ['127.0.0.1', 'localhost', '[::1]']) hosts.add(`${h}:${port}`)
  // Behind tailscale serve or a proxy the page is reached by its public name (on port 443 or the one named).
  if (publicUrl !== undefined) hosts.add(new URL(publicUrl).host)
  return hosts
}

/** Pure: the origins a request that changes something may come from: the page's own, as served. */
export function allowedOrigins(hosts: Set<string>, tls: boolean, publicUrl: string | undefined): Set<string> {
  const origins = new Set([...hosts].map((h) => `${tls ? 'https' : 'http'}://${h}`))
  if (publicUrl !== undefined) origins.add(new URL(publicUrl).origin)
  return origins
}

/**
 * Failed tries (a wrong token or key), limited: after `limit` failures within `windowMs`, wrong tries are
 * refused at once until the window has passed since the last failure. The right one is checked first and
 * always taken: anyone's wrong tries never lock the owner out. A token of 256 bits cannot be guessed; this
 * keeps a page or a local process from hammering the server trying.
 */
export class FailedTries {
  private failures: number[] = []
  constructor(
    private readonly limit = 10,
    private readonly windowMs = 60_000,
  ) {}

  /** Whether tries are refused now; when, the seconds left. */
  blocked(now: number): number | null {
    this.failures = this.failures.filter((t) => now - t < this.windowMs)
    if (this.failures.length < this.limit) return null
    return Math.ceil((this.windowMs - (now - this.failures.at(-1)!)) / 1000)
  }

  fail(now: number): void {
    this.failures.push(now)
  }
}

/**
 * The page's Content-Security-Policy: scripts and everything else from the server only, no inline script
 * and no eval; no frames, no form posts elsewhere. Styles allow inline attributes: xterm.js sizes its rows
 * with style elements (a style cannot run code).
 */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')
