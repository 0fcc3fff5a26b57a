import {spawnSync} from 'node:child_process'
import {chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseEvent} from '../../../src/lib/events/events.js'
import {HookReport} from '../../../src/lib/events/hook.js'
import {
  SpoolEvent,
  bucketFiles,
  readPending,
  hasPending,
  makerMayBeWriting,
  parseSpoolText,
  pendingNames,
  readSpoolFile,
  readSpoolFiles,
  spoolDir,
  spoolLayout,
  sortByStamp,
  stampOf,
  compactSpool,
  READER_BODY_BYTES,
  oldestPendingAge,
} from '../../../src/lib/events/spool.js'
import {processSource} from '../../../src/lib/proc/source.js'
import {stateLayout} from '../../../src/lib/registry/state-dir.js'
import {link} from '../../helpers/fixtures.js'

const event = (agent: string, chain: number[], payload: object, uptime = 1): SpoolEvent => ({
  name: `${uptime * 100}-1`,
  agent,
  uptime,
  chain: chain.map(link),
  payload: JSON.stringify(payload),
})
const report = (e: SpoolEvent): HookReport => {
  const parsed = parseEvent(e, 0)
  if (parsed.kind !== 'report') throw new Error(parsed.kind)
  return parsed.report
}

describe('the spool format', () => {
  it('reads the ancestry the hook noted, and the earlier one-process form', () => {
    expect(parseSpoolText('n', 'pk-spool 2 claude 12.34 99:5,10:100,1:1\n{"a":1}')).toEqual({
      name: 'n',
      agent: 'claude',
      uptime: 12.34,
      chain: [
        {pid: 99, startTime: 5},
        {pid: 10, startTime: 100},
        {pid: 1, startTime: 1},
      ],
      payload: '{"a":1}',
    })
    expect(parseSpoolText('n', 'pk-spool 2 claude 12.34 99:5 7\n{"a":1}')).toMatchObject({chain: [{pid: 99, startTime: 5}], length: 7, payload: '{"a":1}'})
    expect(parseSpoolText('n', 'pk-spool 3 claude 12.34 99:5 0\n')).toMatchObject({clock: 'epoch', length: 0, payload: ''})
    expect(parseSpoolText('n', 'pk-spool 1 pi 42 4200 7.5\n{}')).toMatchObject({agent: 'pi', uptime: 7.5, chain: [{pid: 42, startTime: 4200}]})
    expect(parseSpoolText('n', 'pk-spool 2 claude 1 99:x\n')).toBeNull()
    expect(parseSpoolText('n', 'pk-spool 2 ../x 1 99:1\n')).toBeNull()
    expect(parseSpoolText('n', 'garbage')).toBeNull()
    expect(stampOf('1234-99')).toBe(1234)
    expect(stampOf('42-4200-1234-99')).toBe(1234)
  })
  it('dates an event by its hook where the agent gives no time, by the agent where it does', () => {
    expect(report(event('claude', [31], {hook_event_name: 'Stop'}, 5)).sentAt).toBe(5000)
    expect(report(event('pi', [31], {event: 'agent_end', at: 777}, 5)).sentAt).toBe(777)
    expect(parseEvent(event('claude', [31], {hook_event_name: 'SubagentStop'}), 0).kind).toBe('ignored')
    expect(parseEvent({...event('claude', [31], {}), payload: 'nope'}, 0).kind).toBe('ignored')
  })
})

