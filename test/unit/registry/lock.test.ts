import {ChildProcess, spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LockBusyError, entryLiveness, lockDir, parseLockEntry, withStateLock} from '../../../src/lib/registry/lock.js'
import {withWriteAccess} from '../../../src/lib/registry/ownership.js'
import {createRecord, readRecords, replaceRecord} from '../../../src/lib/registry/records.js'
import {stateLayout} from '../../../src/lib/registry/state-dir.js'
import {readStat} from '../../../src/lib/proc/reader.js'
import {readView} from '../../../src/lib/proc/source.js'
import {sampleRecord} from '../../helpers/fixtures.js'
import {ROOT} from '../../helpers/sandbox.js'

let dir: string
const children: ChildProcess[] = []
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pk-unit-'))
})
afterEach(() => {
  for (const child of children.splice(0)) {
    child.kill('SIGCONT')
    child.kill('SIGKILL')
  }
  rmSync(dir, {recursive: true, force: true})
})

/**
 * Another pk holding the lock through withWriteAccess (the built module, in its own process): it says
 * `held`, then on SIGUSR2 writes `label` into the first record and lets go.
 */
async function holder(label: string): Promise<ChildProcess> {
  const script = `Promise.all([import(${JSON.stringify(join(ROOT, 'dist/lib/registry/ownership.js'))}), import(${JSON.stringify(join(ROOT, 'dist/lib/registry/records.js'))})]).then(([{withWriteAccess}, {readRecords, replaceRecord}]) => {
  const state = {root: ${JSON.stringify(dir)}, sessions: ${JSON.stringify(join(dir, 'sessions'))}}
  return withWriteAccess(state, () => new Promise((resolve) => {
    const alive = setInterval(() => {}, 1000)
    process.on('SIGUSR2', () => {
      const {file, record} = readRecords(state).records[0]
      replaceRecord(file, {...record, label: [record.label, ${JSON.stringify(label)}].filter(Boolean).join('+')})
      clearInterval(alive)
      resolve()
    })
    process.stdout.write('held\\n')
  }))
}).then(() => process.exit(0), (e) => { process.stderr.write(String(e)); process.exit(1) })`
  const child = spawn(process.execPath, ['-e', script], {stdio: ['ignore', 'pipe', 'pipe']})
  children.push(child)
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`the holder exited ${code}`)))
  })
  return child
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)))

describe('the lock, pure', () => {
  it('reads who an entry names, and nothing else', () => {
    expect(parseLockEntry('H_0a1b-2c_4026531836_42_777_ab12')).toEqual({kind: 'H', bootId: '0a1b-2c', pidNs: '4026531836', pid: 42, startTime: 777})
    expect(parseLockEntry('W_0a1b_1_2_3_ff')).toMatchObject({kind: 'W'})
    for (const name of ['H_x_1_2_3', 'registry', 'H__1_2_3_ab', 'X_a_1_2_3_ab', 'H_a_1_2_3_ab/..']) expect(parseLockEntry(name)).toBeNull()
  })
  it('judges a holder by its process: alive, dead (gone, pid reused, zombie, an earlier boot), or unknown (another pid namespace)', () => {
    const view = {bootId: 'b', pidNs: '1'}
    const entry = {kind: 'H' as const, bootId: 'b', pidNs: '1', pid: 42, startTime: 777}
    const stat = (startTime: number, state = 'S') => ({pid: 42, ppid: 1, state, startTime}) as never
    expect(entryLiveness(view, entry, stat(777))).toBe('alive')
    // Stopped (SIGSTOP) or traced: alive all the same, however long.
    expect(entryLiveness(view, entry, stat(777, 'T'))).toBe('alive')
    expect(entryLiveness(view, entry, null)).toBe('dead')
    expect(entryLiveness(view, entry, stat(778))).toBe('dead')
    expect(entryLiveness(view, entry, stat(777, 'Z'))).toBe('dead')
    expect(entryLiveness(view, {...entry, bootId: 'earlier'}, null)).toBe('dead')
    expect(entryLiveness(view, {...entry, pidNs: '2'}, null)).toBe('unknown')
  })
})

