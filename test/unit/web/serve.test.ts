import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {keptServe, signInUrl} from '../../../src/lib/web/serve.js'

describe("pk serve's kept address", () => {
  it('reads a valid serve.json, and nothing from a corrupt one or a FIFO-free absence', () => {
    const root = mkdtempSync(join(tmpdir(), 'pk-serve-'))
    const state = {root} as Parameters<typeof keptServe>[0]
    expect(keptServe(state)).toBeNull()
    writeFileSync(join(root, 'serve.json'), '{"token": "x"}')
    expect(keptServe(state)).toBeNull()
    const token = 'a'.repeat(43)
    writeFileSync(join(root, 'serve.json'), JSON.stringify({token, origin: 'http://127.0.0.1:7433'}))
    expect(keptServe(state)).toEqual({token, origin: 'http://127.0.0.1:7433', servers: []})
    expect(signInUrl('http://127.0.0.1:7433', token)).toBe(`http://127.0.0.1:7433/login?token=${token}`)
  })
})
