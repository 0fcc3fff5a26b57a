import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {applyPaneRules, bottomLines} from '../../../src/lib/agents/pane-rules.js'
import {BUILTIN_PRESETS, findPreset} from '../../../src/lib/agents/presets.js'
import {parseHookPayload} from '../../../src/lib/events/hook.js'
import {ancestry} from '../../../src/lib/proc/ancestry.js'
import {findCaller} from '../../../src/lib/verbs/handoff.js'
import {SessionRow} from '../../../src/lib/model/correlate.js'
import {applyStatus, applyUsageAttention, freshHookStatus, needsAttention, WORKING_FRESH_MS} from '../../../src/lib/listing/status.js'
import {rowEvents} from '../../../src/lib/notify/notify.js'
import {VIEW} from '../../helpers/fixtures.js'

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'panes')

describe('pane rules against captured screens', () => {
  // Files are AGENT.STATE.WHAT.txt; the real ones were captured from the agents in tmux, *.synthetic.* were written by hand.
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.txt'))
  it('has real captures for claude and pi', () => {
    expect(files.filter((f) => /^(claude|pi)\./.test(f) && !f.includes('synthetic')).length).toBeGreaterThanOrEqual(8)
  })
  it.each(files)('%s', (file) => {
    const [agent, state] = file.split('.') as [string, string]
    const screen = readFileSync(join(FIXTURES, file), 'utf8')
    expect(applyPaneRules(screen, findPreset(agent)!.paneRules)).toBe(state)
  })
  it('looks only at the bottom lines, and says nothing when no rule matches', () => {
    expect(bottomLines('a\n\nb  \n\n\nc\n', 2)).toBe('b\nc')
    expect(applyPaneRules('esc to interrupt\n' + 'x\n'.repeat(20), findPreset('claude')!.paneRules)).toBeNull()
    expect(applyPaneRules('', findPreset('pi')!.paneRules)).toBeNull()
  })
})

