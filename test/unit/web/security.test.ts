import {describe, expect, it} from 'vitest'

import {
  allowedHosts,
  allowedOrigins,
  checkExposure,
  cookieValue,
  CSP,
  FailedTries,
  isToken,
  newToken,
  parseListen,
  sameSecret,
  setCookie,
} from '../../../src/lib/web/security.js'

describe("pk serve's security decisions", () => {
  it('a token is 256 random bits, URL-safe; the cookie is derived from it, never the token', () => {
    const token = newToken()
    expect(token).toMatch(/^[\w-]{43}$/)
    expect(isToken(token)).toBe(true)
    expect(isToken('short')).toBe(false)
    expect(newToken()).not.toBe(token)
    expect(cookieValue(token)).not.toContain(token)
    expect(cookieValue(token)).toBe(cookieValue(token))
    expect(sameSecret('abc', 'abc')).toBe(true)
    expect(sameSecret('abc', 'abd')).toBe(false)
    expect(sameSecret('abc', 'abcd')).toBe(false)
  })

  it('the cookie is HttpOnly and SameSite=Strict; Secure with a __Host- name under TLS', () => {
    expect(setCookie('v', false)).toBe('pk_session=v; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000')
    expect(setCookie('v', true)).toBe('__Host-pk_session=v; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000; Secure')
  })

  it('--listen: HOST:PORT, [v6]:PORT or a port; names other than localhost refused', () => {
    expect(parseListen('127.0.0.1:7433')).toEqual({host: '127.0.0.1', port: 7433})
    expect(parseListen('[::1]:80')).toEqual({host: '::1', port: 80})
    expect(parseListen('8080')).toEqual({host: '127.0.0.1', port: 8080})
    for (const bad of ['example.com:80', '127.0.0.1', '127.0.0.1:99999', ':80', '']) expect(() => parseListen(bad), bad).toThrow(/--listen/)
  })

  it('beyond loopback only with TLS', () => {
    expect(() => checkExposure({host: '127.0.0.1', port: 1}, false)).not.toThrow()
    expect(() => checkExposure({host: '::1', port: 1}, false)).not.toThrow()
    expect(() => checkExposure({host: '0.0.0.0', port: 1}, false)).toThrow(/without TLS/)
    expect(() => checkExposure({host: '192.168.1.2', port: 1}, true)).not.toThrow()
  })

  it('the Host headers and Origins answered: the address served, loopback names, a public URL', () => {
    const hosts = allowedHosts({host: '127.0.0.1', port: 0}, 7433, 'https://box.tailnet.ts.net')
    expect([...hosts].sort()).toEqual(['127.0.0.1:7433', '[::1]:7433', 'box.tailnet.ts.net', 'localhost:7433'])
    expect(allowedOrigins(hosts, false, 'https://box.tailnet.ts.net').has('https://box.tailnet.ts.net')).toBe(true)
    expect(allowedOrigins(hosts, false, undefined).has('http://localhost:7433')).toBe(true)
    expect([...allowedHosts({host: '10.0.0.5', port: 443}, 443, undefined)]).toEqual(['10.0.0.5:443'])
  })

  it('failed tries: after ten within a minute, every try waits until the window passes', () => {
    const tries = new FailedTries(3, 60_000)
    for (let i = 0; i < 3; i++) {
      expect(tries.blocked(1000 * i)).toBeNull()
      tries.fail(1000 * i)
    }
    expect(tries.blocked(3000)).toBe(59)
    expect(tries.blocked(61_000)).toBeNull()
  })

  it('the policy: scripts from the server only, no eval, no frames', () => {
    expect(CSP).toContain("script-src 'self'")
    expect(CSP).not.toMatch(/unsafe-eval/)
    expect(CSP).toContain("frame-ancestors 'none'")
  })
})
