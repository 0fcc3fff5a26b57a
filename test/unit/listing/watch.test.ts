import {describe, expect, it} from 'vitest'

import {SessionRow} from '../../../src/lib/model/contract.js'
import {LOOK_FLOOR_MS, diffRows, lookDeadline, reached, waitForAnySession, waitForStates} from '../../../src/lib/listing/watch.js'
import {PkError} from '../../../src/lib/model/errors.js'
import {TMUX_DEADLINE_MS} from '../../../src/lib/tmux/exec.js'
import {laggingBehind} from '../../../src/lib/listing/sessions.js'
import {sessionIdOf} from '../../../src/lib/proc/identity.js'
import {workingRow} from '../../helpers/fixtures.js'

const row = workingRow

describe('watch events and the short format', () => {
  it('emits added, changed and removed, one per session, ignoring activity ticks', () => {
    const a = row('a')
    const b = row('b')
    const tick = {...a, tmux: {...a.tmux!, activity: 99}}
    expect(diffRows([a], [tick])).toEqual([])
    expect(diffRows([a], [{...a, state: 'waiting'}, b])).toEqual([
      {type: 'changed', session: {...a, state: 'waiting'}},
      {type: 'added', session: b},
    ])
    expect(diffRows([a, b], [b])).toEqual([{type: 'removed', id: 'a'}])
  })
})

/** A context whose clock is the test's; it reads no config and writes no state. */
const clockContext = (now: () => number) => ({
  env: {},
  cwd: '/',
  now,
  config: () => Promise.reject(new Error('not read')),
  readState: () => null,
  writeState: () => {
    throw new Error('a reader never writes')
  },
})

describe('pk wait against a server that never answers', () => {
  // A fake clock: a look at a stopped server costs it its whole tmux deadline, a pause costs what it says.
  const waitOn = async (timeoutMs: number, rows: SessionRow[] = [row('3f9a0000', {state: 'working'})]) => {
    let clock = 1_000_000
    const deadlines: {at: number; ms: number}[] = []
    const ctx = clockContext(() => clock)
    const result = await waitForStates({
      ctx,
      idArgs: ['3f9a'],
      target: 'idle',
      mode: 'all',
      timeoutMs,
      intervalMs: 500,
      look: async (ms) => {
        deadlines.push({at: clock, ms})
        clock += ms
        return {rows}
      },
      sleep: async (ms) => {
        clock += ms
      },
    }).then(
      () => 'reached',
      (error: unknown) => (error as PkError).code,
    )
    return {result, took: clock - 1_000_000, deadlines}
  }

  it('gives up at its own deadline: no look may run past it by more than the floor a look needs', async () => {
    for (const timeoutMs of [0, 100, 3000, 10_000]) {
      const {result, took, deadlines} = await waitOn(timeoutMs)
      expect(result, `--timeout ${timeoutMs}`).toBe('timeout')
      expect(took, `--timeout ${timeoutMs}`).toBeLessThanOrEqual(timeoutMs + LOOK_FLOOR_MS)
      expect(deadlines.length).toBeGreaterThan(0)
      for (const d of deadlines) expect(d.ms).toBeLessThanOrEqual(Math.max(LOOK_FLOOR_MS, 1_000_000 + timeoutMs - d.at))
    }
  })

  it("each look's tmux deadline is what is left of the wait's, within tmux's own and above the floor", () => {
    expect([lookDeadline(-5), lookDeadline(0), lookDeadline(150), lookDeadline(900), lookDeadline(60_000)]).toEqual([
      LOOK_FLOOR_MS,
      LOOK_FLOOR_MS,
      LOOK_FLOOR_MS,
      900,
      TMUX_DEADLINE_MS,
    ])
  })

  it('with no timeout, waits through unanswered looks until the session gets there', async () => {
    let looks = 0
    let clock = 0
    const ctx = clockContext(() => clock)
    const done = await waitForStates({
      ctx,
      idArgs: ['3f9a'],
      target: 'idle',
      mode: 'all',
      timeoutMs: null,
      intervalMs: 500,
      look: async (ms) => {
        clock += ms
        return {rows: [row('3f9a0000', {state: ++looks < 5 ? 'working' : 'idle'})]}
      },
      sleep: async (ms) => {
        clock += ms
      },
    })
    expect(done.map((r) => r.id)).toEqual(['3f9a0000'])
    expect(looks).toBe(5)
  })
})

