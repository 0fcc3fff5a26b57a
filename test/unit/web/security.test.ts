import {describe, expect, it} from 'vitest'

import {
  allowedHosts,
  allowedOrigins,
  bearer,
  checkExposure,
  CSP,
  FailedTries,
  isToken,
  newToken,
  PageKeys,
  parseListen,
  sameSecret,
} from '../../../src/lib/web/security.js'

describe("pk serve's security decisions", () => {
  it('a token is 256 random bits, URL-safe', () => {
    const token = newToken()
    expect(token).toMatch(/^[\w-]{43}$/)
    expect(isToken(token)).toBe(true)
    expect(isToken('short')).toBe(false)
    expect(newToken()).not.toBe(token)
    expect(sameSecret('abc', 'abc')).toBe(true)
    expect(sameSecret('abc', 'abd')).toBe(false)
    expect(sameSecret('abc', 'abcd')).toBe(false)
  })

  it("the page's key: this run's, for an hour; another run's, an altered one or an expired one is refused", () => {
    let now = 1_000_000
    const keys = new PageKeys(60 * 60_000, () => now)
    const {key, expiresAt} = keys.issue()
    expect(expiresAt).toBe(now + 60 * 60_000)
    expect(keys.check(key)).toBe('valid')
    expect(new PageKeys(60 * 60_000, () => now).check(key)).toBe('wrong') // a restarted server's
    const [stamp, mac] = key.split('.') as [string, string]
    expect(keys.check(`${(Number.parseInt(stamp, 36) + 3_600_000).toString(36)}.${mac}`)).toBe('wrong') // made to last longer
    expect(keys.check(`${stamp}.${mac.slice(0, -1)}A`)).toBe(mac.endsWith('A') ? 'valid' : 'wrong')
    expect(keys.check('garbage')).toBe('wrong')
    now = expiresAt
    expect(keys.check(key)).toBe('expired')
    expect(bearer(`Bearer ${key}`)).toBe(key)
    expect([bearer(undefined), bearer('Basic x'), bearer(`Bearer ${key} x`)]).toEqual([null, null, null])
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
