import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {applyPaneRules, bottomLines} from '../../../src/lib/agents/pane-rules.js'
import {BUILTIN_PRESETS, findPreset, resumeArgv} from '../../../src/lib/agents/presets.js'
import {PROJECT_PLACES, USER_PLACES, checkProjectConfig, layerConfigs, mergePresets, validateConfig} from '../../../src/lib/config.js'
import {findHookTarget, parseHookPayload} from '../../../src/lib/hook.js'
import {ancestry} from '../../../src/lib/proc/ancestry.js'
import {findCaller} from '../../../src/lib/handoff.js'
import {SessionRow} from '../../../src/lib/correlate.js'
import {applyStatus, freshHookStatus, needsAttention, WORKING_FRESH_MS} from '../../../src/lib/status.js'
import {VIEW, pane, sampleRecord, server} from '../../helpers/fixtures.js'

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
    expect(parseHookPayload('claude', JSON.stringify({hook_event_name: 'Notification', session_id: 's1'}))).toEqual({state: 'waiting', event: 'Notification', conversationId: 's1', turnEnded: false, sentAt: null})
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
    const {nextStatus} = await import('../../../src/lib/hook.js')
    const now = new Date('2026-11-30T10:00:00Z')
    const stop = nextStatus(null, {state: 'idle', event: 'Stop', conversationId: null, turnEnded: true, sentAt: 2000}, now)!
    expect(stop).toMatchObject({state: 'idle', turnEnded: true, sentAt: 2000})
    // Pi across /reload: the old session's shutdown arrives after the new start, but was sent before it.
    const started = nextStatus(stop, {state: 'idle', event: 'session_start', conversationId: null, turnEnded: false, sentAt: 3000}, now)!
    expect(nextStatus(started, {state: 'exited', event: 'session_shutdown', conversationId: null, turnEnded: false, sentAt: 2500}, now)).toBeNull()
    // Claude's idle reminder a minute later keeps the Stop's time, so a look since then still counts.
    expect(nextStatus(stop, {state: 'idle', event: 'Notification:idle_prompt', conversationId: null, turnEnded: false, sentAt: 9000, reminder: true}, now)).toBeNull()
    expect(nextStatus({...stop, state: 'working'}, {state: 'idle', event: 'Notification:idle_prompt', conversationId: null, turnEnded: false, sentAt: 9000, reminder: true}, now)).toMatchObject({state: 'idle'})
  })
  it('reads Codex notify and Pi extension payloads', () => {
    expect(parseHookPayload('codex', JSON.stringify({type: 'agent-turn-complete', 'thread-id': 't9', 'turn-id': '1'}))).toEqual({state: 'idle', event: 'agent-turn-complete', conversationId: 't9', turnEnded: true, sentAt: null})
    expect(parseHookPayload('codex', JSON.stringify({type: 'something-else'}))).toBeNull()
    expect(parseHookPayload('pi', JSON.stringify({event: 'agent_start', sessionId: 'p1'}))).toMatchObject({state: 'working', conversationId: 'p1'})
    expect(parseHookPayload('pi', JSON.stringify({event: 'agent_end', sessionId: 'p1'}))).toMatchObject({state: 'idle', turnEnded: true})
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
  const panes = new Map([[10, {server: server('/s', []), pane: pane({paneId: '%1', panePid: 10})}]])

  it('walks parents up to pid 1', () => {
    expect(chain.map((l) => l.pid)).toEqual([40, 30, 20, 10])
  })
  it('prefers a recorded session process, matched by pid and start time', () => {
    const stored = {file: 'r.json', record: sampleRecord({identity: {...VIEW, pid: 20, startTime: 200}})}
    expect(findHookTarget({chain, view: VIEW, records: [stored], panesByPid: panes, argv, presets: BUILTIN_PRESETS, agent: 'claude'})).toEqual({kind: 'record', stored})
    const stale = {file: 'r.json', record: sampleRecord({identity: {...VIEW, pid: 20, startTime: 199}})}
    expect(findHookTarget({chain, view: VIEW, records: [stale], panesByPid: new Map(), argv, presets: BUILTIN_PRESETS, agent: 'claude'}).kind).toBe('none')
  })
  it('in a pane, takes the recognised agent as the session process', () => {
    const target = findHookTarget({chain, view: VIEW, records: [], panesByPid: panes, argv, presets: BUILTIN_PRESETS, agent: 'claude'})
    expect(target).toMatchObject({kind: 'pane', agentPid: 20, pane: {paneId: '%1'}})
  })
  it("a hook from an agent's descendant counts for the agent's outermost process in the pane", () => {
    // Codex: a node wrapper (20) and its native child (30), both named codex; the hook runs under the child.
    const codexArgv = (pid: number) => ({40: ['pk', 'hook'], 30: ['/opt/codex/bin/codex'], 20: ['node', '/usr/bin/codex'], 10: ['bash']})[pid] ?? null
    expect(findHookTarget({chain, view: VIEW, records: [], panesByPid: panes, argv: codexArgv, presets: BUILTIN_PRESETS, agent: 'codex'})).toMatchObject({kind: 'pane', agentPid: 20})
  })
  it('finds nothing outside tmux', () => {
    expect(findHookTarget({chain, view: VIEW, records: [], panesByPid: new Map(), argv, presets: BUILTIN_PRESETS, agent: 'claude'}).kind).toBe('none')
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
    pid: 1, cwd: '/', command: [], startedAt: null, attached: false, resume: null, record: 'r.json', exitReason: null, agentSource: null, exitStatus: null, resumedBy: null, attentionSince: null, worktree: null,
    tmux: {socket: '/s', session: 'x', sessionId: '$1', window: '@1', pane: '%1', lastAttached: null, activity: null}, ...over,
  })
  const hook = (state: 'working' | 'waiting' | 'idle', ago: number, turnEnded = false) => ({state, at: new Date(now - ago).toISOString(), event: 'e', turnEnded})

  it('trusts hooks over pane rules, and lets a working report go stale', () => {
    expect(freshHookStatus(hook('working', WORKING_FRESH_MS + 1), now)).toBeNull()
    expect(freshHookStatus(hook('waiting', 24 * 3600_000), now)).not.toBeNull()
    const records = new Map([['r.json', sampleRecord({status: hook('waiting', 1000)})]])
    const captures = new Map([['/s\0%1', 'esc to interrupt']])
    const [decided] = applyStatus({rows: [row()], records, captures, presets: BUILTIN_PRESETS, now})
    expect(decided).toMatchObject({state: 'waiting', stateSource: 'hook', attention: true})
    const [fromPane] = applyStatus({rows: [row()], records: new Map(), captures, presets: BUILTIN_PRESETS, now})
    expect(fromPane).toMatchObject({state: 'working', stateSource: 'pane', attention: false})
    const [nothing] = applyStatus({rows: [row()], records: new Map(), captures: new Map(), presets: BUILTIN_PRESETS, now})
    expect(nothing).toMatchObject({state: 'unknown', stateSource: 'none'})
  })

  it('asks for attention when waiting or a turn ended, unattached, until someone attaches', () => {
    expect(needsAttention(row(), 'waiting', null, false)).toBe(true)
    expect(needsAttention(row(), 'idle', now, true)).toBe(true)
    expect(needsAttention(row(), 'idle', now, false)).toBe(false)
    expect(needsAttention(row({attached: true}), 'waiting', now, false)).toBe(false)
    expect(needsAttention(row({tmux: {...row().tmux!, lastAttached: now / 1000 + 5}}), 'idle', now, true)).toBe(false)
    expect(needsAttention(row({tmux: {...row().tmux!, lastAttached: now / 1000 - 5}}), 'idle', now, true)).toBe(true)
  })

  it('decides by time, not by source: a screen that changed after the hook report and reads otherwise wins', () => {
    // Codex's notify says only that a turn ended; the next turn shows on the screen alone.
    const records = new Map([['r.json', sampleRecord({status: hook('idle', 60_000, true)})]])
    const captures = new Map([['/s\0%1', 'esc to interrupt']])
    const later = row({agent: 'codex', tmux: {...row().tmux!, activity: (now - 5_000) / 1000}})
    expect(applyStatus({rows: [later], records, captures, presets: BUILTIN_PRESETS, now})[0]).toMatchObject({state: 'working', stateSource: 'pane', attention: false})
    // A screen that has not changed since the report leaves the hook's word standing.
    const quiet = row({agent: 'codex', tmux: {...row().tmux!, activity: (now - 120_000) / 1000}})
    expect(applyStatus({rows: [quiet], records, captures, presets: BUILTIN_PRESETS, now})[0]).toMatchObject({state: 'idle', stateSource: 'hook'})
  })

  it("believes a hook's exited only when the process is gone", () => {
    const records = new Map([['r.json', sampleRecord({status: {...hook('idle', 1000), state: 'exited' as const}})]])
    const alive = applyStatus({rows: [row()], records, captures: new Map([['/s\0%1', '? for shortcuts']]), presets: BUILTIN_PRESETS, now})[0]!
    expect(alive.state).not.toBe('exited')
    expect(alive).toMatchObject({state: 'idle', stateSource: 'pane'})
  })

  it('orders attention first, then waiting, working, idle', () => {
    const records = new Map([
      ['w.json', sampleRecord({status: hook('working', 1)})],
      ['i.json', sampleRecord({status: hook('idle', 1)})],
      ['q.json', sampleRecord({status: hook('waiting', 1)})],
    ])
    const rows = ['w', 'i', 'q'].map((id) => row({id, record: `${id}.json`, attached: true}))
    rows.push(row({id: 'z', record: 'z.json'}))
    records.set('z.json', sampleRecord({status: hook('idle', 1, true)}))
    expect(applyStatus({rows, records, captures: new Map(), presets: BUILTIN_PRESETS, now}).map((r) => r.id)).toEqual(['z', 'q', 'w', 'i'])
  })
})

