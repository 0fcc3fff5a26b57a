import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {nextStatus, parseHookPayload, salvage} from '../../../src/lib/events/hook.js'
import {ROOT} from '../../helpers/sandbox.js'

describe('hook payloads', () => {
  it('reads Claude Code events from stdin JSON', () => {
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Notification', session_id: 's1'}))).toEqual({
      state: 'waiting',
      event: 'Notification',
      conversationId: 's1',
      turnEnded: false,
      sentAt: null,
      transcript: null,
    })
    // Its transcript, where pk reads what the conversation spends (a .jsonl path, absolute, or nothing).
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Stop', transcript_path: '/h/.claude/projects/-w/s1.jsonl'}))?.transcript).toBe(
      '/h/.claude/projects/-w/s1.jsonl',
    )
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Stop', transcript_path: '/etc/shadow'}))?.transcript).toBeNull()
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Stop', session_id: 's1'}))).toMatchObject({state: 'idle', turnEnded: true})
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'PreToolUse', session_id: 's1'}))!.state).toBe('working')
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'SessionEnd'}))!.state).toBe('exited')
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'SubagentStop'}))).toBeNull()
    // A turn that ended in an API error ends the turn too.
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'StopFailure', session_id: 's1'}))).toMatchObject({
      state: 'idle',
      turnEnded: true,
      event: 'StopFailure',
    })
    // At a usage or rate limit (issue 64): a limit, with the line Claude showed; its own continue at the reset is work; its other words about it change nothing.
    const limit = {
      hook_event_name: 'StopFailure',
      session_id: 's1',
      error: 'rate_limit',
      last_assistant_message: "You've hit your 5-hour limit · resets 5:09am (UTC)",
    }
    expect(parseHookPayload('claude', JSON.stringify(limit))).toMatchObject({
      state: 'limited',
      turnEnded: false,
      event: 'StopFailure:rate_limit',
      detail: "You've hit your 5-hour limit · resets 5:09am (UTC)",
    })
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Notification', notification_type: 'quota_auto_resume_fired'}))).toMatchObject({
      state: 'working',
    })
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Notification', notification_type: 'quota_auto_resume_cancelled'}))).toBeNull()
    // Notifications by their type: a permission prompt waits on you; the idle reminder is a reminder.
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Notification', notification_type: 'permission_prompt'}))).toMatchObject({
      state: 'waiting',
      event: 'Notification:permission_prompt',
    })
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Notification', notification_type: 'elicitation_dialog'}))).toMatchObject({
      state: 'waiting',
    })
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Notification', notification_type: 'idle_prompt'}))).toMatchObject({
      state: 'idle',
      reminder: true,
      turnEnded: false,
    })
  })

  it('keeps the newer state: older reports and reminders change nothing', async () => {
    const {nextStatus} = await import('../../../src/lib/events/hook.js')
    const stop = nextStatus(null, {state: 'idle', event: 'Stop', conversationId: null, turnEnded: true, sentAt: 2000})!
    expect(stop).toMatchObject({state: 'idle', turnEnded: true, sentAt: 2000})
    // Pi across /reload: the old session's shutdown arrives after the new start, but was sent before it.
    const started = nextStatus(stop, {state: 'idle', event: 'session_start', conversationId: null, turnEnded: false, sentAt: 3000})!
    expect(nextStatus(started, {state: 'exited', event: 'session_shutdown', conversationId: null, turnEnded: false, sentAt: 2500})).toBeNull()
    // Claude's idle reminder a minute later keeps the Stop's time, so a look since then still counts.
    expect(
      nextStatus(stop, {state: 'idle', event: 'Notification:idle_prompt', conversationId: null, turnEnded: false, sentAt: 9000, reminder: true}),
    ).toBeNull()
    expect(
      nextStatus(
        {...stop, state: 'working'},
        {state: 'idle', event: 'Notification:idle_prompt', conversationId: null, turnEnded: false, sentAt: 9000, reminder: true},
      ),
    ).toMatchObject({state: 'idle'})
    // Dated by the event, not by when pk read it: every reader names it alike.
    expect(stop.at).toBe(new Date(2000).toISOString())
    // Claude's PermissionRequest, then its Notification about the same prompt six seconds later: one event.
    const asked = nextStatus(stop, {state: 'waiting', event: 'PermissionRequest', conversationId: null, turnEnded: false, sentAt: 10_000})!
    expect(nextStatus(asked, {state: 'waiting', event: 'Notification:permission_prompt', conversationId: null, turnEnded: false, sentAt: 16_000})).toBeNull()
  })
  it('reads Codex notify and Pi extension payloads', () => {
    expect(parseHookPayload('codex', JSON.stringify({type: 'agent-turn-complete', 'thread-id': 't9', 'turn-id': '1', cwd: '/w'}))).toEqual({
      state: 'idle',
      event: 'agent-turn-complete',
      conversationId: 't9',
      turnEnded: true,
      sentAt: null,
      cwd: '/w',
    })
    expect(parseHookPayload('codex', JSON.stringify({type: 'something-else'}))).toBeNull()
    expect(parseHookPayload('pi', JSON.stringify({event: 'agent_start', sessionId: 'p1'}))).toMatchObject({state: 'working', conversationId: 'p1'})
    expect(parseHookPayload('pi', JSON.stringify({event: 'agent_end', sessionId: 'p1'}))).toMatchObject({state: 'idle', turnEnded: true})
  })
  it("reads Claude Code 2.1.197's events around its question tool as it sent them: waiting while it asks, idle when the turn ends", () => {
    const payloads = readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'events', 'claude-2.1.197-question.jsonl'), 'utf8')
      .trim()
      .split('\n')
    expect(payloads.map((p) => JSON.parse(p).tool_name ?? null)).toEqual(['AskUserQuestion', 'AskUserQuestion', 'AskUserQuestion', null])
    expect(payloads.map((p) => parseHookPayload('claude', p)).map((r) => [r?.event, r?.state, r?.turnEnded])).toEqual([
      ['PreToolUse:AskUserQuestion', 'waiting', false],
      ['PermissionRequest', 'waiting', false],
      ['PostToolUse', 'working', false],
      ['Stop', 'idle', true],
    ])
    // The two hooks of one question run side by side: whichever is dated last, the session waits (its
    // PreToolUse dated after the PermissionRequest, on a loaded machine, read working for 6 s).
    const [pre, asked] = payloads.slice(0, 2).map((p, i) => ({...parseHookPayload('claude', p)!, sentAt: 1000 + i}))
    const first = nextStatus(null, asked!)
    expect(nextStatus(first, {...pre!, sentAt: 2000}) ?? first).toMatchObject({state: 'waiting'})
  })
  it("reads Gemini CLI 0.61's hook payloads as it sent them (one session, two turns), dated by its own clock", () => {
    const payloads = readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'events', 'gemini-0.61-hooks.jsonl'), 'utf8')
      .trim()
      .split('\n')
    const reports = payloads.map((p) => parseHookPayload('gemini', p)!)
    expect(reports.map((r) => [r.event, r.state, r.turnEnded])).toEqual([
      ['SessionStart', 'idle', false],
      ['BeforeAgent', 'working', false],
      ['AfterAgent', 'idle', true],
      ['BeforeAgent', 'working', false],
      ['AfterAgent', 'idle', true],
    ])
    expect(reports[2]).toMatchObject({
      conversationId: '863277ae-0fa7-4866-b11c-a7d48b8bb9e4',
      sentAt: Date.parse('2026-12-01T09:12:58.101Z'),
      transcript: '/tmp/gem-home/.gemini/tmp/gem-work/chats/session-2026-12-01T09-12-863277ae.jsonl',
    })
    expect(parseHookPayload('gemini', JSON.stringify({hook_event_name: 'Notification', notification_type: 'ToolPermission', session_id: 's'}))).toMatchObject({
      state: 'waiting',
      event: 'Notification:ToolPermission',
    })
    expect(parseHookPayload('gemini', JSON.stringify({hook_event_name: 'BeforeTool', session_id: 's'}))).toBeNull()
  })
  it('takes a generic {state} from other agents, and rejects non-JSON', () => {
    expect(parseHookPayload('aider', '{"state":"waiting"}')).toMatchObject({state: 'waiting'})
    expect(parseHookPayload('aider', '{"state":"sleepy"}')).toBeNull()
    expect(() => parseHookPayload('claude', 'not json')).toThrow(/not a JSON object/)
    expect(() => parseHookPayload('claude', '[1]')).toThrow(/not a JSON object/)
  })
})