describe('hook payloads', () => {
  it('reads Claude Code events from stdin JSON', () => {
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Notification', session_id: 's1'}))).toEqual({state: 'waiting', event: 'Notification', conversationId: 's1', turnEnded: false, sentAt: null, transcript: null})
    // Its transcript, where pk reads what the conversation spends (a .jsonl path, absolute, or nothing).
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Stop', transcript_path: '/h/.claude/projects/-w/s1.jsonl'}))?.transcript).toBe('/h/.claude/projects/-w/s1.jsonl')
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Stop', transcript_path: '/etc/shadow'}))?.transcript).toBeNull()
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Stop', session_id: 's1'}))).toMatchObject({state: 'idle', turnEnded: true})
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'PreToolUse', session_id: 's1'}))!.state).toBe('working')
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'SessionEnd'}))!.state).toBe('exited')
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'SubagentStop'}))).toBeNull()
    // A turn that ended in an API error ends the turn too.
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'StopFailure', session_id: 's1'}))).toMatchObject({state: 'idle', turnEnded: true, event: 'StopFailure'})
    // Notifications by their type: a permission prompt waits on you; the idle reminder is a reminder.
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Notification', notification_type: 'permission_prompt'}))).toMatchObject({state: 'waiting', event: 'Notification:permission_prompt'})
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Notification', notification_type: 'elicitation_dialog'}))).toMatchObject({state: 'waiting'})
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Notification', notification_type: 'idle_prompt'}))).toMatchObject({state: 'idle', reminder: true, turnEnded: false})
  })

  it('keeps the newer state: older reports and reminders change nothing', async () => {
    const {nextStatus} = await import('../../../src/lib/events/hook.js')
    const stop = nextStatus(null, {state: 'idle', event: 'Stop', conversationId: null, turnEnded: true, sentAt: 2000})!
    expect(stop).toMatchObject({state: 'idle', turnEnded: true, sentAt: 2000})
    // Pi across /reload: the old session's shutdown arrives after the new start, but was sent before it.
    const started = nextStatus(stop, {state: 'idle', event: 'session_start', conversationId: null, turnEnded: false, sentAt: 3000})!
    expect(nextStatus(started, {state: 'exited', event: 'session_shutdown', conversationId: null, turnEnded: false, sentAt: 2500})).toBeNull()
    // Claude's idle reminder a minute later keeps the Stop's time, so a look since then still counts.
    expect(nextStatus(stop, {state: 'idle', event: 'Notification:idle_prompt', conversationId: null, turnEnded: false, sentAt: 9000, reminder: true})).toBeNull()
    expect(nextStatus({...stop, state: 'working'}, {state: 'idle', event: 'Notification:idle_prompt', conversationId: null, turnEnded: false, sentAt: 9000, reminder: true})).toMatchObject({state: 'idle'})
    // Dated by the event, not by when pk read it: every reader names it alike.
    expect(stop.at).toBe(new Date(2000).toISOString())
    // Claude's PermissionRequest, then its Notification about the same prompt six seconds later: one event.
    const asked = nextStatus(stop, {state: 'waiting', event: 'PermissionRequest', conversationId: null, turnEnded: false, sentAt: 10_000})!
    expect(nextStatus(asked, {state: 'waiting', event: 'Notification:permission_prompt', conversationId: null, turnEnded: false, sentAt: 16_000})).toBeNull()
  })
  it('reads Codex notify and Pi extension payloads', () => {
    expect(parseHookPayload('codex', JSON.stringify({type: 'agent-turn-complete', 'thread-id': 't9', 'turn-id': '1', cwd: '/w'}))).toEqual({state: 'idle', event: 'agent-turn-complete', conversationId: 't9', turnEnded: true, sentAt: null, cwd: '/w'})
    expect(parseHookPayload('codex', JSON.stringify({type: 'something-else'}))).toBeNull()
    expect(parseHookPayload('pi', JSON.stringify({event: 'agent_start', sessionId: 'p1'}))).toMatchObject({state: 'working', conversationId: 'p1'})
    expect(parseHookPayload('pi', JSON.stringify({event: 'agent_end', sessionId: 'p1'}))).toMatchObject({state: 'idle', turnEnded: true})
  })
  it("reads Gemini CLI 0.61's hook payloads as it sent them (one session, two turns), dated by its own clock", () => {
    const payloads = readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'events', 'gemini-0.61-hooks.jsonl'), 'utf8').trim().split('\n')
    const reports = payloads.map((p) => parseHookPayload('gemini', p)!)
    expect(reports.map((r) => [r.event, r.state, r.turnEnded])).toEqual([
      ['SessionStart', 'idle', false],
      ['BeforeAgent', 'working', false],
      ['AfterAgent', 'idle', true],
      ['BeforeAgent', 'working', false],
      ['AfterAgent', 'idle', true],
    ])
    expect(reports[2]).toMatchObject({conversationId: '863277ae-0fa7-4866-b11c-a7d48b8bb9e4', sentAt: Date.parse('2026-12-01T09:12:58.101Z'), transcript: '/tmp/gem-home/.gemini/tmp/gem-work/chats/session-2026-12-01T09-12-863277ae.jsonl'})
    expect(parseHookPayload('gemini', JSON.stringify({hook_event_name: 'Notification', notification_type: 'ToolPermission', session_id: 's'}))).toMatchObject({state: 'waiting', event: 'Notification:ToolPermission'})
    expect(parseHookPayload('gemini', JSON.stringify({hook_event_name: 'BeforeTool', session_id: 's'}))).toBeNull()
  })
  it('takes a generic {state} from other agents, and rejects non-JSON', () => {
    expect(parseHookPayload('aider', '{"state":"waiting"}')).toMatchObject({state: 'waiting'})
    expect(parseHookPayload('aider', '{"state":"sleepy"}')).toBeNull()
    expect(() => parseHookPayload('claude', 'not json')).toThrow(/not a JSON object/)
    expect(() => parseHookPayload('claude', '[1]')).toThrow(/not a JSON object/)
  })
})

