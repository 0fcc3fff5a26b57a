import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {limitFromMessage, parseReset, readLimit, resetInstant, resetZone, zonedInstant} from '../../../src/lib/agents/limits.js'
import {PANE_FIXTURES} from '../../helpers/pane-fixtures.js'

const screen = (file: string) => readFileSync(join(PANE_FIXTURES, file), 'utf8')

describe('a limit read off the real screens', () => {
  it('Claude Code 2.1.332 on a claude.ai plan: its 5-hour limit, its reset, and that it continues by itself', () => {
    expect(readLimit('claude', screen('claude-2.1.332.limited.five-hour-auto-continue.txt'))).toEqual({
      what: '5-hour limit',
      resetText: '5:09am (UTC)',
      reset: {hour: 5, minute: 9, zone: 'UTC'},
      agentContinues: true,
      continueBy: {kind: 'message'},
    })
  })
  it('Claude Code with its automatic continue cancelled (Esc), or off (its limit menu up): pk is the one to continue it', () => {
    expect(readLimit('claude', screen('claude-2.1.332.limited.auto-continue-cancelled.txt'))).toMatchObject({what: '5-hour limit', agentContinues: false})
    expect(readLimit('claude', screen('claude-2.1.332.limited.five-hour-menu.txt'))).toMatchObject({agentContinues: false, dismiss: 'Escape'})
    expect(readLimit('claude', screen('claude-2.1.332.limited.weekly-menu.txt'))).toMatchObject({
      what: 'weekly limit',
      resetText: 'Dec 10, 4:19am (UTC)',
      reset: {month: 12, day: 10, hour: 4, minute: 19, zone: 'UTC'},
      dismiss: 'Escape',
    })
  })
  it('Claude Code on an API key: the 429 after its own ten tries, no reset; its tries themselves are work, and a continued limit is history', () => {
    expect(readLimit('claude', screen('claude-2.1.332.limited.api-rate-limit.txt'))).toMatchObject({what: 'rate limit', resetText: null, reset: null})
    expect(readLimit('claude', screen('claude-2.1.332.working.rate-limit-retrying.txt'))).toBeNull()
    expect(readLimit('claude', screen('claude-2.1.332.idle.continued-after-limit.txt'))).toBeNull()
  })
  it('Codex 0.171.0: "try again at" a clock time, or a date further away (the last of several)', () => {
    expect(readLimit('codex', screen('codex-0.171.0.limited.usage-limit.txt'))).toEqual({
      what: 'usage limit',
      resetText: 'Dec 9th, 2026 6:11 AM',
      reset: {month: 12, day: 9, year: 2026, hour: 6, minute: 11},
      agentContinues: false,
      continueBy: {kind: 'message'},
    })
  })
  it('Gemini CLI 0.61.0: its limit dialog, with the reset where it shows one, continued by "Keep trying"', () => {
    expect(readLimit('gemini', screen('gemini-0.61.0.limited.usage-limit.txt'))).toEqual({
      what: 'usage limit for all Pro models',
      resetText: '5:14 AM UTC',
      reset: {hour: 5, minute: 14, zone: 'UTC'},
      agentContinues: false,
      continueBy: {kind: 'choice', n: 1, label: 'Keep trying'},
    })
    expect(readLimit('gemini', screen('gemini-0.61.0.limited.usage-limit-no-reset.txt'))).toMatchObject({resetText: null, reset: null})
  })
  it('Pi 1.6.0: its last word after three tries', () => {
    expect(readLimit('pi', screen('pi-1.6.0.limited.retry-failed.txt'))).toMatchObject({what: 'rate limit', reset: null})
  })
  it('a limit that is not the last word is history: a turn after it, text typed below it, or a look-alike in output', () => {
    const codex = screen('codex-0.171.0.limited.usage-limit.txt')
    // (the user's next prompt and Codex's answer below the limit)
    const after = codex.replace('› Ask Codex to do anything', '› continue\n\n• Done.\n\n› Ask Codex to do anything')
    expect(readLimit('codex', after)).toBeNull()
    // (a README the agent printed, quoting the message, then its prompt: not at the bottom as Codex's own)
    expect(readLimit('codex', '• The docs say:\n  ■ You’ve hit your usage limit. try again at 5:10 AM.\n\n• Done.\n\n› Ask Codex\n\n  model · /x\n')).toBeNull()
    expect(
      readLimit(
        'claude',
        screen('claude-2.1.332.limited.five-hour-auto-continue.txt').replace(
          '● Usage limit reached',
          '● Usage limit reset · Continuing automatically\n● Hello',
        ),
      ),
    ).toBeNull()
    expect(readLimit('aider', 'You’ve hit your usage limit')).toBeNull()
    expect(readLimit(null, 'x')).toBeNull()
  })
})