describe('config', () => {
  it('accepts presets, overrides and defaults', () => {
    const config = validateConfig({socket: 'work', defaultAgent: 'mine', agents: {mine: {command: ['my-agent', '--tui'], executables: ['my-agent'], resume: ['my-agent', '--resume', '{id}'], paneRules: [{state: 'waiting', pattern: '\\[y/N\\]'}]}, claude: {command: ['claude', '--model', 'opus']}}}, '/c/.pkrc')
    const presets = mergePresets(config)
    expect(findPreset('mine', presets)!.command).toEqual(['my-agent', '--tui'])
    expect(findPreset('claude', presets)!.command).toEqual(['claude', '--model', 'opus'])
    expect(findPreset('claude', presets)!.paneRules).toEqual(findPreset('claude')!.paneRules)
    expect(resumeArgv('mine', 'c1', presets)).toEqual(['my-agent', '--resume', 'c1'])
  })
  it.each([
    [{colour: true}, /\/c\/\.pkrc: colour: unknown key/],
    [{socket: ''}, /socket: must be a non-empty string/],
    [{agents: {x: {command: 'x --y'}}}, /agents\.x\.command: must be a non-empty array/],
    [{agents: {x: {}}}, /agents\.x\.command: a new preset needs a command/],
    [{agents: {claude: {paneRules: [{state: 'busy', pattern: 'x'}]}}}, /agents\.claude\.paneRules\[0\]\.state: must be working, waiting or idle/],
    [{agents: {claude: {paneRules: [{state: 'idle', pattern: '('}]}}}, /agents\.claude\.paneRules\[0\]\.pattern: is not a valid regular expression/],
    [{agents: {claude: {resume: ['claude', '--resume']}}}, /agents\.claude\.resume: must be null or an argv array with \{id\}/],
    [{defaultAgent: 'nope'}, /defaultAgent: no preset named "nope"/],
    [{agents: {'Bad Name': {command: ['x']}}}, /agents\.Bad Name: preset names/],
    [[1, 2], /\(top level\): must be an object/],
  ])('rejects %j naming the file and key', (data, message) => {
    expect(() => validateConfig(data, '/c/.pkrc')).toThrow(message)
  })
})

