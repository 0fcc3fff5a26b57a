import {chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {applyChange, hookArgv, readIfExists} from '../../../src/lib/setup/common.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pk-setup-'))
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

const change = (file: string, before: string | null, after: string) => ({agent: 'claude', file, before, after, changed: before !== after, notes: []})

describe('writing what setup planned', () => {
  it("runs pk's sh hook next to the pk it belongs to, with the node that runs it", () => {
    expect(hookArgv(['/usr/bin/node', '/opt/pk/bin/run.js'], 'gemini')).toEqual(['/opt/pk/assets/pk-hook.sh', 'gemini', '/usr/bin/node'])
  })
  it('makes a new file (and its directory), backs an old one up first, and keeps its mode', () => {
    const file = join(dir, 'new', 'settings.json')
    expect(applyChange(change(file, null, '{}\n'))).toBeNull()
    expect(readFileSync(file, 'utf8')).toBe('{}\n')
    chmodSync(file, 0o644)
    const backup = applyChange(change(file, '{}\n', '{"hooks": {}}\n'), new Date('2026-12-01T10:00:00Z'))
    expect(backup).toBe(`${file}.pk-backup-2026-12-01T10-00-00.000Z`)
    expect(readFileSync(backup!, 'utf8')).toBe('{}\n')
    expect(readFileSync(file, 'utf8')).toBe('{"hooks": {}}\n')
    expect(statSync(file).mode & 0o777).toBe(0o644)
    expect(applyChange(change(file, 'x', 'x'))).toBeNull()
  })
  it('writes through a linked settings file (a dotfiles repository): the link stays a link', () => {
    mkdirSync(join(dir, 'dotfiles'))
    const real = join(dir, 'dotfiles', 'settings.json')
    writeFileSync(real, '{}\n')
    const link = join(dir, 'settings.json')
    symlinkSync(real, link)
    applyChange(change(link, '{}\n', '{"a": 1}\n'))
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readFileSync(real, 'utf8')).toBe('{"a": 1}\n')
    expect(readdirSync(dir).filter((f) => f.includes('pk-backup'))).toHaveLength(1)
  })
  it('reads a missing file as none, and never blocks on a FIFO', async () => {
    expect(readIfExists(join(dir, 'missing'))).toBeNull()
    const {execFileSync} = await import('node:child_process')
    execFileSync('mkfifo', [join(dir, 'fifo')])
    expect(() => readIfExists(join(dir, 'fifo'))).toThrow()
  })
})
