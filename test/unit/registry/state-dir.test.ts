import {chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {judgeStateDir, openStateDirForReading, openStateDirForWriting, resolveStateDir} from '../../../src/lib/registry/state-dir.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pk-state-dir-'))
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

const refusal = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    return error as {code: string; exitCode: number; message: string}
  }
  throw new Error('not refused')
}

describe('the state directory', () => {
  it('is $PK_STATE_DIR, else $XDG_STATE_HOME/pk, else ~/.local/state/pk', () => {
    expect(resolveStateDir({PK_STATE_DIR: '/s', XDG_STATE_HOME: '/x', HOME: '/h'})).toBe('/s')
    expect(resolveStateDir({XDG_STATE_HOME: '/x', HOME: '/h'})).toBe('/x/pk')
    expect(resolveStateDir({HOME: '/h'})).toBe('/h/.local/state/pk')
  })
  it('is judged safe only as a real directory of yours that nobody else may write', () => {
    const uid = process.getuid!()
    const stats = (over: object) => ({isSymbolicLink: () => false, isDirectory: () => true, uid, mode: 0o40700, ...over})
    expect(judgeStateDir('/s', stats({}), uid)).toEqual({ok: true})
    expect(judgeStateDir('/s', stats({isSymbolicLink: () => true}), uid)).toMatchObject({ok: false, kind: 'symlink'})
    expect(judgeStateDir('/s', stats({isDirectory: () => false}), uid)).toMatchObject({ok: false, kind: 'not-directory'})
    expect(judgeStateDir('/s', stats({uid: uid + 1}), uid)).toMatchObject({ok: false, kind: 'foreign-owner'})
    expect(judgeStateDir("/a b's", stats({mode: 0o40770}), uid)).toMatchObject({
      ok: false,
      kind: 'loose-mode',
      problem: expect.stringContaining(`chmod 700 '/a b'\\''s'`),
    })
    expect(judgeStateDir('/s', stats({mode: 0o40755}), uid)).toEqual({ok: true})
  })
  it('a reader makes none and finds none; a writer makes it 0700', () => {
    const env = {PK_STATE_DIR: join(dir, 'state')}
    expect(openStateDirForReading(env)).toBeNull()
    expect(lstatSync(dir).isDirectory()).toBe(true)
    const made = openStateDirForWriting(env)
    expect(made).toEqual({root: join(dir, 'state'), sessions: join(dir, 'state', 'sessions')})
    expect(statSync(made.root).mode & 0o777).toBe(0o700)
    expect(statSync(made.sessions).mode & 0o777).toBe(0o700)
    expect(openStateDirForReading(env)).toEqual(made)
  })
  it('refuses (exit 5) a link, a loose directory, or a file in its place, to readers and writers alike', () => {
    const real = join(dir, 'real')
    mkdirSync(real, {mode: 0o700})
    symlinkSync(real, join(dir, 'link'))
    mkdirSync(join(dir, 'loose'))
    chmodSync(join(dir, 'loose'), 0o777)
    writeFileSync(join(dir, 'file'), '')
    for (const name of ['link', 'loose', 'file']) {
      const env = {PK_STATE_DIR: join(dir, name)}
      for (const open of [openStateDirForReading, openStateDirForWriting])
        expect(refusal(() => open(env))).toMatchObject({code: 'unsafe-state-dir', exitCode: 5})
    }
    // The sessions directory inside is held to the same.
    mkdirSync(join(real, 'sessions'))
    chmodSync(join(real, 'sessions'), 0o777)
    expect(refusal(() => openStateDirForReading({PK_STATE_DIR: real})).message).toMatch(/sessions is writable by group or others/)
  })
})
