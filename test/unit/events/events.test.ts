import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {SessionRow} from '../../../src/lib/model/contract.js'
import {
  SAME_TURN_MS,
  SCREEN_EVENT,
  World,
  applyEvents,
  attribute,
  nextEpisode,
  parseEvent,
  sameTurnEnd,
  servesSessions,
} from '../../../src/lib/events/events.js'
import {HookReport, parseHookPayload} from '../../../src/lib/events/hook.js'
import {sessionIdOf} from '../../../src/lib/proc/identity.js'
import {SessionRecord} from '../../../src/lib/registry/records.js'
import {SpoolEvent} from '../../../src/lib/events/spool.js'
import {CODEX_MACHINE, VIEW, link, sampleRecord, sessionRow} from '../../helpers/fixtures.js'

const idOf = (pid: number) => sessionIdOf({...VIEW, pid, startTime: CODEX_MACHINE[pid]!.startTime})

const row = (pid: number, over: Partial<SessionRow> = {}): SessionRow =>
  sessionRow({
    id: idOf(pid),
    kind: 'detected',
    agent: null,
    state: 'idle',
    stateSource: 'pane',
    pid,
    cwd: '/w',
    record: null,
    tmux: {socket: '/s', session: 'x', sessionId: '$1', window: '@1', pane: `%${pid}`, lastAttached: null, lastDetached: null, activity: null},
    ...over,
  })

function world(rows: SessionRow[], opts: {conversations?: Record<string, string>; threads?: Record<string, boolean | null>} = {}): World {
  return {
    view: VIEW,
    rowsById: new Map(rows.map((r) => [r.id, r])),
    stat: (pid) => (CODEX_MACHINE[pid] ? {startTime: CODEX_MACHINE[pid]!.startTime} : null),
    argv: (pid) => CODEX_MACHINE[pid]?.argv ?? null,
    exe: (pid) => CODEX_MACHINE[pid]?.exe ?? null,
    codexThreadIsConversation: (thread) => (opts.threads && thread in opts.threads ? opts.threads[thread]! : null),
    conversationOf: (r) => opts.conversations?.[r.id] ?? null,
  }
}

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

