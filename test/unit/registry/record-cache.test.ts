import {execFileSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {RecordCache} from '../../../src/lib/registry/record-cache.js'
import {readRecords} from '../../../src/lib/registry/records.js'
import {StateDir, stateLayout} from '../../../src/lib/registry/state-dir.js'
import {sampleRecord} from '../../helpers/fixtures.js'
import {waitFor} from '../../helpers/sandbox.js'

let root: string
let state: StateDir
const put = (name: string, over = {}) => writeFileSync(join(state.sessions, name), JSON.stringify(sampleRecord(over)))
/** inotify's events arrive through the event loop: give them a moment, as a watcher's second between polls does. */

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pk-records-'))
  state = stateLayout(root)
  mkdirSync(state.sessions, {recursive: true, mode: 0o700})
})
afterEach(() => rmSync(root, {recursive: true, force: true}))

describe('reading records', () => {
  it('reads regular files fast and names what is wrong with the rest, as before', () => {
    put('a.json', {label: 'a'})
    writeFileSync(join(state.sessions, 'broken.json'), '{')
    writeFileSync(join(state.sessions, 'big.json'), 'x'.repeat(1024 * 1024 + 1))
    symlinkSync(join(state.sessions, 'a.json'), join(state.sessions, 'link.json'))
    execFileSync('mkfifo', [join(state.sessions, 'fifo.json')])
    mkdirSync(join(state.sessions, 'dir.json'))
    const scan = readRecords(state)
    expect(scan.records.map((r) => r.record.label)).toEqual(['a'])
    const codes = Object.fromEntries(scan.problems.map((p) => [String(p.file).split('/').pop(), p.code]))
    expect(codes).toEqual({
      'big.json': 'invalid-record',
      'broken.json': 'corrupt-record',
      'dir.json': 'invalid-record',
      'fifo.json': 'invalid-record',
      'link.json': 'symlinked-record',
    })
    expect(scan.problems.find((p) => String(p.file).endsWith('fifo.json'))!.message).toMatch(/a FIFO/)
  })
})

describe('RecordCache', () => {
  it('answers from memory while nothing in the directory changed', () => {
    put('a.json')
    const cache = new RecordCache()
    try {
      const first = cache.read(state)
      expect(cache.read(state)).toBe(first)
    } finally {
      cache.close()
    }
  })

  it('sees files created, edited in place, and removed, and a replaced directory', async () => {
    put('a.json', {label: 'one'})
    const cache = new RecordCache()
    try {
      expect(cache.read(state).records.map((r) => r.record.label)).toEqual(['one'])
      // In place (no rename): the directory's mtime does not change, inotify still says so.
      // (inotify's word comes a moment later: each change is waited for, with a deadline)
      const labels = () => cache.read(state).records.map((r) => r.record.label)
      put('a.json', {label: 'two'})
      await waitFor('the change in place seen', () => labels().join() === 'two')
      put('b.json', {label: 'three', identity: {...sampleRecord().identity, pid: 11}})
      await waitFor('the new record seen', () => labels().length === 2)
      rmSync(join(state.sessions, 'a.json'))
      await waitFor('the removal seen', () => labels().join() === 'three')
      rmSync(state.sessions, {recursive: true})
      mkdirSync(state.sessions, {mode: 0o700})
      put('c.json', {label: 'four'})
      expect(cache.read(state).records.map((r) => r.record.label)).toEqual(['four'])
    } finally {
      cache.close()
    }
  })

  it('reads again when told this process changed records, and at least every 30 s', () => {
    put('a.json')
    const cache = new RecordCache()
    try {
      const first = cache.read(state, 1_000)
      cache.invalidate()
      const second = cache.read(state, 1_001)
      expect(second).not.toBe(first)
      expect(cache.read(state, 2_000)).toBe(second)
      expect(cache.read(state, 31_001)).not.toBe(second)
    } finally {
      cache.close()
    }
  })
})
