import {mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {writeFileAtomic} from '../../../src/lib/registry/atomic.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pk-unit-'))
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

describe('atomic writes', () => {
  it('replace swaps the whole file and leaves no temp file; create never overwrites', () => {
    const file = join(dir, 'a.json')
    writeFileAtomic(file, 'one', 'replace')
    writeFileAtomic(file, 'two', 'replace')
    expect(readFileSync(file, 'utf8')).toBe('two')
    expect(() => writeFileAtomic(file, 'three', 'create')).toThrow(/EEXIST/)
    expect(readFileSync(file, 'utf8')).toBe('two')
    expect(readdirSync(dir)).toEqual(['a.json'])
  })

  it('does not write through a link planted at the temp name or the target', () => {
    const outside = join(dir, 'outside')
    writeFileSync(outside, 'mine')
    const target = join(dir, 'b.json')
    symlinkSync(outside, target)
    writeFileAtomic(target, 'new', 'replace')
    // rename replaced the link itself; the file it pointed at is untouched.
    expect(readFileSync(outside, 'utf8')).toBe('mine')
    expect(readFileSync(target, 'utf8')).toBe('new')
  })
})
