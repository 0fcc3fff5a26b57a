import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ASK_AGAIN_MS, ScreenWatch, firstSight, parseObservation} from '../../../src/lib/events/observe.js'
import {markerName} from '../../../src/lib/registry/markers.js'
import {StateDir, openStateDirForWriting} from '../../../src/lib/registry/state-dir.js'
import {sessionRow} from '../../helpers/fixtures.js'
import type {SessionRow} from '../../../src/lib/model/contract.js'

describe("a watcher's first sight of a limit (issue 70)", () => {
  it("a limit already on the screen at its first look is dated by the pane's last change; a change it saw happen, by now", () => {
    const now = Date.parse('2026-12-07T06:00:00Z')
    const drawn = Date.parse('2026-12-07T04:02:00Z') / 1000
    const limited = sessionRow({state: 'limited', tmux: {...sessionRow().tmux!, activity: drawn}})
    expect(firstSight(limited, undefined, now)).toBe(drawn * 1000)
    expect(firstSight(limited, {state: 'working'}, now)).toBe(now)
    expect(firstSight(sessionRow({state: 'idle', tmux: {...sessionRow().tmux!, activity: drawn}}), undefined, now)).toBe(now)
    // A window that reports a change after now (a clock moved) dates nothing in the future.
    expect(firstSight(sessionRow({state: 'limited', tmux: {...sessionRow().tmux!, activity: now / 1000 + 60}}), undefined, now)).toBe(now)
  })
})

describe('what a watcher hands in: a turn end it saw, never an older report coming back', () => {
  const who = () => ({pid: 42, startTime: 900})
  const turnDone = '2026-12-05T07:32:56.470Z'
  const looks = (agent: string, states: [SessionRow['state'], SessionRow['stateSource'], string | null][]) => {
    const watch = new ScreenWatch()
    return states.map(([state, stateSource, attentionSince], i) =>
      watch.observe([sessionRow({id: 'aaaaaaaa', agent, state, stateSource, attentionSince})], who, Date.parse('2026-12-05T07:34:00Z') + i * 1000),
    )
  }

  it("Codex: work on its screen, then its prompt again under the last turn's report (a failed turn): one turn end", () => {
    const seen = looks('codex', [
      ['idle', 'hook', turnDone],
      ['working', 'pane', null],
      ['idle', 'hook', turnDone],
      ['idle', 'hook', turnDone],
    ])
    expect(seen.map((o) => o.length)).toEqual([0, 0, 1, 0])
    expect(seen[2]![0]).toMatchObject({state: 'idle', from: 'working'})
  })

  it("Claude: a new turn's pending report a look took in, then an older report again (the storm): no turn end; its screen idle against the report: one", () => {
    expect(
      looks('claude', [
        ['idle', 'hook', turnDone],
        ['working', 'hook', null],
        ['idle', 'hook', turnDone],
        ['working', 'hook', null],
      ]).map((o) => o.length),
    ).toEqual([0, 0, 0, 0])
    const screen = looks('claude', [
      ['working', 'hook', null],
      ['idle', 'pane', null],
    ])
    expect(screen.map((o) => o.length)).toEqual([0, 1])
  })
})

describe("a watcher's screen observation (pk notify --observe)", () => {
  it('takes a process, the state its screen shows and when it was first seen', () => {
    expect(
      parseObservation('{"pid": 42, "startTime": 900, "state": "waiting", "firstSeen": 1764590000000, "from": "working", "lastOther": 1764589990000}'),
    ).toEqual({pid: 42, startTime: 900, state: 'waiting', from: 'working', firstSeen: 1764590000000, lastOther: 1764589990000})
    expect(parseObservation('{"pid": 42, "startTime": 900, "state": "idle", "firstSeen": 5, "from": 3, "lastOther": -1}')).toMatchObject({
      from: null,
      lastOther: null,
    })
  })
  it.each([
    ['not json', /takes a JSON object/],
    ['[1]', /needs pid, startTime, state/],
    ['{"pid": 0, "startTime": 1, "state": "idle", "firstSeen": 1}', /needs pid/],
    ['{"pid": 1.5, "startTime": 1, "state": "idle", "firstSeen": 1}', /needs pid/],
    ['{"pid": 1, "startTime": 1, "state": "working", "firstSeen": 1}', /state \(idle, waiting or limited\)/],
    ['{"pid": 1, "startTime": 1, "state": "idle"}', /firstSeen/],
    // Past JavaScript's dates (or 2100): no event of this world, and it would break whoever prints it.
    ['{"pid": 1, "startTime": 1, "state": "idle", "firstSeen": 9000000000000000}', /before 2100/],
    ['{"pid": 1, "startTime": 1, "state": "idle", "firstSeen": 5, "lastOther": 9000000000000000}', /before 2100/],
  ])('refuses %s (exit 2)', (text, message) => {
    expect(() => parseObservation(text)).toThrow(message)
    try {
      parseObservation(text)
    } catch (error) {
      expect(error).toMatchObject({code: 'bad-payload', exitCode: 2})
    }
  })
})

describe("a watcher's untold events", () => {
  let dir: string
  let state: StateDir
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pk-untold-'))
    state = openStateDirForWriting({PK_STATE_DIR: join(dir, 'state')})
  })
  afterEach(() => rmSync(dir, {recursive: true, force: true}))

  it('asks a notifier once, again only after ASK_AGAIN_MS while the event stays untold, and never once it is told', () => {
    const watch = new ScreenWatch()
    const waiting = sessionRow({id: 'ab12cd34', state: 'waiting', attention: true, attentionSince: '2026-12-01T10:00:00.000Z'})
    const t = 1_000_000
    expect(watch.untold([waiting], state, t).map((r) => r.id)).toEqual(['ab12cd34'])
    expect(watch.untold([waiting], state, t + ASK_AGAIN_MS - 1)).toEqual([])
    // The notifier asked died before it claimed the event: asked again.
    expect(watch.untold([waiting], state, t + ASK_AGAIN_MS).map((r) => r.id)).toEqual(['ab12cd34'])
    // A claim of a notifier gone before it told (its pid handed on: another start time) is untold too.
    mkdirSync(join(state.root, 'notified'), {mode: 0o700})
    const marker = join(state.root, 'notified', markerName(waiting))
    writeFileSync(marker, `claimed ${process.pid} 1 2026-12-01T10:00:01.000Z\n`)
    expect(watch.untold([waiting], state, t + 2 * ASK_AGAIN_MS).map((r) => r.id)).toEqual(['ab12cd34'])
    writeFileSync(marker, 'told 2026-12-01T10:00:02.000Z\n')
    expect(watch.untold([waiting], state, t + 3 * ASK_AGAIN_MS)).toEqual([])
  })
})