describe('config places', () => {
  it("searches cosmiconfig's places: a project's data files only, and all of the user's own", async () => {
    const {getDefaultSearchPlaces, globalConfigSearchPlaces} = await import('cosmiconfig')
    expect([...PROJECT_PLACES]).toEqual(getDefaultSearchPlaces('pk').filter((p) => !/\.(c|m)?(js|ts)$/.test(p)))
    expect([...USER_PLACES]).toEqual(globalConfigSearchPlaces)
  })

  it("refuses a project's config that names programs, and layers a project over the user's config", () => {
    expect(() => checkProjectConfig({agents: {claude: {command: ['x']}}}, '/p/.pkrc')).toThrow(/agents\.claude\.command/)
    expect(() => checkProjectConfig({agents: {claude: {resume: ['x', '{id}']}}}, '/p/.pkrc')).toThrow(/agents\.claude\.resume/)
    expect(() => checkProjectConfig({hosts: [{name: 'a', destination: 'b'}]}, '/p/.pkrc')).toThrow(/hosts/)
    expect(() => checkProjectConfig({socket: 'x', agents: {claude: {paneRules: []}}}, '/p/.pkrc')).not.toThrow()
    const user = {socket: 'mine', hosts: [{name: 'a', destination: 'b'}], agents: {mine: {command: ['m'], executables: ['m']}}}
    const layered = layerConfigs(user, {socket: 'project', agents: {mine: {paneRules: [{state: 'idle' as const, pattern: '>'}]}}})
    expect(layered).toEqual({socket: 'project', hosts: user.hosts, agents: {mine: {command: ['m'], executables: ['m'], paneRules: [{state: 'idle', pattern: '>'}]}}})
    // A project may pick the user's own preset as its default.
    expect(validateConfig({defaultAgent: 'mine'}, '/p/.pkrc', user)).toEqual({defaultAgent: 'mine'})
  })
})
