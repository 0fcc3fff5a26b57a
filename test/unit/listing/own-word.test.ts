import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {BUILTIN_PRESETS} from '../../../src/lib/agents/presets.js'
import {OwnWord} from '../../../src/lib/agents/own-state.js'
import {Disagreement, applyStatus} from '../../../src/lib/listing/status.js'
import {HookStatus, ScreenEpisode} from '../../../src/lib/registry/records.js'
import {sessionRow} from '../../helpers/fixtures.js'
import {ROOT} from '../../helpers/sandbox.js'

/** The agent's own word outranks a screen rule; newer reports and what only the screen shows stand (status.ts withOwnWord). */
describe("the agent's own word", () => {
  const now = Date.parse('2026-12-07T12:00:00Z')
  const panes = join(ROOT, 'test', 'fixtures', 'panes')
  const screen = (file: string) => readFileSync(join(panes, file), 'utf8')
  const word = (state: OwnWord['state'], ago: number, detail: string | null = null): OwnWord => ({
    state,
    since: now - ago,
    detail,
    version: '2.1.337',
    channel: 'claude-record',
  })
  const hook = (state: HookStatus['state'], ago: number, turnEnded = false): HookStatus => ({
    state,
    at: new Date(now - ago).toISOString(),
    event: 'e',
    turnEnded,
  })
  /** A live Claude whose window last changed `activityAgo` ms ago, decided with what it says and shows. */
  function decide(opts: {own?: OwnWord; hook?: HookStatus; screen?: string; observed?: ScreenEpisode; activityAgo?: number}, disagreements?: Disagreement[]) {
    const row = sessionRow({tmux: {...sessionRow().tmux!, activity: (now - (opts.activityAgo ?? 60_000)) / 1000}})
    const known = new Map([['a', {status: opts.hook ?? null, observed: opts.observed ?? null}]])
    const captures = new Map(opts.screen === undefined ? [] : [['/s\0%1', opts.screen]])
    const own = new Map(opts.own === undefined ? [] : [['a', opts.own]])
    return applyStatus({rows: [row], known, captures, presets: BUILTIN_PRESETS, now, own, disagreements})[0]!
  }
  const blank = 'a screen no rule knows\n\n\n'

  it('reads working, waiting and idle right while the screen shows nothing any rule knows', () => {
    expect(decide({own: word('working', 3000), screen: blank})).toMatchObject({state: 'working', stateSource: 'agent'})
    for (const waitingFor of ['permission prompt', 'input needed', 'dialog open']) {
      const waiting = decide({own: word('waiting', 3000, waitingFor), screen: blank})
      expect(waiting).toMatchObject({state: 'waiting', stateSource: 'agent', attention: true, attentionSince: new Date(now - 3000).toISOString()})
    }
    expect(decide({own: word('idle', 3000), screen: blank})).toMatchObject({state: 'idle', stateSource: 'agent', attention: false})
    // No screen captured at all (a fresh hook report stood): the word still decides where it is newer.
    expect(decide({own: word('working', 1000), hook: hook('idle', 20_000, true)})).toMatchObject({state: 'working', stateSource: 'agent'})
  })

  it('outranks a screen rule that reads otherwise, and says so once it has lasted longer than a moment', () => {
    const found: Disagreement[] = []
    const permission = screen('claude-2.1.332.waiting.permission.txt')
    expect(decide({own: word('working', 10_000), screen: permission}, found)).toMatchObject({state: 'working', stateSource: 'agent'})
    expect(found).toEqual([
      {id: 'a', agent: 'claude', own: 'working', channel: 'claude-record', screen: 'waiting', since: new Date(now - 10_000).toISOString()},
    ])
    // A moment's lag (the record rewritten within about 0.25 s of the screen) is not reported.
    const quiet: Disagreement[] = []
    decide({own: word('working', 1000), screen: permission}, quiet)
    expect(quiet).toEqual([])
  })

  it('a hook report newer than the word by more than a moment is newer evidence (a short turn may write nothing)', () => {
    expect(decide({own: word('idle', 60_000), hook: hook('working', 2000)})).toMatchObject({state: 'working', stateSource: 'hook'})
    // Within the moment, the word and the report name one change: the word stands.
    expect(decide({own: word('waiting', 2000, 'permission prompt'), hook: hook('working', 1500)})).toMatchObject({state: 'waiting', stateSource: 'agent'})
    // A dialog answered (the word went busy after the report of it): working, no longer waiting on you.
    expect(decide({own: word('working', 1000), hook: hook('waiting', 8000)})).toMatchObject({state: 'working', stateSource: 'agent', attention: false})
  })

  it('keeps what only the hooks and the screen say: a limit, a turn that ended, the report dating it', () => {
    // Claude 2.1.337 after its 429: the record reads idle, the screen shows the limit.
    const limited = decide({own: word('idle', 3000), screen: screen('claude-2.1.337.limited.api-rate-limit.txt')})
    expect(limited).toMatchObject({state: 'limited', stateSource: 'pane', limit: {what: 'rate limit'}})
    // ... until a turn begins after it.
    expect(decide({own: word('working', 1000), screen: screen('claude-2.1.337.limited.api-rate-limit.txt'), activityAgo: 60_000})).toMatchObject({
      state: 'working',
      stateSource: 'agent',
    })
    // A Stop report and an idle record agree: the report's turn end and date stand, and the session needs you.
    const ended = decide({own: word('idle', 4000), hook: hook('idle', 4100, true)})
    expect(ended).toMatchObject({state: 'idle', stateSource: 'agent', attention: true, attentionSince: new Date(now - 4100).toISOString()})
    // Work reported, then the record went idle without a Stop yet: a turn ended.
    expect(decide({own: word('idle', 1000), hook: hook('working', 30_000)})).toMatchObject({state: 'idle', attention: true})
    // An idle word with nothing else: no turn end is invented.
    expect(decide({own: word('idle', 1000)})).toMatchObject({state: 'idle', attention: false})
    // A watcher that saw work end since the word: a turn ended, dated by its sight.
    const seen = {state: 'idle' as const, since: new Date(now - 500).toISOString(), turnEnded: true}
    expect(decide({own: word('idle', 1000), observed: seen})).toMatchObject({state: 'idle', attention: true, attentionSince: seen.since})
  })
})