describe('the lock, on real processes', () => {
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

  it('a holder stopped for 12 s (SIGSTOP) is never overtaken: the next writer waits, both writes land, the holder ends well', async () => {
    const state = stateLayout(dir)
    mkdirSync(state.sessions)
    createRecord(state, sampleRecord())
    const held = await holder('stopped')
    held.kill('SIGSTOP')
    const stoppedAt = Date.now()
    let continuedAt = 0
    setTimeout(() => {
      continuedAt = Date.now()
      held.kill('SIGCONT')
      held.kill('SIGUSR2')
    }, 12_000)
    // A writer that waits long enough: it gets the lock only after the holder let go.
    let gotAt = 0
    await withWriteAccess(
      state,
      () => {
        gotAt = Date.now()
        const {file, record} = readRecords(state).records[0]!
        replaceRecord(file, {...record, label: [record.label, 'next'].filter(Boolean).join('+')})
      },
      {waitMs: 30_000},
    )
    expect(continuedAt).toBeGreaterThan(0)
    expect(gotAt).toBeGreaterThanOrEqual(continuedAt)
    expect(gotAt - stoppedAt).toBeGreaterThanOrEqual(12_000)
    expect(await exited(held)).toBe(0)
    expect(readRecords(state).records[0]!.record.label).toBe('stopped+next')
  }, 60_000)

  it('a writer that will not wait that long is told who holds the lock, and writes nothing', async () => {
    const state = stateLayout(dir)
    mkdirSync(state.sessions)
    createRecord(state, sampleRecord())
    const held = await holder('first')
    held.kill('SIGSTOP')
    let ran = false
    const error = await withWriteAccess(state, () => (ran = true), {waitMs: 1000}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LockBusyError)
    expect((error as LockBusyError).message).toMatch(
      new RegExp(`locked by pid ${held.pid}, alive for over 1 s \\(is it stopped\\? kill -CONT ${held.pid}; pk doctor says whether it is a pk\\)`),
    )
    expect(ran).toBe(false)
    held.kill('SIGCONT')
    held.kill('SIGUSR2')
    expect(await exited(held)).toBe(0)
  })

  it('a waiter leaves no entry of its own while a live holder holds: a waiter stopped as it waits keeps nobody out', async () => {
    const state = stateLayout(dir)
    mkdirSync(state.sessions)
    createRecord(state, sampleRecord())
    const held = await holder('first')
    // What the lock's directory holds each time the waiter looks at who is in it: the holder's entry alone.
    const seen: string[][] = []
    const stat = (pid: number) => {
      seen.push(readdirSync(lockDir(state)))
      return readStat(pid)
    }
    const error = await withStateLock(state, () => {}, {waitMs: 1000, stat}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LockBusyError)
    expect(seen.length).toBeGreaterThan(3)
    for (const names of seen) expect(names.map((n) => n.slice(0, 2) + n.split('_')[3])).toEqual([`H_${held.pid}`])
    held.kill('SIGUSR2')
    expect(await exited(held)).toBe(0)
  })

  it('a holder killed while it holds (SIGKILL) is passed over at once, its entry removed', async () => {
    const state = stateLayout(dir)
    mkdirSync(state.sessions)
    createRecord(state, sampleRecord())
    const held = await holder('never')
    held.kill('SIGKILL')
    await exited(held)
    expect(readdirSync(lockDir(state))).toHaveLength(1)
    const started = Date.now()
    await withWriteAccess(state, () => {}, {waitMs: 0})
    expect(Date.now() - started).toBeLessThan(5000)
    expect(readdirSync(lockDir(state))).toEqual([])
  })

  it('an entry of another pid namespace cannot be judged from here: it is never taken, and the error says so', async () => {
    const state = stateLayout(dir)
    mkdirSync(lockDir(state), {recursive: true})
    const {view} = readView()
    writeFileSync(join(lockDir(state), `H_${view.bootId}_99_1_1_ab`), '')
    const error = await withStateLock(state, () => {}, {waitMs: 0}).catch((e: unknown) => e)
    expect((error as Error).message).toMatch(
      /locked by an entry of another pid namespace \(pid 1 there\), which pk cannot check from here; nothing was written. pk doctor names it/,
    )
    // No advice to signal a pid that means something else here.
    expect((error as Error).message).not.toMatch(/kill/)
  })

  it('a holder whose entry was removed by hand finds out before it writes', async () => {
    const state = stateLayout(dir)
    await withStateLock(state, (lock) => {
      expect(lock.stillHeld()).toBe(true)
      for (const name of readdirSync(lockDir(state))) unlinkSync(join(lockDir(state), name))
      expect(lock.stillHeld()).toBe(false)
    })
  })

  it('a plain file where the lock directory belongs: a clear error', async () => {
    const state = stateLayout(dir)
    writeFileSync(lockDir(state), 'not a lock')
    await expect(withStateLock(state, () => {})).rejects.toThrow(/cannot lock the state directory.*not a directory of yours \(a file\)/)
  })

  it('many processes at once: each gets its turn, none at the same time as another', async () => {
    const state = stateLayout(dir)
    const log = join(dir, 'log')
    const script = (n: number) => `import(${JSON.stringify(join(ROOT, 'dist/lib/registry/lock.js'))}).then(({withStateLock}) =>
  withStateLock({root: ${JSON.stringify(dir)}}, async () => {
    require('node:fs').appendFileSync(${JSON.stringify(log)}, 'in ${n}\\n')
    await new Promise((r) => setTimeout(r, 20))
    require('node:fs').appendFileSync(${JSON.stringify(log)}, 'out ${n}\\n')
  }, {waitMs: 60000})).then(() => process.exit(0), (e) => { console.error(e); process.exit(1) })`
    const procs = Array.from({length: 8}, (_, n) => spawn(process.execPath, ['-e', script(n)], {stdio: 'inherit'}))
    children.push(...procs)
    expect(await Promise.all(procs.map(exited))).toEqual(Array(8).fill(0))
    const lines = (await import('node:fs')).readFileSync(log, 'utf8').trim().split('\n')
    expect(lines).toHaveLength(16)
    for (let i = 0; i < lines.length; i += 2) expect(lines[i + 1]).toBe(lines[i]!.replace('in', 'out'))
    expect(readdirSync(lockDir(state))).toEqual([])
    expect(readStat(process.pid)).not.toBeNull()
  }, 60_000)
})