describe('resets', () => {
  it('reads the forms the agents write', () => {
    expect(parseReset('12:16am')).toEqual({hour: 0, minute: 16})
    expect(parseReset('12:05 PM')).toEqual({hour: 12, minute: 5})
    expect(parseReset('5am (Europe/Paris)')).toEqual({hour: 5, minute: 0, zone: 'Europe/Paris'})
    expect(parseReset('Dec 9th, 2026 6:11 AM')).toEqual({month: 12, day: 9, year: 2026, hour: 6, minute: 11})
    expect(parseReset('Jan 2, 3:04pm (UTC)')).toEqual({month: 1, day: 2, hour: 15, minute: 4, zone: 'UTC'})
    expect(parseReset('5:14 AM PST')).toEqual({hour: 5, minute: 14, zone: 'PST'})
    for (const bad of ['later', '25:00', '13:00pm', 'Foo 3, 1am', '5:99am', '']) expect(parseReset(bad), bad).toBeNull()
  })
  it('is the next such moment after it was shown: across midnight, a new year, and in the zone the agent named or its own', () => {
    const at = (iso: string) => Date.parse(iso)
    // Shown at 23:50 UTC: "resets 12:16am" is tomorrow's.
    expect(new Date(resetInstant({hour: 0, minute: 16}, at('2026-12-07T23:50:00Z'), 'UTC')).toISOString()).toBe('2026-12-08T00:16:00.000Z')
    // Shown at 04:10 in Paris (03:10 UTC): 05:10 Paris is 04:10 UTC the same day.
    expect(new Date(resetInstant({hour: 5, minute: 10}, at('2026-12-07T03:10:00Z'), 'Europe/Paris')).toISOString()).toBe('2026-12-07T04:10:00.000Z')
    // New York in summer (EDT, UTC-4): 9:30pm shown at 22:00 local is tomorrow's.
    expect(new Date(resetInstant({hour: 21, minute: 30}, at('2026-07-01T02:00:00Z'), 'America/New_York')).toISOString()).toBe('2026-07-02T01:30:00.000Z')
    // Shown at its own minute ("5:10 AM" at 5:10:20): now, not tomorrow.
    expect(new Date(resetInstant({hour: 5, minute: 10}, at('2026-12-07T05:10:20Z'), 'UTC')).toISOString()).toBe('2026-12-07T05:10:00.000Z')
    // A date without a year, past already this year: next year's.
    expect(new Date(resetInstant({month: 1, day: 2, hour: 3, minute: 0}, at('2026-12-30T00:00:00Z'), 'UTC')).toISOString()).toBe('2027-01-02T03:00:00.000Z')
    // Across a clock change (Europe/Paris leaves summer time on 2026-10-25): 05:00 the next morning is 04:00 UTC.
    expect(new Date(resetInstant({hour: 5, minute: 0}, at('2026-10-24T22:00:00Z'), 'Europe/Paris')).toISOString()).toBe('2026-10-25T04:00:00.000Z')
    expect(zonedInstant(2026, 3, 29, 12, 0, 'Europe/Paris')).toBe(at('2026-03-29T10:00:00Z'))
  })
  it('takes the zone the agent names where it is one, else the agent’s own', () => {
    expect(resetZone({hour: 1, minute: 0, zone: 'UTC'}, 'Asia/Tokyo')).toBe('UTC')
    expect(resetZone({hour: 1, minute: 0, zone: 'Europe/Paris'}, 'UTC')).toBe('Europe/Paris')
    expect(resetZone({hour: 1, minute: 0, zone: 'GMT+2'}, 'UTC')).toBe('Etc/GMT-2')
    // (an abbreviation names no zone: "PST" is the agent's own clock's name for it)
    expect(resetZone({hour: 1, minute: 0, zone: 'PST'}, 'America/Los_Angeles')).toBe('America/Los_Angeles')
    expect(resetZone({hour: 1, minute: 0}, 'Asia/Tokyo')).toBe('Asia/Tokyo')
  })
  it("reads a hook's words: Claude Code's StopFailure line", () => {
    expect(limitFromMessage("You've hit your 5-hour limit · resets 12:16am (UTC)")).toEqual({
      what: '5-hour limit',
      resetText: '12:16am (UTC)',
      reset: {hour: 0, minute: 16, zone: 'UTC'},
    })
    expect(limitFromMessage("API Error: Request rejected (429) · This request would exceed your account's rate limit.")).toEqual({
      what: 'rate limit',
      resetText: null,
      reset: null,
    })
    expect(limitFromMessage("You've hit your monthly spend limit.")).toMatchObject({what: 'monthly spend limit', reset: null})
    expect(limitFromMessage('Something else went wrong')).toBeNull()
  })
})
