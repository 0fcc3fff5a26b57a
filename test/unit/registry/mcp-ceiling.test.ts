import {mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {readCeiling, writeCeiling} from '../../../src/lib/registry/mcp-ceiling.js'
import {stateLayout} from '../../../src/lib/registry/state-dir.js'

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pk-ceiling-'))
})
afterEach(() => rmSync(root, {recursive: true, force: true}))

describe("a child's ceiling of rights (pk mcp)", () => {
  it('is what its parent held; none where no pk mcp started it; low where it cannot be read as pk wrote it', async () => {
    const state = stateLayout(join(root, 'state'))
    mkdirSync(state.root, {mode: 0o700})
    expect(readCeiling(state, 'abcd1234')).toBeNull()
    await writeCeiling(state, 'abcd1234', ['read', 'act'])
    expect(readCeiling(state, 'abcd1234')).toEqual(['read', 'act'])
    writeFileSync(join(state.root, 'mcp', 'ceiling', 'abcd0000'), 'garbage')
    expect(readCeiling(state, 'abcd0000')).toEqual(['read'])
    writeFileSync(join(root, 'wide.json'), JSON.stringify({rights: ['read', 'act', 'exec', 'fleet', 'land']}))
    symlinkSync(join(root, 'wide.json'), join(state.root, 'mcp', 'ceiling', 'abcd1111'))
    expect(readCeiling(state, 'abcd1111')).toEqual(['read'])
    expect(readCeiling(state, '../../x')).toBeNull()
    expect(readCeiling(null, 'abcd1234')).toBeNull()
  })
})
