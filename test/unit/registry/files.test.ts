import {mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {appendRegularFile, readRegularFile} from '../../../src/lib/registry/files.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pk-unit-'))
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

describe('state files are regular files or nothing', () => {
  it('reads and appends regular files; refuses links, FIFOs and directories without blocking', async () => {
    const file = join(dir, 'log')
    appendRegularFile(file, 'a\n')
    appendRegularFile(file, 'b\n')
    expect(readRegularFile(file)).toBe('a\nb\n')
    symlinkSync(file, join(dir, 'link'))
    expect(() => readRegularFile(join(dir, 'link'))).toThrow(/symbolic link/)
    expect(readRegularFile(join(dir, 'link'), 1024, true)).toBe('a\nb\n')
    const {execFileSync} = await import('node:child_process')
    execFileSync('mkfifo', [join(dir, 'fifo')])
    expect(() => readRegularFile(join(dir, 'fifo'))).toThrow(/a FIFO/)
    expect(() => appendRegularFile(join(dir, 'fifo'), 'x')).toThrow(/a FIFO/)
    mkdirSync(join(dir, 'sub'))
    expect(() => readRegularFile(join(dir, 'sub'))).toThrow(/a directory/)
    expect(() => readRegularFile(file, 2)).toThrow(RangeError)
  })

  it('reads a large file whole, as it reads a small one, and refuses one over the limit', () => {
    const file = join(dir, 'large')
    // Past the size read through the reused buffer, with characters of two and four bytes across its edges.
    const text = 'é🙂x'.repeat(40_000)
    writeFileSync(file, text)
    expect(readRegularFile(file)).toBe(text)
    expect(() => readRegularFile(file, 100_000)).toThrow(RangeError)
    writeFileSync(file, text.slice(0, 3))
    expect(readRegularFile(file)).toBe(text.slice(0, 3))
  })
})
