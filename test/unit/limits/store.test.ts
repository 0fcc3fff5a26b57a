import {spawnSync} from 'node:child_process'
import {chmodSync, mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {continueDir, newContinueFile, readContinueFile, readContinueFiles, removeContinueFile, writeContinueFile} from '../../../src/lib/limits/store.js'
import {StateDir, stateLayout} from '../../../src/lib/registry/state-dir.js'
import {Sandbox} from '../../helpers/sandbox.js'

let sb: Sandbox
let state: StateDir
beforeEach(() => {
  sb = new Sandbox()
  mkdirSync(sb.stateDir, {mode: 0o700})
  state = stateLayout(sb.stateDir)
})
afterEach(() => sb.cleanup())

describe('the continue files (state/continue/ID.json)', () => {
  it('written and read back; listed; removed', async () => {
    const file = {...newContinueFile('0a1b2c3d', {pid: 10, startTime: 20}), at: '2026-12-07T06:00:00.000Z'}
    await writeContinueFile(state, file)
    expect(readContinueFile(state, '0a1b2c3d')).toEqual(file)
    await writeContinueFile(state, newContinueFile('ffffffff', {pid: 11, startTime: 21}))
    expect(
      readContinueFiles(state)
        .map((f) => f.id)
        .sort(),
    ).toEqual(['0a1b2c3d', 'ffffffff'])
    await removeContinueFile(state, '0a1b2c3d')
    expect(readContinueFile(state, '0a1b2c3d')).toBeNull()
  })
  it("not read: a link, a FIFO, another session's file under this id, corrupt JSON, an id that is not one", () => {
    mkdirSync(continueDir(state), {mode: 0o700})
    const other = join(sb.root, 'elsewhere.json')
    writeFileSync(other, JSON.stringify(newContinueFile('0a1b2c3d', {pid: 1, startTime: 1})))
    symlinkSync(other, join(continueDir(state), '0a1b2c3d.json'))
    spawnSync('mkfifo', [join(continueDir(state), '11111111.json')])
    writeFileSync(join(continueDir(state), '22222222.json'), JSON.stringify(newContinueFile('33333333', {pid: 1, startTime: 1})))
    writeFileSync(join(continueDir(state), '44444444.json'), '{"version": 1,')
    for (const id of ['0a1b2c3d', '11111111', '22222222', '44444444', '../x', '%1']) expect(readContinueFile(state, id), id).toBeNull()
    expect(readContinueFiles(state)).toEqual([])
  })
  it('refuses to write into a directory others may write to', async () => {
    mkdirSync(continueDir(state))
    chmodSync(continueDir(state), 0o777)
    await expect(writeContinueFile(state, newContinueFile('0a1b2c3d', {pid: 1, startTime: 1}))).rejects.toThrow(/not a private directory/)
  })
})
