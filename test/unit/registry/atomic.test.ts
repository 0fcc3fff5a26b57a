import {mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {writeFileAtomic} from '../../../src/lib/registry/atomic.js'
import {appendRegularFile, readRegularFile} from '../../../src/lib/registry/files.js'
import {withStateLock} from '../../../src/lib/registry/lock.js'
import {createRecord, readRecords, replaceRecord} from '../../../src/lib/registry/records.js'
import {stateLayout} from '../../../src/lib/registry/state-dir.js'
import {sampleRecord} from '../../helpers/fixtures.js'

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
})

describe('the state lock', () => {
  it('serialises writers: two read-modify-write updates at once lose neither', async () => {
    const state = stateLayout(dir)
    mkdirSync(state.sessions)
    const file = createRecord(state, sampleRecord())
    const update = (label: string) =>
      withStateLock(state, async () => {
        const {record} = readRecords(state).records[0]!
        // Give the other writer every chance to interleave.
        await new Promise((r) => setTimeout(r, 30))
        replaceRecord(file, {...record, label: [record.label, label].filter(Boolean).join('+')})
      })
    await Promise.all([update('first'), update('second')])
    const label = readRecords(state).records[0]!.record.label!
    expect(label.split('+').sort()).toEqual(['first', 'second'])
  })
})
