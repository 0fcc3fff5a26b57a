import {describe, expect, it} from 'vitest'

import {PRESETS} from '../../../src/lib/agents/presets.js'
import {correlate} from '../../../src/lib/listing/pairing.js'
import {Snapshot} from '../../../src/lib/listing/snapshot.js'
import {CHECK_EVERY_LISTINGS, STANDING_MS, WatchCache, screenStillShows} from '../../../src/lib/listing/watch-cache.js'
import {sameJson} from '../../../src/lib/listing/watch.js'
import {FakeProcess, VIEW, fakeSource, pane, sampleRecord, server} from '../../helpers/fixtures.js'

const SOCK = '/tmp/tmux-0/pk'
const records = Array.from({length: 20}, (_, i) => ({file: `r${i}.json`, record: sampleRecord({identity: {...VIEW, pid: 100 + i, startTime: 1000 + i}})}))
const panes = records.map((r, i) => pane({paneId: `%${i}`, panePid: r.record.identity.pid}))
const alive: FakeProcess[] = records.map((r) => ({pid: r.record.identity.pid, ppid: 5, startTime: r.record.identity.startTime}))

function snapshot(processes: FakeProcess[], raw = 'listing', stored = records): Snapshot {
  return {
    env: {},
    view: VIEW,
    viewMeasurement: {ok: true, view: VIEW},
    proc: fakeSource(processes),
    state: null,
    records: stored,
    recordProblems: [],
    trust: {trusted: true},
    servers: [server(SOCK, panes, {raw})],
    tmuxMissing: null,
    presets: PRESETS,
  } as Snapshot
}
const pair = (snap: Snapshot) => correlate({view: snap.view, servers: snap.servers, records: snap.records, source: snap.proc, presets: snap.presets})

describe('WatchCache', () => {
  it('reuses a pairing while tmux answers the same and the records are the same', () => {
    const cache = new WatchCache()
    const first = snapshot(alive)
    expect(cache.reusable(first)).toBeNull()
    const result = pair(first)
    cache.remember(first, result, true)
    expect(cache.reusable(snapshot(alive))).toBe(result)
    // Any change in tmux's answer (a window's activity, a pane that died) pairs afresh.
    expect(cache.reusable(snapshot(alive, 'listing, a little later'))).toBeNull()
    // So does a new scan of the records.
    expect(cache.reusable(snapshot(alive, 'listing', [...records]))).toBeNull()
  })

  it('checks a slice of the processes against the kernel each time: a silent death is found within ten listings', () => {
    const cache = new WatchCache()
    const first = snapshot(alive)
    cache.remember(first, pair(first), true)
    // The last process became a zombie that tmux never reaped: tmux's answer did not change.
    const zombie = alive.map((p, i) => (i === alive.length - 1 ? {...p, state: 'Z'} : p))
    const verdicts = Array.from({length: CHECK_EVERY_LISTINGS}, () => cache.reusable(snapshot(zombie)))
    expect(verdicts.some((v) => v === null)).toBe(true)
    // A pid that is now another process (another start time) is found the same way.
    const other = new WatchCache()
    other.remember(first, pair(first), true)
    const reused = alive.map((p, i) => (i === 3 ? {...p, startTime: 77} : p))
    expect(Array.from({length: CHECK_EVERY_LISTINGS}, () => other.reusable(snapshot(reused))).some((v) => v === null)).toBe(true)
  })

  it('carries what stood at the last fresh look for a while, then reads it all again', () => {
    const cache = new WatchCache()
    expect(cache.carry(0).standing).toBeUndefined()
    const first = snapshot(alive)
    cache.remember(first, pair(first), true, 1_000)
    expect(cache.carry(1_000 + STANDING_MS - 1).standing).toMatchObject({view: VIEW, presets: PRESETS})
    // A pairing made from carried facts does not make them any younger.
    cache.remember(first, pair(first), false, 1_000 + STANDING_MS - 1)
    expect(cache.carry(1_000 + STANDING_MS).standing).toBeUndefined()
  })
})

describe('sameJson', () => {
  it('compares JSON-like values without building text, skipping what it is told to', () => {
    expect(sameJson({a: [1, {b: 'x'}], c: null}, {c: null, a: [1, {b: 'x'}]})).toBe(true)
    expect(sameJson({a: [1, 2]}, {a: [1, 2, 3]})).toBe(false)
    expect(sameJson({a: 1, b: undefined}, {a: 1})).toBe(true)
    expect(sameJson({a: {}}, {a: []})).toBe(false)
    const tmux = {pane: '%1', activity: 1}
    expect(sameJson({tmux}, {tmux: {pane: '%1', activity: 2}}, (key, parent) => key === 'activity' && parent === tmux)).toBe(true)
    expect(sameJson({tmux}, {tmux: {pane: '%2', activity: 1}}, (key, parent) => key === 'activity' && parent === tmux)).toBe(false)
  })
})

describe('screenStillShows', () => {
  const kept = {screen: '❯ ', activity: 1_000, takenAt: 1_001_000}
  it('a screen captured after its window last showed output, with no output since: still what the pane shows', () => {
    expect(screenStillShows(kept, 1_000)).toBe(true)
    expect(screenStillShows({...kept, takenAt: 1_005_300}, 1_000)).toBe(true)
  })
  it('captured again once the window showed output, or when the capture was made in the second of its last output', () => {
    expect(screenStillShows(kept, 1_001)).toBe(false)
    // (output later in the capture's own second leaves the activity at 1000: the screen could be behind it)
    expect(screenStillShows({...kept, takenAt: 1_000_999}, 1_000)).toBe(false)
    expect(screenStillShows(undefined, 1_000)).toBe(false)
    expect(screenStillShows(kept, null)).toBe(false)
  })
})