describe('attribution: the right session or none', () => {
  it('walks the ancestry noted at the event: a shell in between, gone since, is harmless', () => {
    const claude = row(31, {agent: 'claude'})
    // The hook ran as `sh -c CMD` (pid 99, gone now) under Claude.
    const e = event('claude', [], {hook_event_name: 'Stop'})
    e.chain = [{pid: 99, startTime: 9}, link(31), link(30), {pid: 1, startTime: 1}]
    expect(attribute(e, report(e), world([claude]))).toMatchObject({kind: 'session', row: {id: claude.id}, by: 'ancestry'})
  })
  it('a pane whose process no preset names: its child on the way up is the agent', () => {
    const plain = row(40, {kind: 'pane'})
    const e = event('aider', [41, 40], {state: 'waiting'})
    expect(attribute(e, report(e), world([plain]))).toMatchObject({kind: 'session', row: {id: plain.id}, agent: link(41)})
    // A start time that is not the process's own: not that session.
    const stale = event('aider', [], {state: 'waiting'})
    stale.chain = [
      {pid: 41, startTime: 1},
      {pid: 40, startTime: 1},
    ]
    expect(attribute(stale, report(stale), world([plain])).kind).toBe('none')
  })
  it('refuses a session two records claim', () => {
    const e = event('claude', [31, 30], {hook_event_name: 'Stop'})
    expect(attribute(e, report(e), world([row(31, {conflict: true})])).kind).toBe('none')
  })
  it("Codex: a shared daemon is no proof; the thread of a recorded conversation, or the one window in the event's directory, is", () => {
    const first = row(11, {agent: 'codex', cwd: '/w'})
    const second = row(21, {agent: 'codex', cwd: '/v'})
    // The notify program runs under the first window's app-server daemon, for the second window's thread.
    const e = event('codex', [12, 11, 10], {type: 'agent-turn-complete', 'thread-id': 't-second', cwd: '/v'})
    expect(attribute(e, report(e), world([first, second]))).toMatchObject({kind: 'session', row: {id: second.id}, by: 'cwd'})
    expect(attribute(e, report(e), world([first, second], {conversations: {[second.id]: 't-second'}}))).toMatchObject({
      row: {id: second.id},
      by: 'conversation',
    })
    // Both windows in one directory, neither on that thread yet: nobody's, never the first window's.
    const same = row(21, {agent: 'codex', cwd: '/w'})
    expect(attribute(e, report({...e, payload: JSON.stringify({type: 'agent-turn-complete', 'thread-id': 't-x', cwd: '/w'})}), world([first, same])).kind).toBe(
      'none',
    )
    // A window already on another conversation is not the sender of a new thread.
    const onOther = world([first, same], {conversations: {[first.id]: 't-first'}})
    const newThread = event('codex', [12, 11, 10], {type: 'agent-turn-complete', 'thread-id': 't-new', cwd: '/w'})
    expect(attribute(newThread, report(newThread), onOther)).toMatchObject({row: {id: same.id}, by: 'cwd'})
    // The daemon gone, or never named: still never the window it once ran under.
    const noDir = event('codex', [12, 11, 10], {type: 'agent-turn-complete', 'thread-id': 't-y'})
    expect(attribute(noDir, report(noDir), world([first])).kind).toBe('none')
    expect(servesSessions(CODEX_MACHINE[12]!.argv)).toBe(true)
  })
  it("Codex: a forged turn from outside every session (a plain terminal, a cron job) is nobody's, whatever directory and thread it names", () => {
    const first = row(11, {agent: 'codex', cwd: '/w'})
    // Sent by a process under a plain shell (pid 40's tree), naming the session's directory and a new thread.
    const forged = event('codex', [41, 40], {type: 'agent-turn-complete', 'thread-id': '0199aaaa-bbbb-7ccc-8ddd-000000000000', cwd: '/w'})
    expect(attribute(forged, report(forged), world([first]))).toMatchObject({kind: 'none', reason: expect.stringMatching(/outside every session/)})
    // Naming the session's own recorded thread does not make it the session's either.
    const known = event('codex', [41, 40], {type: 'agent-turn-complete', 'thread-id': 't-first', cwd: '/w'})
    expect(attribute(known, report(known), world([first], {conversations: {[first.id]: 't-first'}})).kind).toBe('none')
    // A process that only calls itself app-server (its program is python's) proves nothing.
    const fakeDaemon = event('codex', [42, 40], {type: 'agent-turn-complete', 'thread-id': 't-z', cwd: '/w'})
    expect(attribute(fakeDaemon, report(fakeDaemon), world([first])).kind).toBe('none')
  })
  it("Codex 0.171: once the window that started its daemon stopped, the daemon (pid 1's child now) still carries every other window's turns", () => {
    // Seen on 0.171.0: the first window stopped for a resume, its daemon lived on under pid 1; 17 of 53
    // turns of the windows after were nobody's.
    const second = row(21, {agent: 'codex', cwd: '/v'})
    const orphaned = event('codex', [12], {type: 'agent-turn-complete', 'thread-id': 't-second', cwd: '/v'})
    expect(attribute(orphaned, report(orphaned), world([second]))).toMatchObject({kind: 'session', row: {id: second.id}, by: 'cwd'})
    expect(attribute(orphaned, report(orphaned), world([second], {conversations: {[second.id]: 't-second'}}))).toMatchObject({by: 'conversation'})
    // The daemon itself gone (its pid taken by another process since): nobody's.
    const gone = {...orphaned, chain: [{pid: 12, startTime: 999}]}
    expect(attribute(gone, report(gone), world([second])).kind).toBe('none')
  })
  it("Codex: a thread with no rollout file (the side thread that writes the title) is nobody's", () => {
    const first = row(11, {agent: 'codex', cwd: '/w'})
    const e = event('codex', [12, 11, 10], {type: 'agent-turn-complete', 'thread-id': 'title-thread', cwd: '/w'})
    expect(attribute(e, report(e), world([first], {threads: {'title-thread': false}}))).toMatchObject({
      kind: 'none',
      reason: expect.stringMatching(/side thread/),
    })
  })
  it('Codex before 0.171 ran notify from the window itself: its ancestry names it', () => {
    const first = row(11, {agent: 'codex'})
    const e = event('codex', [11, 10], {type: 'agent-turn-complete', 'thread-id': 't1'})
    expect(attribute(e, report(e), world([first, row(21, {agent: 'codex'})]))).toMatchObject({row: {id: first.id}, by: 'ancestry'})
  })
})

