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

/** A process with a writer's argv (`notify --fold`), as the hooks start one. */
const writerLike = () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'notify', '--fold'])
const nameOf = (pid: number) => `${pid} ${readStat(pid)!.startTime}\n`
const started = async (child: ReturnType<typeof spawn>) => {
  for (let i = 0; i < 200 && (readStat(child.pid!) === null || !readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').includes('--fold')); i++)
    await new Promise((r) => setTimeout(r, 10))
  return child.pid!
}

describe('one writer at a time (the writer named by pid and start time)', () => {
  it('a name is of a live writer only when its pid runs with that start time, and is a pk writer', async () => {
    const state = stateLayout(dir)
    expect(writerRunning(state)).toBe(false)
    const child = writerLike()
    try {
      const pid = await started(child)
      writeFileSync(writerMarkPath(state), nameOf(pid))
      expect(writerRunning(state)).toBe(true)
      // The same pid with another start time is another process (a recycled pid).
      writeFileSync(writerMarkPath(state), `${pid} 1\n`)
      expect(writerRunning(state)).toBe(false)
    } finally {
      child.kill('SIGKILL')
    }
    writeFileSync(writerMarkPath(state), 'garbage')
    expect(writerRunning(state)).toBe(false)
    // A live process that is no pk writer (pid 1; this test's own process) names no writer.
    writeFileSync(writerMarkPath(state), nameOf(1))
    expect(writerRunning(state)).toBe(false)
    writeFileSync(writerMarkPath(state), me())
    expect(writerRunning(state)).toBe(false)
  })

  it('starts a writer only when none runs, and names it; a name that points at no writer (pid 1) does not stop it', async () => {
    const state = stateLayout(dir)
    const running = writerLike()
    try {
      writeFileSync(writerMarkPath(state), nameOf(await started(running)))
      let count = 0
      startWriterOnce(state, () => ++count && undefined)
      expect(count).toBe(0)
    } finally {
      running.kill('SIGKILL')
    }
    for (const stale of [`${process.pid} 1\n`, nameOf(1)]) {
      writeFileSync(writerMarkPath(state), stale)
      const child = writerLike()
      try {
        const pid = await started(child)
        startWriterOnce(state, () => pid)
        expect(readFileSync(writerMarkPath(state), 'utf8')).toBe(nameOf(pid))
        expect(writerRunning(state)).toBe(true)
      } finally {
        child.kill('SIGKILL')
      }
    }
  })

  it('names the writer it started even where no look finds it yet (the writer then comes back as the named one), and none where none started', () => {
    const state = stateLayout(dir)
    const unseen = 4_194_303 // (above any pid this machine gives: a process no look finds)
    startWriterOnce(state, () => unseen)
    expect(readFileSync(writerMarkPath(state), 'utf8')).toBe(`${unseen} 0\n`)
    // (named, but no writer running: the next hook or notifier may start one)
    expect(writerRunning(state)).toBe(false)
    rmSync(writerMarkPath(state))
    startWriterOnce(state, () => null)
    expect(existsSync(writerMarkPath(state))).toBe(false)
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