describe('pk wait over every session, present and future (issue 39)', () => {
  const run = async (looks: SessionRow[][], opts: {agent?: string | null; timeoutMs?: number | null} = {}) => {
    let clock = 0
    let n = 0
    return waitForAnySession({
      ctx: clockContext(() => clock),
      target: 'attention',
      agent: opts.agent ?? null,
      timeoutMs: opts.timeoutMs ?? null,
      intervalMs: 500,
      look: async () => ({rows: looks[Math.min(n++, looks.length - 1)]!}),
      sleep: async (ms) => {
        clock += ms
      },
    })
  }
  it('returns the first session that needs you, also one started after the wait began, of the agent asked for', async () => {
    const busy = row('aaaa0000', {state: 'working', agent: 'claude'})
    const later = row('bbbb0000', {state: 'waiting', attention: true, agent: 'codex'})
    const mine = row('cccc0000', {state: 'waiting', attention: true, agent: 'claude'})
    expect((await run([[busy], [busy], [busy, later]])).map((r) => r.id)).toEqual(['bbbb0000'])
    expect((await run([[busy], [busy, later], [busy, later, mine]], {agent: 'claude'})).map((r) => r.id)).toEqual(['cccc0000'])
    // Plain panes (kind pane) and conflicting claims never end it.
    const pane = row('dddd0000', {kind: 'pane', attention: true})
    const conflict = row('eeee0000', {conflict: true, attention: true})
    await expect(run([[pane, conflict]], {timeoutMs: 2000})).rejects.toMatchObject({code: 'timeout', message: 'no session was needing you after 2 s'})
  })
})

describe('pk wait --next: what comes after the wait began (issue 39)', () => {
  const run = async (looks: SessionRow[][], timeoutMs: number | null = null) => {
    let clock = Date.parse('2026-12-02T10:00:00Z')
    let n = 0
    return waitForStates({
      ctx: clockContext(() => clock),
      idArgs: ['3f9a'],
      target: 'idle',
      mode: 'all',
      next: true,
      timeoutMs,
      intervalMs: 500,
      look: async () => ({rows: looks[Math.min(n++, looks.length - 1)]!}),
      sleep: async (ms) => {
        clock += ms
      },
    })
  }
  it('skips the idle state from before; takes the next one, seen after a turn or dated after the start', async () => {
    const idle = row('3f9a0000', {state: 'idle'})
    const working = row('3f9a0000', {state: 'working'})
    expect((await run([[idle], [idle], [working], [idle]])).map((r) => r.state)).toEqual(['idle'])
    // A turn that ended between two looks: what needs you began after the wait did.
    const told = row('3f9a0000', {state: 'idle', attention: true, attentionSince: '2026-12-02T10:00:01.000Z'})
    expect((await run([[idle], [told]])).map((r) => r.id)).toEqual(['3f9a0000'])
    const old = row('3f9a0000', {state: 'idle', attention: true, attentionSince: '2026-12-02T09:00:00.000Z'})
    await expect(run([[old]], 2000)).rejects.toMatchObject({
      code: 'timeout',
      message: expect.stringMatching(/still idle from before \(nothing new got there\)/),
    })
  })
})

describe('pk wait while a tmux server does not answer', () => {
  it('never takes the last hook report for the state now: it waits for the server, within its deadline', async () => {
    let clock = 0
    let n = 0
    // The hook said idle before a permission dialog came up; the server is silent for two looks.
    const silent = row('3f9a0000', {state: 'idle', stateSource: 'hook', verified: false, notVerifiedJustNow: 'its tmux server (/s) did not answer in time'})
    const dialog = row('3f9a0000', {state: 'waiting', stateSource: 'pane'})
    const idleAgain = row('3f9a0000', {state: 'idle'})
    const wait = (looks: SessionRow[][], timeoutMs: number) =>
      waitForStates({
        ctx: clockContext(() => clock),
        idArgs: ['3f9a'],
        target: 'idle',
        mode: 'all',
        timeoutMs,
        intervalMs: 500,
        look: async () => ({rows: looks[Math.min(n++, looks.length - 1)]!}),
        sleep: async (ms) => {
          clock += ms
        },
      })
    await expect(wait([[silent], [silent], [dialog]], 3000)).rejects.toMatchObject({code: 'timeout'})
    n = 0
    clock = 0
    expect((await wait([[silent], [silent], [dialog], [idleAgain]], 10_000)).map((r) => r.state)).toEqual(['idle'])
    // Exited is the kernel's word, whatever tmux says.
    const gone = row('3f9a0000', {state: 'exited', stateSource: 'process', verified: false, notVerifiedJustNow: 'its tmux server (/s) did not answer in time'})
    expect(reached(gone, 'exited')).toBe(true)
    expect(reached(silent, 'idle')).toBe(false)
  })

  it("any (pk mcp's wait_for): it stopped working, whoever looks at it; not while it works or is not known", () => {
    for (const state of ['idle', 'waiting', 'limited', 'exited'] as const) expect(reached(row('a', {state, attention: false}), 'any')).toBe(true)
    for (const state of ['working', 'unknown'] as const) expect(reached(row('a', {state}), 'any')).toBe(false)
  })
})