describe('applying events', () => {
  const records = new Map<string, SessionRecord>([['c.json', sampleRecord({identity: {...VIEW, ...link(31)}, agent: 'claude', status: null})]])
  const claude = row(31, {agent: 'claude', kind: 'recorded', record: 'c.json'})

  it('replays in order; one prompt told by two events is one event', () => {
    const events = [
      event('claude', [31], {hook_event_name: 'UserPromptSubmit', session_id: 's'}, 1),
      event('claude', [31], {hook_event_name: 'PermissionRequest', session_id: 's'}, 2),
      event('claude', [31], {hook_event_name: 'Notification', notification_type: 'permission_prompt', session_id: 's'}, 8),
    ]
    const {applied, outcomes} = applyEvents(events, world([claude]), records, 0)
    expect(applied.get(claude.id)).toMatchObject({
      changed: true,
      mayNeedYou: true,
      conversationId: 's',
      status: {state: 'waiting', event: 'PermissionRequest', at: new Date(2000).toISOString()},
    })
    expect(outcomes.map((o) => o.id)).toEqual([claude.id, claude.id, claude.id])
    // Applying what is already in the record changes nothing (a reader may see an event twice).
    const again = applyEvents(events.slice(1), world([claude]), new Map([['c.json', {...records.get('c.json')!, status: applied.get(claude.id)!.status}]]), 0)
    expect(again.applied.get(claude.id)?.status).toEqual(applied.get(claude.id)!.status)
  })
  it("a watcher's sight of a limit is applied as one (Codex 0.171.0 reports nothing at its usage limit); a state no screen gives is malformed", () => {
    const codex = row(31, {agent: 'codex', kind: 'recorded', record: 'c.json'})
    const {applied, outcomes} = applyEvents(
      [
        event(SCREEN_EVENT, [31], {state: 'limited', from: 'idle', firstSeen: 5000}),
        event(SCREEN_EVENT, [31], {state: 'working', from: 'idle', firstSeen: 6000}),
      ],
      world([codex]),
      records,
      0,
    )
    expect(applied.get(codex.id)?.observed).toMatchObject({state: 'limited', since: new Date(5000).toISOString()})
    expect(outcomes.at(-1)?.reason).toBe('a malformed screen observation')
  })
  it("Pi's retried attempt is work, not the end of a turn", () => {
    const pi = row(31, {agent: 'pi', kind: 'recorded', record: 'c.json'})
    const {applied} = applyEvents([event('pi', [31], {event: 'agent_start', at: 1}), event('pi', [31], {event: 'agent_retry', at: 2})], world([pi]), records, 0)
    expect(applied.get(pi.id)).toMatchObject({mayNeedYou: false, status: {state: 'working'}})
  })
  it('an event dated out of range is ignored, with why; every other event still applies (nothing throws)', () => {
    const pi = row(31, {agent: 'pi', kind: 'recorded', record: 'c.json'})
    const events = [
      event('pi', [31], {event: 'agent_start', at: 1000}),
      event('pi', [31], {event: 'agent_end', at: 1e300}),
      event('pi', [31], {event: 'agent_end', at: -5}),
      event('pi', [31], {event: 'agent_end', at: Date.UTC(2200, 0, 1)}),
      event(SCREEN_EVENT, [31], {state: 'idle', from: 'working', firstSeen: 9_000_000_000_000_000}),
      event(SCREEN_EVENT, [31], {state: 'idle', from: 'working', firstSeen: 2000, lastOther: 1e300}),
      event('pi', [31], {event: 'agent_end', at: 3000}),
    ]
    const {applied, outcomes} = applyEvents(events, world([pi]), records, 0)
    expect(outcomes.map((o) => o.reason)).toEqual([
      'working (agent_start, by ancestry)',
      'its date (1e+300) is out of range',
      'its date (-5) is out of range',
      `its date (${Date.UTC(2200, 0, 1)}) is out of range`,
      'a screen observation dated out of range',
      'a screen observation dated out of range',
      'idle (agent_end, by ancestry)',
    ])
    expect(applied.get(pi.id)).toMatchObject({status: {state: 'idle', at: new Date(3000).toISOString()}})
    // A hook's own clock (uptime after boot) out of range: the same.
    expect(parseEvent({...event('claude', [31], {hook_event_name: 'Stop'}), uptime: 1e300}, 0)).toMatchObject({kind: 'ignored'})
  })
  it('screen episodes: a new one when the state changed since, the same one otherwise', () => {
    expect(nextEpisode(null, {state: 'idle', from: 'working', firstSeen: 1000, lastOther: 900})).toEqual({
      state: 'idle',
      since: new Date(1000).toISOString(),
      turnEnded: true,
      lastOther: new Date(900).toISOString(),
    })
    const episode = {state: 'idle' as const, since: new Date(1000).toISOString(), turnEnded: true}
    // A second watcher saw the same change a little later: it last saw work before the first one's sighting.
    expect(nextEpisode(episode, {state: 'idle', from: 'working', firstSeen: 1500, lastOther: 800})).toBeNull()
    // Work seen after the episode began: a new turn ended.
    expect(nextEpisode(episode, {state: 'idle', from: 'working', firstSeen: 9000, lastOther: 8000})).toMatchObject({since: new Date(9000).toISOString()})
    // Waiting always needs the user; idle first seen without work before it is no turn end.
    expect(nextEpisode(null, {state: 'waiting', from: null, firstSeen: 5, lastOther: null})?.turnEnded).toBe(true)
    expect(nextEpisode(null, {state: 'idle', from: null, firstSeen: 5, lastOther: null})?.turnEnded).toBe(false)
  })
})