describe('the spool on disk: buckets, and what a file that is not an event is', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pk-spool-'))
  })
  afterEach(() => rmSync(dir, {recursive: true, force: true}))
  const put = (name: string, text = `pk-spool 2 claude ${stampOf(name.split('/').at(-1)!) / 100} 99:5\n{}`) => {
    mkdirSync(join(dir, name, '..'), {recursive: true})
    writeFileSync(join(dir, name), text, {mode: 0o600})
  }

  it('lists buckets oldest first, loose files of an earlier pk before them, temp files never', () => {
    put('12/1200-1')
    put('3/300-1')
    put('3/350-2')
    put('250-1')
    put('.tmp-9-1')
    put('12/.tmp-1')
    expect(spoolLayout(dir)).toEqual({buckets: ['3', '12'], loose: ['250-1']})
    expect(pendingNames(dir)).toEqual(['250-1', '3/300-1', '3/350-2', '12/1200-1'])
    expect(hasPending(dir)).toBe(true)
  })

  it('a reader takes the newest events, listing only the buckets it needs, and says whether that was all', () => {
    const state = stateLayout(join(dir, 'state'))
    mkdirSync(spoolDir(state), {recursive: true, mode: 0o700})
    const into = (name: string) => {
      mkdirSync(join(spoolDir(state), name, '..'), {recursive: true})
      writeFileSync(join(spoolDir(state), name), `pk-spool 2 claude ${stampOf(name.split('/').at(-1)!) / 100} 99:5\n{}`)
    }
    for (let second = 0; second < 10; second++) for (let i = 0; i < 10; i++) into(`${second}/${second * 100 + i}-1`)
    const newest = readPending(state, 25)
    expect(newest.complete).toBe(false)
    expect(newest.events.map((e) => e.name)).toEqual(
      Array.from({length: 25}, (_, i) => `${7 + Math.floor((i + 5) / 10)}/${(7 + Math.floor((i + 5) / 10)) * 100 + ((i + 5) % 10)}-1`),
    )
    const all = readPending(state, 100)
    expect(all.complete).toBe(true)
    expect(all.events).toHaveLength(100)
    into('150-1')
    expect(readPending(state, 100).complete).toBe(false)
    expect(readPending(state, 101)).toMatchObject({complete: true, events: expect.arrayContaining([expect.objectContaining({name: '150-1'})])})
  })

  it('judges each file: an event; gone (applied meanwhile: nothing to say); or truly not one, with why', () => {
    put('1/100-1')
    put('1/101-1', 'garbage')
    mkdirSync(join(dir, '1', '102-1'))
    spawnSync('mkfifo', [join(dir, '1', '103-1')])
    symlinkSync('/etc/passwd', join(dir, '1', '104-1'))
    put('1/105-1')
    chownSync(join(dir, '1', '105-1'), 65534, 65534)
    expect(readSpoolFile(dir, '1/100-1')).toMatchObject({event: {agent: 'claude'}})
    expect(readSpoolFile(dir, '1/gone-1')).toBeNull()
    expect(readSpoolFile(dir, '1/101-1')).toEqual({rejected: 'not a pk spool event (its first line)'})
    expect(readSpoolFile(dir, '1/102-1')).toEqual({rejected: 'a directory'})
    expect(readSpoolFile(dir, '1/103-1')).toEqual({rejected: 'a FIFO'})
    expect(readSpoolFile(dir, '1/104-1')).toEqual({rejected: 'a symbolic link'})
    if (process.getuid!() === 0) expect(readSpoolFile(dir, '1/105-1')).toEqual({rejected: 'owned by uid 65534, not by you'})
    const all = readSpoolFiles(dir, ['1/100-1', '1/gone-1', '1/101-1', '1/102-1'])
    expect(all.events).toHaveLength(1)
    expect(all.rejected.map((r) => r.name)).toEqual(['1/101-1', '1/102-1'])
    expect(all.deferred).toEqual([])
  })

  it('a file written in place is an event once whole; until then its hook is writing it, or it was cut short when the hook is gone', () => {
    // The stamp in a name is when its hook ran: now, on the source's clock (this process started before).
    const now = Math.floor(processSource().clock()!.seconds * 100)
    const head = (length: number) => `pk-spool 2 claude ${now / 100} 99:5 ${length}\n`
    const mine = `1/${now}-${process.pid}`
    const child = spawnSync('true')
    const gone = `1/${now}-${child.pid}`
    put(mine, head(7) + '{"a":1}')
    expect(readSpoolFile(dir, mine)).toMatchObject({event: {payload: '{"a":1}', length: 7}})
    // Bytes, not characters: an e with its accent is two.
    put(mine, head(4) + '"\u00e9"')
    expect(readSpoolFile(dir, mine)).toMatchObject({event: {payload: '"\u00e9"'}})
    for (const partial of ['', 'pk-sp', `pk-spool 2 claude ${now / 100} 99:5 7`, head(7) + '{"a"']) {
      put(mine, partial)
      expect(readSpoolFile(dir, mine), partial).toEqual({writing: true})
      put(gone, partial)
      expect(readSpoolFile(dir, gone), partial).toMatchObject({rejected: expect.stringMatching(/^cut short/)})
    }
    put(gone, head(7) + '{"a"')
    expect(readSpoolFile(dir, gone)).toEqual({rejected: 'cut short: 4 of its 7 bytes (its hook ended before it was written whole)'})
    put(mine, head(3) + '{"a":1}')
    expect(readSpoolFile(dir, mine)).toEqual({rejected: 'longer than its first line says (7 bytes, not 3)'})
    // A pid handed to a process that started after the stamp is not the maker's.
    const early = `1/${now - 100 * 3600 * 24 * 365}-${process.pid}`
    put(early, head(7) + '{"a"')
    expect(readSpoolFile(dir, early)).toMatchObject({rejected: expect.stringMatching(/^cut short/)})
    // Readers and the writer pass over one being written: not an event yet, and nothing to say about it.
    put(mine, head(7) + '{"a"')
    expect(readSpoolFiles(dir, [mine])).toEqual({events: [], rejected: [], deferred: []})
  })

  it('whose maker may still write a file: a live process of its pid, no zombie, started by the stamp', () => {
    const stat = (state: string, startTime: number) => ({pid: 42, comm: 'sh', state, ppid: 1, pgrp: 42, startTime})
    const seconds = (ticks: number) => ticks / 100
    expect(makerMayBeWriting('7/700-42', stat('S', 690), seconds, 0.01)).toBe(true)
    expect(makerMayBeWriting('7/700-42', stat('T', 700), seconds, 0.01)).toBe(true)
    expect(makerMayBeWriting('7/700-42', stat('S', 720), seconds, 0.01)).toBe(false)
    expect(makerMayBeWriting('7/700-42', stat('Z', 690), seconds, 0.01)).toBe(false)
    expect(makerMayBeWriting('7/700-42', null, seconds, 0.01)).toBe(false)
    expect(makerMayBeWriting('7/700-43', stat('S', 690), seconds, 0.01)).toBe(false)
    expect(makerMayBeWriting('700-42', stat('S', 7), (s) => s, 1)).toBe(true)
  })

  it("a bucket that is a link, or not a folder, is nobody's events", () => {
    mkdirSync(join(dir, 'elsewhere'))
    writeFileSync(join(dir, 'elsewhere', '100-1'), 'pk-spool 2 claude 1 99:5\n{}')
    symlinkSync(join(dir, 'elsewhere'), join(dir, '5'))
    expect(bucketFiles(dir, '5')).toEqual([])
  })
})