describe('pk wait behind a backlog of hook events', () => {
  // The storm's case: a session's turn began (its UserPromptSubmit pending), other sessions' events pushed
  // that out of what a reader reads, and the session showed its last turn's end again from its record.
  let n = 0
  const wait = (
    looks: {rows: SessionRow[]; lagging?: ReadonlySet<string>}[],
    opts: {next?: boolean; timeoutMs?: number | null; target?: 'idle' | 'exited'} = {},
  ) => {
    let clock = Date.parse('2026-12-05T10:00:00Z')
    n = 0
    return waitForStates({
      ctx: clockContext(() => clock),
      idArgs: ['3f9a'],
      target: opts.target ?? 'idle',
      mode: 'all',
      next: opts.next ?? false,
      timeoutMs: opts.timeoutMs ?? null,
      intervalMs: 500,
      look: async () => looks[Math.min(n++, looks.length - 1)]!,
      sleep: async (ms) => {
        clock += ms
      },
    })
  }
  const lagging = new Set(['3f9a0000'])
  const idle = row('3f9a0000', {state: 'idle'})
  const working = row('3f9a0000', {state: 'working'})

  it('takes no turn end from a session whose newest events it could not read; the next full look tells', async () => {
    const done = await wait([{rows: [working]}, {rows: [idle], lagging}, {rows: [idle], lagging}, {rows: [working]}, {rows: [idle]}], {next: true})
    expect([done.map((r) => r.state), n]).toEqual([['idle'], 5])
    // Not --next: the same, an idle read behind the backlog is no idle.
    expect([(await wait([{rows: [idle], lagging}, {rows: [working]}, {rows: [idle]}])).map((r) => r.state), n]).toEqual([['idle'], 3])
  })

  it('says so when its deadline passes behind the backlog', async () => {
    await expect(wait([{rows: [idle], lagging}], {timeoutMs: 2000})).rejects.toMatchObject({
      code: 'timeout',
      message: expect.stringMatching(/still idle as far as pk could read \(its newest hook events wait behind a backlog\)/),
    })
  })

  it('an exit is the kernel\u2019s word, backlog or not', async () => {
    const gone = row('3f9a0000', {state: 'exited'})
    expect((await wait([{rows: [gone], lagging}], {target: 'exited'})).map((r) => r.state)).toEqual(['exited'])
  })
})

describe('which sessions a backlog holds back (laggingBehind)', () => {
  const view = {bootId: 'b', pidNs: 'n'} as unknown as Parameters<typeof laggingBehind>[2]
  const idOf = (pid: number, startTime: number) => sessionIdOf({...view, pid, startTime})
  const a = row(idOf(10, 100), {agent: 'claude'})
  const b = row(idOf(20, 200), {agent: 'claude'})
  const c = row(idOf(30, 300), {agent: 'codex'})
  const all = new Set([a.id, b.id, c.id])
  it('names those in a pending event’s ancestry, every Codex session while a Codex event waits, and all when the senders are unknown', () => {
    const sender = (agent: string, ...links: [number, number][]) => ({agent, chain: links.map(([pid, startTime]) => ({pid, startTime}))})
    expect([...laggingBehind(all, [a, b, c], view, [sender('claude', [5, 1], [10, 100], [1, 1])])]).toEqual([a.id])
    expect([...laggingBehind(all, [a, b, c], view, [sender('claude', [10, 999])])]).toEqual([])
    expect([...laggingBehind(all, [a, b, c], view, [sender('codex', [77, 1])])]).toEqual([c.id])
    expect([...laggingBehind(new Set([b.id]), [a, b, c], view, [sender('claude', [10, 100], [20, 200])])]).toEqual([b.id])
    expect(laggingBehind(all, [a, b, c], view, null)).toEqual(all)
  })
})