describe('one turn end, one event', () => {
  const iso = (ms: number) => new Date(ms).toISOString()
  const T = Date.parse('2026-12-04T10:00:00Z')
  const working = {state: 'working' as const, at: iso(T), event: 'PreToolUse', turnEnded: false}
  const stop = (at: number) => ({state: 'idle' as const, at: iso(at), event: 'Stop', turnEnded: true})
  const seen = (since: number, lastOther?: number) => ({
    state: 'idle' as const,
    since: iso(since),
    turnEnded: true,
    ...(lastOther ? {lastOther: iso(lastOther)} : {}),
  })

  it("a hook's report of the turn end an observer saw first takes the observer's date", () => {
    // The screen showed the prompt at T+20 s (the watcher handed it in); the Stop hook ran at T+32 s.
    expect(sameTurnEnd(stop(T + 32_000), working, seen(T + 20_000, T + 19_500)).since).toBe(iso(T + 20_000))
    // Without the work reported (Codex's notify says only the end), only when they are close.
    const idleBefore = {...stop(T - 60_000)}
    expect(sameTurnEnd(stop(T + 30_000), idleBefore, seen(T + 20_000, T + 19_000)).since).toBe(iso(T + 20_000))
    expect(sameTurnEnd(stop(T + 20_000 + SAME_TURN_MS + 1), idleBefore, seen(T + 20_000, T + 19_000)).since).toBeUndefined()
  })

  it('an episode of an earlier turn, or one after the report, or of another state, is another event', () => {
    // The episode began before the work this report ends.
    expect(sameTurnEnd(stop(T + 30_000), working, seen(T - 5_000)).since).toBeUndefined()
    // Seen after the report's date, once the work was reported: the same turn end (the report reached the
    // spool late), with the date it was told by.
    expect(sameTurnEnd(stop(T + 30_000), working, seen(T + 31_000)).since).toBe(new Date(T + 31_000).toISOString())
    // Without a report of the work (Codex), one seen after the report is not this one.
    expect(sameTurnEnd(stop(T + 30_000), {...working, state: 'idle'}, seen(T + 31_000)).since).toBeUndefined()
    expect(sameTurnEnd({...stop(T + 30_000), state: 'waiting', turnEnded: false}, working, seen(T + 20_000)).since).toBeUndefined()
    expect(sameTurnEnd(stop(T + 30_000), working, null).since).toBeUndefined()
  })

  it("Codex: a turn that failed at once, its work never seen, is not the last turn end's sighting (seen on 0.171: never told)", () => {
    // The last turn's notify at T; the watcher saw that turn end on the screen at T+0.4 s (it had last seen
    // work at T-1 s); a message at T+5 s failed at once, and its notify came at T+5.5 s with no work seen.
    const last = stop(T)
    expect(sameTurnEnd(stop(T + 5_500), last, seen(T + 400, T - 1_000)).since).toBeUndefined()
    // Work seen after the last report: the episode is this turn's end, seen before its notify.
    expect(sameTurnEnd(stop(T + 5_500), last, seen(T + 5_000, T + 4_800)).since).toBe(iso(T + 5_000))
  })
})

