import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {BUILTIN_PRESETS} from '../../../src/lib/agents/presets.js'
import {applyStatus, applyUsageAttention, freshHookStatus, needsAttention, needsCapture, WORKING_FRESH_MS} from '../../../src/lib/listing/status.js'
import {sameTurnEnd} from '../../../src/lib/events/events.js'
import {rowEvents} from '../../../src/lib/notify/notify.js'
import {sessionRow} from '../../helpers/fixtures.js'

describe('status', () => {
  const now = Date.parse('2026-11-29T12:00:00Z')
  const row = sessionRow
  const hook = (state: 'working' | 'waiting' | 'idle', ago: number, turnEnded = false) => ({
    state,
    at: new Date(now - ago).toISOString(),
    event: 'e',
    turnEnded,
  })

  it("usage past a threshold needs you as its own event, told apart from the state's, cleared by a look after it", () => {
    const usage = (since: string) => ({
      model: 'm',
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      contextTokens: 95,
      contextWindow: 100,
      cost: null,
      costSource: null,
      unpriced: 'm',
      source: 'f',
      updatedAt: since,
      skippedLines: 0,
      attention: {reason: 'context' as const, since, threshold: 90},
    })
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
    expect(rowEvents(applyUsageAttention([row({...over, attached: true})])[0]!)).toEqual([
      {since: '2026-11-29T11:00:00.000Z', reason: 'past 90% of its context (95%)', unseen: false},
    ])
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
    expect(applyStatus({rows: [later], known: records, captures, presets: BUILTIN_PRESETS, now})[0]).toMatchObject({
      state: 'working',
      stateSource: 'pane',
      attention: false,
    })
    // A screen that has not changed since the report leaves the hook's word standing.
    const quiet = row({agent: 'codex', tmux: {...row().tmux!, activity: (now - 120_000) / 1000}})
    expect(applyStatus({rows: [quiet], known: records, captures, presets: BUILTIN_PRESETS, now})[0]).toMatchObject({state: 'idle', stateSource: 'hook'})
  })

  it('a dialog on the screen is newer than a start or a tool call reported within its second (Claude Code 2.1.332)', () => {
    const panes = join(import.meta.dirname, '..', '..', 'fixtures', 'panes')
    const offer = new Map([['/s\0%1', readFileSync(join(panes, 'claude-2.1.332.waiting.auto-mode-offer.txt'), 'utf8')]])
    const question = new Map([['/s\0%1', readFileSync(join(panes, 'claude-2.1.197.waiting.question.txt'), 'utf8')]])
    const drawn = (ms: number) => row({tmux: {...row().tmux!, activity: Math.floor((now - ms) / 1000)}})
    // The offer drawn as SessionStart fired: waiting, from the screen, though no output came after the report.
    const started = new Map([['a', {status: {...hook('idle', 3_000), event: 'SessionStart'}, observed: null}]])
    expect(needsCapture(drawn(3_500), started.get('a'), BUILTIN_PRESETS, now)).toBe(true)
    expect(applyStatus({rows: [drawn(3_500)], known: started, captures: offer, presets: BUILTIN_PRESETS, now})[0]).toMatchObject({
      state: 'waiting',
      stateSource: 'pane',
      attention: true,
    })
    // The question drawn a moment after its PreToolUse (whose report came last): waiting at once.
    const asking = new Map([['a', {status: {...hook('working', 5_000), event: 'PreToolUse'}, observed: null}]])
    expect(needsCapture(drawn(4_900), asking.get('a'), BUILTIN_PRESETS, now)).toBe(true)
    expect(applyStatus({rows: [drawn(4_900)], known: asking, captures: question, presets: BUILTIN_PRESETS, now})[0]).toMatchObject({
      state: 'waiting',
      stateSource: 'pane',
    })
    // A working report and a screen from before it: the screen is not read (nor would it win).
    expect(needsCapture(drawn(60_000), asking.get('a'), BUILTIN_PRESETS, now)).toBe(false)
    // A turn end's report: its screen is read only once it changes after it, as before.
    const ended = new Map([['a', {status: hook('idle', 3_000, true), observed: null}]])
    expect(needsCapture(drawn(3_500), ended.get('a'), BUILTIN_PRESETS, now)).toBe(false)
    // Answered "No" at once: the dialog leaves within the report's second ("Interrupted" at the prompt, no hook
    // fires, and its Notification about the same prompt comes later): idle, from the screen, nobody to tell.
    const refused = new Map([['/s\0%1', readFileSync(join(panes, 'claude-2.1.332.idle.refused.txt'), 'utf8')]])
    const asked = new Map([['a', {status: {...hook('waiting', 2_000), event: 'PermissionRequest'}, observed: null}]])
    expect(needsCapture(drawn(1_500), asked.get('a'), BUILTIN_PRESETS, now)).toBe(true)
    expect(applyStatus({rows: [drawn(1_500)], known: asked, captures: refused, presets: BUILTIN_PRESETS, now})[0]).toMatchObject({
      state: 'idle',
      stateSource: 'pane',
      attention: false,
    })
    // Still on the screen: waiting, as reported.
    const permission = new Map([['/s\0%1', readFileSync(join(panes, 'claude-2.1.332.waiting.permission.txt'), 'utf8')]])
    expect(applyStatus({rows: [drawn(1_500)], known: asked, captures: permission, presets: BUILTIN_PRESETS, now})[0]).toMatchObject({state: 'waiting'})
    // Working, and the screen only shows words that look like a dialog above the prompt: not a dialog, still working.
    const lookalike = new Map([['/s\0%1', 'Do you want to proceed?\n \u276F 1. Yes\n   2. No\n\u2500\u2500\u2500\n\u276F \n  esc to interrupt\n']])
    expect(applyStatus({rows: [drawn(4_900)], known: asking, captures: lookalike, presets: BUILTIN_PRESETS, now})[0]).toMatchObject({state: 'working'})
  })

  it('one turn end is one event: dated once, whether the screen or the hook was applied first', () => {
    const screenAt = now - 30_000
    const hookAt = now - 20_000
    const idleScreen = new Map([['/s\0%1', '? for shortcuts']])
    const active = row({tmux: {...row().tmux!, activity: (screenAt + 500) / 1000}})
    // The hook's report took the observer's date (events.ts, sameTurnEnd): told as that one event.
    const merged = {
      status: {...hook('idle', 20_000, true), since: new Date(screenAt).toISOString()},
      observed: {state: 'idle' as const, since: new Date(screenAt).toISOString(), turnEnded: true},
    }
    const [a] = applyStatus({rows: [active], known: new Map([['a', merged]]), captures: idleScreen, presets: BUILTIN_PRESETS, now})
    expect(a).toMatchObject({state: 'idle', stateSource: 'hook', attentionSince: new Date(screenAt).toISOString()})
    // The hook first, then an observer that saw no work after it (its last look at work was before the report): the hook's date.
    const late = {
      status: hook('idle', 20_000, true),
      observed: {state: 'idle' as const, since: new Date(hookAt + 3_000).toISOString(), turnEnded: true, lastOther: new Date(hookAt - 1_000).toISOString()},
    }
    const screenLater = row({tmux: {...row().tmux!, activity: (hookAt + 4_000) / 1000}})
    const [b] = applyStatus({rows: [screenLater], known: new Map([['a', late]]), captures: idleScreen, presets: BUILTIN_PRESETS, now})
    expect(b!.attentionSince).toBe(new Date(hookAt).toISOString())
    // Work seen after the report of an agent whose hooks report only turn ends (Codex's failed turn):
    // another turn end, with its own date.
    const newer = {...late, observed: {...late.observed, lastOther: new Date(hookAt + 1_000).toISOString()}}
    const codexRow = {...screenLater, agent: 'codex'}
    const codexScreen = new Map([['/s\0%1', '\u203A Ask Codex to do anything\n  gpt-5 default \u00B7 ~/w\n']])
    const [c] = applyStatus({rows: [codexRow], known: new Map([['a', newer]]), captures: codexScreen, presets: BUILTIN_PRESETS, now})
    expect(c).toMatchObject({stateSource: 'pane', attentionSince: new Date(hookAt + 3_000).toISOString()})
    // Claude reports its turns' work: work seen after a Stop is its screen catching up, not a new turn.
    const [d] = applyStatus({rows: [screenLater], known: new Map([['a', newer]]), captures: idleScreen, presets: BUILTIN_PRESETS, now})
    expect(d!.attentionSince).toBe(new Date(hookAt).toISOString())
  })

  it("Codex: a turn's notify dated by an older turn end on the screen still lets the turn's own end be told (CI, 0.171.0)", () => {
    // Seen in CI: a turn's notify at T; the watcher saw work after it and the prompt at T+1.5 s (told: a turn
    // end of its own); a 15 s turn followed, whose notify came 14.9 s after that sighting and took its date
    // (sameTurnEnd: within SAME_TURN_MS). Its end, seen by the watcher, must be told, not hidden under it.
    const T = now - 60_000
    const iso = (ms: number) => new Date(ms).toISOString()
    const first = {state: 'idle' as const, at: iso(T), event: 'agent-turn-complete', turnEnded: true}
    const sighting = {state: 'idle' as const, since: iso(T + 1_500), turnEnded: true, lastOther: iso(T + 1_250)}
    const notify = {state: 'idle' as const, at: iso(T + 16_400), event: 'agent-turn-complete', turnEnded: true}
    const merged = sameTurnEnd(notify, first, sighting)
    expect(merged.since).toBe(iso(T + 1_500))
    const codexScreen = new Map([['/s\0%1', '\u203A Ask Codex to do anything\n  gpt-5 default \u00B7 ~/w\n']])
    const codexRow = row({agent: 'codex', tmux: {...row().tmux!, activity: Math.floor((T + 16_500) / 1000)}})
    const list = (observed: typeof sighting) =>
      applyStatus({rows: [codexRow], known: new Map([['a', {status: merged, observed}]]), captures: codexScreen, presets: BUILTIN_PRESETS, now})[0]!
    // The watcher saw the turn's work, then its prompt (after the notify ran, or just before it): that is the
    // turn's end, dated by that sighting.
    for (const seen of [T + 16_600, T + 16_300]) {
      const after = list({state: 'idle', since: iso(seen), turnEnded: true, lastOther: iso(seen - 400)})
      expect(after).toMatchObject({state: 'idle', attention: true, attentionSince: iso(seen)})
    }
    // And the older sighting alone still names the older event (told already: nothing new to tell).
    expect(list(sighting).attentionSince).toBe(iso(T + 1_500))
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

  describe('at a usage limit', () => {
    const fixture = (file: string) => readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'panes', file), 'utf8')
    const codexLimit = fixture('codex-0.171.0.limited.usage-limit.txt')
    const at = (ms: number) => Math.floor((now - ms) / 1000)
    const live = (agent: string, activityAgo: number) => row({agent, tmux: {...row().tmux!, activity: at(activityAgo)}})
    type Report = Omit<ReturnType<typeof hook>, 'state'> & {state: 'working' | 'waiting' | 'idle' | 'limited'; detail?: string}
    const decide = (r: ReturnType<typeof row>, status: Report | null, screen: string | undefined) =>
      applyStatus({
        rows: [r],
        known: new Map([['a', {status, observed: null}]]),
        captures: screen === undefined ? new Map() : new Map([['/s\0%1', screen]]),
        presets: BUILTIN_PRESETS,
        now,
        zoneOf: () => 'UTC',
      })[0]!

    it('a limit first looked at after the reset it showed resets today, passed: continued now, not tomorrow (issue 70)', () => {
      // Drawn at 03:00 (the pane's last change), "try again at 5:10 AM", looked at first at noon.
      const screen = codexLimit.replace('Dec 9th, 2026 6:11 AM', '5:10 AM')
      const r = decide(live('codex', 9 * 3600_000), null, screen)
      expect(r.limit).toMatchObject({since: '2026-11-29T03:00:00.000Z', resetsAt: '2026-11-29T05:10:00.000Z'})
    })
    it("Codex's turn end at its limit is a limit, dated by that report, told as one (never as a finished turn)", () => {
      const r = decide(live('codex', 2000), hook('idle', 1500, true), codexLimit)
      expect(r).toMatchObject({state: 'limited', stateSource: 'pane', attention: true, attentionSince: new Date(now - 1500).toISOString()})
      expect(r.limit).toMatchObject({
        what: 'usage limit',
        resetsAt: '2026-12-09T06:11:00.000Z',
        since: new Date(now - 1500).toISOString(),
        continuedBy: 'nobody',
      })
      expect(rowEvents(r).map((e) => e.reason)).toEqual([expect.stringMatching(/^hit its usage limit \(resets Dec 9 06:11\); not continued/)])
      // Its screen is read for a turn end: only the screen tells the limit from a finished turn.
      expect(needsCapture(live('codex', 2000), {status: hook('idle', 1500, true), observed: null}, BUILTIN_PRESETS, now)).toBe(true)
    })
    it("Pi's limit, ended with its turn's report, keeps that date when a draft typed since moves its screen (Pi reports its turns' work)", () => {
      const piLimit = fixture('pi-1.6.0.limited.retry-failed.txt')
      const report = {...hook('idle', 30_000, true), event: 'agent_end'}
      for (const typedAgo of [29_500, 2_000]) {
        const r = decide(live('pi', typedAgo), report, piLimit)
        expect(r).toMatchObject({state: 'limited', attentionSince: new Date(now - 30_000).toISOString()})
        expect(r.limit!.since).toBe(new Date(now - 30_000).toISOString())
      }
    })
    it("a limit drawn after the last turn end's report is a later turn's (Codex fires no notify at its limit): told once a watcher dates it", () => {
      const r = decide(live('codex', 500), hook('idle', 30_000, true), codexLimit)
      expect(r).toMatchObject({state: 'limited', stateSource: 'pane', attentionSince: null})
      // (its episode and reset from when the pane last changed: a screen stopped at its limit does not move; issue 70)
      expect(r.limit!.since).toBe(new Date(live('codex', 500).tmux!.activity! * 1000).toISOString())
      const seen = applyStatus({
        rows: [live('codex', 500)],
        known: new Map([['a', {status: hook('idle', 30_000, true), observed: {state: 'limited', since: new Date(now - 400).toISOString(), turnEnded: false}}]]),
        captures: new Map([['/s\0%1', codexLimit]]),
        presets: BUILTIN_PRESETS,
        now,
        zoneOf: () => 'UTC',
      })[0]!
      expect(seen).toMatchObject({state: 'limited', attentionSince: new Date(now - 400).toISOString()})
      expect(seen.limit!.since).toBe(new Date(now - 400).toISOString())
    })
    it("Claude Code's StopFailure at a limit: limited by its report, reset from its words, who continues from its screen", () => {
      const report = {
        ...hook('idle', 3000),
        state: 'limited' as const,
        event: 'StopFailure:rate_limit',
        detail: "You've hit your 5-hour limit · resets 5:09am (UTC)",
      }
      const byReport = decide(live('claude', 3000), report, undefined)
      expect(byReport).toMatchObject({state: 'limited', stateSource: 'hook', attention: true})
      expect(byReport.limit).toMatchObject({what: '5-hour limit', shown: '5:09am (UTC)', resetsAt: '2026-11-30T05:09:00.000Z', continuedBy: 'nobody'})
      const withScreen = decide(live('claude', 3000), report, fixture('claude-2.1.332.limited.five-hour-auto-continue.txt'))
      expect(withScreen.limit).toMatchObject({what: '5-hour limit', continuedBy: 'agent'})
      // Continued (by itself, or typed at): work reported after the screen last changed is newer than the limit on it.
      expect(decide(live('claude', 5000), hook('working', 1000), fixture('claude-2.1.332.limited.auto-continue-cancelled.txt'))).toMatchObject({
        state: 'working',
        limit: null,
      })
    })
    it("Gemini CLI's limit dialog, drawn after its turn's start (no report comes), is the newer word", () => {
      const r = decide(live('gemini', 1000), hook('working', 8000), fixture('gemini-0.61.0.limited.usage-limit.txt'))
      expect(r).toMatchObject({state: 'limited', stateSource: 'pane'})
      expect(r.limit).toMatchObject({what: 'usage limit for all Pro models', shown: '5:14 AM UTC'})
      // (undated until an observer hands in its first sight: told then)
      expect(r.attentionSince).toBeNull()
    })
    it('a limit sorts right after what waits on you, and needs you while nobody looks', () => {
      expect(needsAttention(row(), 'limited', now, false)).toBe(true)
      expect(needsAttention(row({attached: true}), 'limited', now, false)).toBe(false)
      const limited = decide(live('codex', 2000), hook('idle', 1500, true), codexLimit)
      const waiting = {...row({id: 'w'}), state: 'waiting' as const, attention: true}
      const working = {...row({id: 'k'}), state: 'working' as const}
      expect(applyStatus({rows: [working, limited, waiting], known: new Map(), captures: new Map(), presets: [], now}).map((r) => r.id)).toEqual([
        'w',
        'a',
        'k',
      ])
    })
  })
})