describe('what a reader reads of the spool', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pk-spool-reader-'))
  })
  afterEach(() => rmSync(dir, {recursive: true, force: true}))

  it('of a long payload only its start: the event, cut there, still says its kind and session; the writer reads it whole', () => {
    const payload = `{"hook_event_name":"Stop","session_id":"conv-long","last_assistant_message":"${'y'.repeat(1024 * 1024)}"}`
    writeFileSync(join(dir, '100-1'), `pk-spool 2 claude 1.00 99:5\n${payload}`)
    const cut = readSpoolFile(dir, '100-1', {bodyBytes: READER_BODY_BYTES})
    expect(cut).toMatchObject({event: {truncated: true}})
    const event = (cut as {event: SpoolEvent}).event
    expect(event.payload.length).toBeLessThanOrEqual(READER_BODY_BYTES)
    expect(report(event)).toMatchObject({conversationId: 'conv-long'})
    const whole = readSpoolFile(dir, '100-1') as {event: SpoolEvent}
    expect([whole.event.truncated, whole.event.payload]).toEqual([undefined, payload])
    // A short one is read whole either way.
    writeFileSync(join(dir, '101-1'), 'pk-spool 2 claude 1.01 99:5\n{"hook_event_name":"Stop"}')
    expect(readSpoolFile(dir, '101-1', {bodyBytes: READER_BODY_BYTES})).toEqual(readSpoolFile(dir, '101-1'))
  })

  it('of a file the sh hook still writes in place (its length says more), nothing yet; of one longer than it says, a rejection', () => {
    const body = '{"hook_event_name":"Stop","pad":"' + 'z'.repeat(200 * 1024) + '"}'
    writeFileSync(join(dir, `100-${process.pid}`), `pk-spool 2 claude 0.00 99:5 ${Buffer.byteLength(body) + 10}\n${body}`)
    expect(readSpoolFile(dir, `100-${process.pid}`, {bodyBytes: READER_BODY_BYTES})).toMatchObject({rejected: expect.stringMatching(/cut short/)})
    writeFileSync(join(dir, '102-1'), `pk-spool 2 claude 1.02 99:5 10\n${body}`)
    expect(readSpoolFile(dir, '102-1', {bodyBytes: READER_BODY_BYTES})).toMatchObject({rejected: expect.stringMatching(/longer than its first line says/)})
  })

  it('orders 200,000 names by their stamps without working them out at each comparison', () => {
    const names = Array.from({length: 200_000}, (_, i) => `${(200_000 - i) * 3}-${i % 7}`)
    const sorted = sortByStamp([...names])
    expect(sorted[0]).toBe(names.at(-1))
    expect(sorted.at(-1)).toBe(names[0])
  })

  it('a drained spool folder grown large is replaced by an empty one; one with anything in it stays', () => {
    const spool = join(dir, 'spool')
    mkdirSync(spool, {mode: 0o700})
    for (let i = 0; i < 40_000; i++) writeFileSync(join(spool, `${i}-1`), '')
    const grown = statSync(spool).size
    for (const name of readdirSync(spool).slice(1)) rmSync(join(spool, name))
    compactSpool(spool)
    // One file left: nothing replaced (ext4 keeps the size; tmpfs shrinks it by itself).
    expect(readdirSync(spool)).toHaveLength(1)
    rmSync(join(spool, readdirSync(spool)[0]!))
    compactSpool(spool)
    expect(readdirSync(spool)).toEqual([])
    expect(statSync(spool).size).toBeLessThanOrEqual(grown)
    expect(statSync(spool).mode & 0o777).toBe(0o700)
    expect(existsSync(`${spool}.fresh-${process.pid}`)).toBe(false)
  })
})

describe('oldestPendingAge', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pk-age-'))
  })
  afterEach(() => rmSync(dir, {recursive: true, force: true}))

  it("is how long ago the oldest non-empty bucket's second was, long ago for loose files, null when nothing waits", () => {
    expect(oldestPendingAge(dir, 1000)).toBeNull()
    mkdirSync(join(dir, '900'))
    mkdirSync(join(dir, '950'))
    writeFileSync(join(dir, '950', '95000-42'), '')
    expect(oldestPendingAge(dir, 1000)).toBe(50)
    // (a bucket of the writer's clock in the future: a clock that went back; never negative)
    expect(oldestPendingAge(dir, 940)).toBe(0)
    writeFileSync(join(dir, '10-41'), '')
    expect(oldestPendingAge(dir, 1000)).toBe(Number.POSITIVE_INFINITY)
  })
})