describe('what the real Codex 0.171 sends', () => {
  // Two windows (in /tmp/cx/a and /tmp/cx/b), one turn each, captured from the notify program the shared
  // app-server daemon ran: each turn, then its title thread (scripts/capture/README.md).
  const payloads = readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'events', 'codex-0.171-notify.jsonl'), 'utf8')
    .trim()
    .split('\n')
  it('names the thread and the directory of the window whose turn ended', () => {
    const reports = payloads.map((p) => parseHookPayload('codex', p)!)
    expect(reports.map((r) => r.cwd)).toEqual(['/tmp/cx/a', '/tmp/cx/a', '/tmp/cx/b', '/tmp/cx/b'])
    expect(new Set(reports.map((r) => r.conversationId)).size).toBe(4)
    expect(reports.every((r) => r.state === 'idle' && r.turnEnded)).toBe(true)
  })
  it('lands each turn on its own window and the title threads on none', () => {
    const a = row(11, {agent: 'codex', cwd: '/tmp/cx/a'})
    const b = row(21, {agent: 'codex', cwd: '/tmp/cx/b'})
    const threads = Object.fromEntries(payloads.map((p, i) => [JSON.parse(p)['thread-id'], i % 2 === 0]))
    const events = payloads.map((p, i) => ({...event('codex', [12, 11, 10], {}, i + 1), payload: p}))
    const {applied, outcomes} = applyEvents(events, world([a, b], {threads}), new Map(), 0)
    expect(outcomes.map((o) => o.id)).toEqual([a.id, null, b.id, null])
    expect(applied.get(a.id)?.conversationId).toBe(JSON.parse(payloads[0]!)['thread-id'])
    expect(applied.get(b.id)?.conversationId).toBe(JSON.parse(payloads[2]!)['thread-id'])
  })
})

describe('what an agent may not smuggle in', () => {
  it('a conversation id shaped like a flag never becomes one (hooks and resume argv)', async () => {
    const {resumeArgv} = await import('../../../src/lib/agents/presets.js')
    expect(
      parseHookPayload('claude', JSON.stringify({hook_event_name: 'Stop', session_id: '--dangerously-bypass-approvals-and-sandbox'}))?.conversationId,
    ).toBeNull()
    expect(parseHookPayload('codex', JSON.stringify({type: 'agent-turn-complete', 'thread-id': '-x'}))?.conversationId).toBeNull()
    expect(resumeArgv('codex', '--dangerously-bypass-approvals-and-sandbox')).toBeNull()
    expect(resumeArgv('codex', 'has space')).toBeNull()
    expect(resumeArgv('codex', '0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee')).toEqual(['codex', 'resume', '0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee'])
  })
  it('pk send refuses C1 controls like C0 (U+009B is CSI to a terminal)', async () => {
    const {checkSendText} = await import('../../../src/lib/verbs/lifecycle.js')
    expect(() => checkSendText('a\u009b31mb')).toThrow(/control character \(code 155\)/)
    expect(checkSendText('tab\tand\r\nnewline é')).toBe('tab\tand\nnewline é')
  })
})
