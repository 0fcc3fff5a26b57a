import {existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {claimEvent, deliver, eventOf, eventText, fillArgv, notifyRows} from '../../../src/lib/notify/notify.js'
import {markerName, markerState} from '../../../src/lib/registry/markers.js'
import {procSource} from '../../../src/lib/proc/source.js'
import {StateDir, openStateDirForWriting} from '../../../src/lib/registry/state-dir.js'
import {sessionRow} from '../../helpers/fixtures.js'

let dir: string
let state: StateDir
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pk-notify-'))
  state = openStateDirForWriting({PK_STATE_DIR: join(dir, 'state')})
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

const waiting = sessionRow({
  id: 'ab12cd34',
  state: 'waiting',
  stateSource: 'hook',
  attention: true,
  attentionSince: '2026-12-01T10:00:00.000Z',
  label: 'fix "it"',
  cwd: '/w',
})

describe('telling the user', () => {
  it('says what happened in one line, and fills a notifier argv word by word (no shell)', () => {
    const e = eventOf(waiting)
    expect(e).toEqual({
      id: 'ab12cd34',
      agent: 'claude',
      label: 'fix "it"',
      state: 'waiting',
      cwd: '/w',
      reason: 'waiting for you',
      since: waiting.attentionSince,
    })
    expect(eventText(e)).toBe('claude (fix "it") ab12cd34 is waiting for you: pk attach ab12cd34')
    expect(fillArgv(['notify', '{agent} {id}', '--label={label}', '{cwd}{nothing}', '{reason}'], e)).toEqual([
      'notify',
      'claude ab12cd34',
      '--label=fix "it"',
      '/w{nothing}',
      'waiting for you',
    ])
    expect(eventOf(sessionRow({state: 'idle'})).reason).toBe('finished its turn')
  })
  it('claims an event once: the marker is named by the session and the date the event began', async () => {
    expect(markerName(waiting)).toBe(`ab12cd34-${Date.parse('2026-12-01T10:00:00Z')}`)
    expect(await claimEvent(state, waiting)).toBe(true)
    expect(await claimEvent(state, waiting)).toBe(false)
    expect(await claimEvent(state, {...waiting, attentionSince: '2026-12-01T10:05:00.000Z'})).toBe(true)
    expect(readdirSync(join(state.root, 'notified'))).toHaveLength(2)
  })
  it('takes over the claim of a notifier that died before it told the event, never a live one, never a told event', async () => {
    const marker = join(state.root, 'notified', markerName(waiting))
    const me = procSource.stat(process.pid)!
    mkdirSync(join(state.root, 'notified'), {mode: 0o700})
    // A live notifier telling it: this process, by its pid and start time.
    writeFileSync(marker, `claimed ${process.pid} ${me.startTime} 2026-12-01T10:00:01.000Z\n`)
    expect(markerState(marker)).toBe('telling')
    expect(await claimEvent(state, waiting)).toBe(false)
    // A dead one: the pid is there, but it started at another time (the pid was handed on).
    writeFileSync(marker, `claimed ${process.pid} ${me.startTime + 1} 2026-12-01T10:00:01.000Z\n`)
    expect(markerState(marker)).toBe('abandoned')
    const out = join(dir, 'told')
    const channels = [{command: ['sh', '-c', 'echo "$1" >> "$2"', 'sh', '{id}', out]}]
    expect(await notifyRows([waiting], channels, {PATH: process.env.PATH}, state)).toEqual(['ab12cd34'])
    expect(readFileSync(out, 'utf8')).toBe('ab12cd34\n')
    expect(readFileSync(marker, 'utf8')).toMatch(/^told 20\d\d-/)
    expect(markerState(marker)).toBe('told')
    expect(await notifyRows([waiting], channels, {PATH: process.env.PATH}, state)).toEqual([])
    // What an earlier pk wrote (a date) is an event told.
    writeFileSync(marker, '2026-12-01T10:00:01.000Z\n')
    expect(markerState(marker)).toBe('told')
    expect(await claimEvent(state, waiting)).toBe(false)
    expect(readFileSync(out, 'utf8')).toBe('ab12cd34\n')
  })
  it('runs a command channel with the event filled in, and logs a channel that fails', async () => {
    const out = join(dir, 'told')
    const results = await deliver(
      eventOf(waiting),
      [{command: ['sh', '-c', 'printf "%s|%s" "$1" "$2" > "$3"', 'sh', '{id}', '{reason}', out]}, {command: ['false']}],
      {PATH: process.env.PATH},
      state,
    )
    expect(results.map((r) => r.ok)).toEqual([true, false])
    expect(readFileSync(out, 'utf8')).toBe('ab12cd34|waiting for you')
    expect(readFileSync(join(state.root, 'notify.log'), 'utf8')).toMatch(/ ab12cd34 command false: exited 1\n$/)
  })
  it('tells each unseen event once however often it is asked; an attached session is claimed, never told', async () => {
    const out = join(dir, 'count')
    const channels = [{command: ['sh', '-c', 'echo "$1" >> "$2"', 'sh', '{id}', out]}]
    expect(await notifyRows([waiting], channels, {PATH: process.env.PATH}, state)).toEqual(['ab12cd34'])
    expect(await notifyRows([waiting], channels, {PATH: process.env.PATH}, state)).toEqual([])
    const watched = sessionRow({id: 'ee00ff11', state: 'idle', attention: false, attached: true, attentionSince: '2026-12-01T11:00:00.000Z'})
    expect(await notifyRows([watched], channels, {PATH: process.env.PATH}, state)).toEqual([])
    expect(readFileSync(out, 'utf8')).toBe('ab12cd34\n')
    expect(existsSync(join(state.root, 'notified', markerName(watched)))).toBe(true)
    expect(await notifyRows([waiting], channels, {}, null)).toEqual([])
  })

  it('an event is told from the moment its channels start: a notifier killed while one runs leaves no claim to take over', async () => {
    const seen = join(dir, 'seen')
    const marker = join(state.root, 'notified', markerName(waiting))
    // The channel reads the marker while it runs: what a notifier killed at that moment would leave.
    const channels = [{command: ['sh', '-c', 'cat "$1" > "$2"', 'sh', marker, seen]}]
    expect(await notifyRows([waiting], channels, {PATH: process.env.PATH}, state)).toEqual(['ab12cd34'])
    expect(readFileSync(seen, 'utf8')).toMatch(/^told /)
    expect(markerState(marker)).toBe('told')
  })
})
