import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {releaseWriterMark, startWriterOnce, writerMarkPath, writerRunning} from '../../../src/lib/events/writer-mark.js'
import {readStat} from '../../../src/lib/proc/reader.js'
import {stateLayout} from '../../../src/lib/registry/state-dir.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pk-writer-'))
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

const me = () => `${process.pid} ${readStat(process.pid)!.startTime}\n`

describe('one writer at a time (the writer named by pid and start time)', () => {
  it('a name is of a live writer only when its pid runs with that start time', () => {
    const state = stateLayout(dir)
    expect(writerRunning(state)).toBe(false)
    writeFileSync(writerMarkPath(state), me())
    expect(writerRunning(state)).toBe(true)
    // The same pid with another start time is another process (a recycled pid).
    writeFileSync(writerMarkPath(state), `${process.pid} 1\n`)
    expect(writerRunning(state)).toBe(false)
    writeFileSync(writerMarkPath(state), 'garbage')
    expect(writerRunning(state)).toBe(false)
  })

  it('starts a writer only when none runs, and names it', () => {
    const state = stateLayout(dir)
    writeFileSync(writerMarkPath(state), me())
    let started = 0
    startWriterOnce(state, () => ++started && undefined)
    expect(started).toBe(0)
    writeFileSync(writerMarkPath(state), `${process.pid} 1\n`)
    const child = spawn('sleep', ['30'])
    try {
      startWriterOnce(state, () => child.pid)
      expect(readFileSync(writerMarkPath(state), 'utf8')).toBe(`${child.pid} ${readStat(child.pid!)!.startTime}\n`)
      expect(writerRunning(state)).toBe(true)
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('the writer takes its own name away, and only its own', async () => {
    const state = stateLayout(dir)
    writeFileSync(writerMarkPath(state), `1 1\n`)
    expect(await releaseWriterMark(state, 0)).toBe(false)
    expect(existsSync(writerMarkPath(state))).toBe(true)
    writeFileSync(writerMarkPath(state), me())
    expect(await releaseWriterMark(state, 0)).toBe(true)
    expect(existsSync(writerMarkPath(state))).toBe(false)
  })
})