describe('finding the session a hook runs in', () => {
  const stats = new Map([
    [40, {ppid: 30, startTime: 400}],
    [30, {ppid: 20, startTime: 300}],
    [20, {ppid: 10, startTime: 200}],
    [10, {ppid: 5, startTime: 100}],
  ])
  const chain = ancestry(40, (pid) => stats.get(pid) ?? null)
  const argv = (pid: number) => ({40: ['pk', 'hook'], 30: ['sh', '-c', 'pk hook claude'], 20: ['claude'], 10: ['bash']})[pid] ?? null

  it('walks parents up to pid 1', () => {
    expect(chain.map((l) => l.pid)).toEqual([40, 30, 20, 10])
  })
  it('finds the calling agent for a handoff', () => {
    expect(findCaller({chain, view: VIEW, records: [], argv, presets: BUILTIN_PRESETS})).toMatchObject({pid: 20, agent: 'claude'})
    expect(findCaller({chain, view: VIEW, records: [], argv, presets: BUILTIN_PRESETS, agentName: 'pi'})).toBeNull()
  })
})

describe('status', () => {
  const now = Date.parse('2026-11-29T12:00:00Z')
  const row = (over: Partial<SessionRow> = {}): SessionRow => ({
    id: 'a', kind: 'recorded', agent: 'claude', label: null, state: 'unknown', stateSource: 'none', attention: false, verified: true, conflict: false,
    pid: 1, cwd: '/', command: [], startedAt: null, attached: false, resume: null, record: 'r.json', exitReason: null, agentSource: null, exitStatus: null, resumedBy: null, attentionSince: null, worktree: null, usage: null,
    tmux: {socket: '/s', session: 'x', sessionId: '$1', window: '@1', pane: '%1', lastAttached: null, lastDetached: null, activity: null}, ...over,
  })
  const hook = (state: 'working' | 'waiting' | 'idle', ago: number, turnEnded = false) => ({state, at: new Date(now - ago).toISOString(), event: 'e', turnEnded})

  it('usage past a threshold needs you as its own event, told apart from the state\'s, cleared by a look after it', () => {
    const usage = (since: string) => ({model: 'm', input: 1, output: 1, cacheRead: 0, cacheWrite: 0, contextTokens: 95, contextWindow: 100, cost: null, costSource: null, unpriced: 'm', source: 'f', updatedAt: since, skippedLines: 0, attention: {reason: 'context' as const, since, threshold: 90}})
    const over = row({state: 'working', stateSource: 'hook', usage: usage('2026-11-29T11:00:00Z')})
    const [alerted] = applyUsageAttention([over])
    expect(alerted).toMatchObject({attention: true, attentionSince: '2026-11-29T11:00:00.000Z'})
    expect(rowEvents(alerted!)).toEqual([{since: '2026-11-29T11:00:00.000Z', reason: 'past 90% of its context (95%)', unseen: true}])
    // Looked at after it: neither needs you nor is told.
    const seen = row({...over, tmux: {...over.tmux!, lastAttached: Date.parse('2026-11-29T11:30:00Z') / 1000}})
    expect(applyUsageAttention([seen])[0]!.attention).toBe(false)
    expect(rowEvents(applyUsageAttention([seen])[0]!)).toEqual([])
    // A finished turn that needs you as well: two events, each with its own date.
    const both = row({state: 'idle', stateSource: 'hook', attention: true, attentionSince: '2026-11-29T11:50:00.000Z', usage: usage('2026-11-29T11:00:00Z')})
    expect(rowEvents(applyUsageAttention([both])[0]!).map((e) => e.reason)).toEqual(['finished its turn', 'past 90% of its context (95%)'])
    // Attached: claimed, never told.
    expect(rowEvents(applyUsageAttention([row({...over, attached: true})])[0]!)).toEqual([{since: '2026-11-29T11:00:00.000Z', reason: 'past 90% of its context (95%)', unseen: false}])
  })
  it('trusts hooks over pane rules, and lets a working report go stale', () => {
    expect(freshHookStatus(hook('working', WORKING_FRESH_MS + 1), now)).toBeNull()
    expect(freshHookStatus(hook('waiting', 24 * 3600_000), now)).not.toBeNull()
    const records = new Map([['a', {status: hook('waiting', 1000), observed: null}]])
    const captures = new Map([['/s\0%1', 'esc to interrupt']])
    const [decided] = applyStatus({rows: [row()], known: records, captures, presets: BUILTIN_PRESETS, now})
    expect(decided).toMatchObject({state: 'waiting', stateSource: 'hook', attention: true})
    const [fromPane] = applyStatus({rows: [row()], known: new Map(), captures, presets: BUILTIN_PRESETS, now})
    expect(fromPane).toMatchObject({state: 'working', stateSource: 'pane', attention: false})
    const [nothing] = applyStatus({rows: [row()], known: new Map(), captures: new Map(), presets: BUILTIN_PRESETS, now})
    expect(nothing).toMatchObject({state: 'unknown', stateSource: 'none'})
  })

  it('asks for attention when waiting or a turn ended, unattached, until someone attaches', () => {
    expect(needsAttention(row(), 'waiting', null, false)).toBe(true)
    expect(needsAttention(row(), 'idle', now, true)).toBe(true)
    expect(needsAttention(row(), 'idle', now, false)).toBe(false)
    expect(needsAttention(row({attached: true}), 'waiting', now, false)).toBe(false)
    expect(needsAttention(row({tmux: {...row().tmux!, lastAttached: now / 1000 + 5}}), 'idle', now, true)).toBe(false)
    expect(needsAttention(row({tmux: {...row().tmux!, lastAttached: now / 1000 - 5}}), 'idle', now, true)).toBe(true)
    // Attached before the turn ended and detached after it: the user was looking when it happened.
    expect(needsAttention(row({tmux: {...row().tmux!, lastAttached: now / 1000 - 5, lastDetached: now / 1000 + 2}}), 'idle', now, true)).toBe(false)
    // Detached before it happened: they did not see it.
    expect(needsAttention(row({tmux: {...row().tmux!, lastAttached: now / 1000 - 9, lastDetached: now / 1000 - 5}}), 'idle', now, true)).toBe(true)
  })

  it('decides by time, not by source: a screen that changed after the hook report and reads otherwise wins', () => {
    // Codex's notify says only that a turn ended; the next turn shows on the screen alone.
    const records = new Map([['a', {status: hook('idle', 60_000, true), observed: null}]])
    const captures = new Map([['/s\0%1', 'esc to interrupt']])
    const later = row({agent: 'codex', tmux: {...row().tmux!, activity: (now - 5_000) / 1000}})
    expect(applyStatus({rows: [later], known: records, captures, presets: BUILTIN_PRESETS, now})[0]).toMatchObject({state: 'working', stateSource: 'pane', attention: false})
    // A screen that has not changed since the report leaves the hook's word standing.
    const quiet = row({agent: 'codex', tmux: {...row().tmux!, activity: (now - 120_000) / 1000}})
    expect(applyStatus({rows: [quiet], known: records, captures, presets: BUILTIN_PRESETS, now})[0]).toMatchObject({state: 'idle', stateSource: 'hook'})
  })

  it("believes a hook's exited only when the process is gone", () => {
    const records = new Map([['a', {status: {...hook('idle', 1000), state: 'exited' as const}, observed: null}]])
    const alive = applyStatus({rows: [row()], known: records, captures: new Map([['/s\0%1', '? for shortcuts']]), presets: BUILTIN_PRESETS, now})[0]!
    expect(alive.state).not.toBe('exited')
    expect(alive).toMatchObject({state: 'idle', stateSource: 'pane'})
  })

  it('orders attention first, then waiting, working, idle', () => {
    const records = new Map<string, {status: ReturnType<typeof hook>; observed: null}>([
      ['w', {status: hook('working', 1), observed: null}],
      ['i', {status: hook('idle', 1), observed: null}],
      ['q', {status: hook('waiting', 1), observed: null}],
    ])
    const rows = ['w', 'i', 'q'].map((id) => row({id, record: `${id}.json`, attached: true}))
    rows.push(row({id: 'z', record: 'z.json'}))
    records.set('z', {status: hook('idle', 1, true), observed: null})
    expect(applyStatus({rows, known: records, captures: new Map(), presets: BUILTIN_PRESETS, now}).map((r) => r.id)).toEqual(['z', 'q', 'w', 'i'])
  })
})