describe("pk hook's deadline", () => {
  it('starts in bin/run.js, before anything loads, and nowhere else', () => {
    const bin = readFileSync(join(ROOT, 'bin', 'run.js'), 'utf8')
    const line = bin.split('\n').find((l) => l.startsWith("if (args[0] === 'hook' && !args.includes('--json')) setTimeout("))!
    expect(line).toContain('Math.max(900 - performance.now(), 600)')
    expect(bin.indexOf(line)).toBeLessThan(bin.indexOf('function loadFastPath'))
    for (const file of ['src/bodies/hook.ts', 'src/commands/hook.ts', 'src/fast-path.ts'])
      expect({file, timer: /setTimeout\(\(\) => process\.exit/.test(readFileSync(join(ROOT, file), 'utf8'))}).toEqual({file, timer: false})
  })
})

describe('what identifies an event cut short', () => {
  it("each identifying key's first value, in one pass; a key named inside another value is no key", () => {
    const payload = `{"session_id":"s1","note":"\\"hook_event_name\\":\\"Stop\\"","hook_event_name":"PostToolUse","tool_input":{"cwd":"/x"},"turnEnded":false,"tool_response":"${'x'.repeat(100_000)}`
    expect(JSON.parse(salvage(payload))).toEqual({session_id: 's1', hook_event_name: 'PostToolUse', cwd: '/x', turnEnded: false})
  })
})
