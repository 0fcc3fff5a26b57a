import {execFileSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {offPath, readOff, turnOff, turnOn} from '../../../src/lib/registry/mcp-switch.js'
import {stateLayout} from '../../../src/lib/registry/state-dir.js'

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pk-mcp-switch-'))
})
afterEach(() => rmSync(root, {recursive: true, force: true}))

describe("pk mcp's kill switch", () => {
  it('is on with no file; --off writes it (with when and why); --on takes it away', async () => {
    const state = stateLayout(root)
    expect(readOff(state)).toBeNull()
    expect(readOff(null)).toBeNull()
    await turnOff(state, 'pk mcp --off', new Date('2026-12-07T10:00:00Z'))
    expect(readOff(state)).toEqual({at: '2026-12-07T10:00:00.000Z', why: 'pk mcp --off'})
    await turnOn(state)
    expect(readOff(state)).toBeNull()
    await turnOn(state)
  })

  it('a switch in doubt is off: garbage, a link, a FIFO in its place read as off, and are never followed', () => {
    const state = stateLayout(root)
    mkdirSync(join(root, 'mcp'), {mode: 0o700})
    writeFileSync(offPath(state), 'not json')
    expect(readOff(state)).toMatchObject({why: expect.stringMatching(/cannot be read as pk's/)})
    rmSync(offPath(state))
    writeFileSync(join(root, 'elsewhere'), JSON.stringify({at: 'x', why: 'y'}))
    symlinkSync(join(root, 'elsewhere'), offPath(state))
    expect(readOff(state)).toMatchObject({why: expect.stringMatching(/cannot be read as pk's/)})
    rmSync(offPath(state))
    execFileSync('mkfifo', [offPath(state)])
    expect(readOff(state)).toMatchObject({why: expect.stringMatching(/cannot be read as pk's/)})
  })
})
