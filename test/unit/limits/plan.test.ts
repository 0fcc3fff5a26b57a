import {describe, expect, it} from 'vitest'

import {
  ContinueFile,
  MAX_IN_A_ROW,
  RESET_GRACE_MS,
  continueMessage,
  continuingAllowed,
  parseContinueFile,
  parseMoment,
  planContinue,
  unbelievableReset,
} from '../../../src/lib/limits/plan.js'
import {newContinueFile} from '../../../src/lib/limits/store.js'
import {SessionLimit} from '../../../src/lib/model/contract.js'

const since = '2026-12-07T03:00:00.000Z'
const limit = (over: Partial<SessionLimit> = {}): SessionLimit => ({
  what: '5-hour limit',
  resetsAt: '2026-12-07T05:10:00.000Z',
  shown: '5:10am (UTC)',
  since,
  continuedBy: 'nobody',
  continueAt: null,
  why: null,
  ...over,
})
const file = (over: Partial<ContinueFile> = {}): ContinueFile => ({...newContinueFile('a1', {pid: 100, startTime: 5000}), episode: since, ...over})
const yes = {allowed: true} as const

describe('who continues a session at its limit, and when', () => {
  it('the agent, where it says it continues by itself: pk types nothing', () => {
    expect(planContinue(limit({continuedBy: 'agent'}), yes, file({at: '2026-12-07T06:00:00.000Z'}))).toEqual({
      continuedBy: 'agent',
      continueAt: null,
      why: null,
    })
  })
  it('pk, shortly after the reset the agent showed', () => {
    expect(planContinue(limit(), yes, null)).toEqual({
      continuedBy: 'pk',
      continueAt: new Date(Date.parse('2026-12-07T05:10:00.000Z') + RESET_GRACE_MS).toISOString(),
      why: null,
    })
  })
  it('pk at the moment pk continue --at set for this limit, even where the agent showed no reset', () => {
    expect(planContinue(limit({resetsAt: null}), yes, file({at: '2026-12-07T06:00:00.000Z'}))).toMatchObject({
      continuedBy: 'pk',
      continueAt: '2026-12-07T06:00:00.000Z',
    })
  })
  it('a moment set for an earlier limit does not carry over to this one', () => {
    const old = file({episode: '2026-12-06T03:00:00.000Z', at: '2026-12-06T06:00:00.000Z'})
    expect(planContinue(limit({resetsAt: null}), yes, old)).toEqual({continuedBy: 'nobody', continueAt: null, why: expect.stringContaining('no reset time')})
  })
  it('nobody, with the reason: turned off, given up, not allowed, no reset shown, already continued once', () => {
    expect(planContinue(limit(), yes, file({off: true, offWhy: null})).why).toMatch(/pk continue --off/)
    expect(planContinue(limit(), yes, file({off: true, offWhy: 'someone was attached at the reset'})).why).toBe('someone was attached at the reset')
    expect(planContinue(limit(), yes, file({gaveUp: true, inARow: MAX_IN_A_ROW})).why).toMatch(/3 limits in a row/)
    expect(planContinue(limit(), {allowed: false, why: 'started with pk bg --no-continue'}, null).why).toBe('started with pk bg --no-continue')
    expect(planContinue(limit(), yes, file({continuedEpisode: since, lastOutcome: 'typed; the limit is still shown'})).why).toMatch(
      /once at this limit already \(typed/,
    )
  })
})

describe('a reset pk does not believe (issue 72): shown, never scheduled', () => {
  const now = Date.parse('2026-12-07T04:00:00.000Z')
  it('further than 8 days away, or more than a day before it was shown', () => {
    expect(unbelievableReset(limit(), now)).toBeNull()
    expect(unbelievableReset(limit({resetsAt: '2026-12-14T03:00:00.000Z'}), now)).toBeNull()
    expect(unbelievableReset(limit({resetsAt: '9999-12-31T09:00:00.000Z'}), now)).toMatch(/more than 8 days away/)
    expect(unbelievableReset(limit({resetsAt: '1971-01-01T00:00:00.000Z'}), now)).toMatch(/more than a day before it was shown/)
    // A reset that passed a little before it was looked at is one to continue now, not one to doubt.
    expect(unbelievableReset(limit({resetsAt: '2026-12-07T02:00:00.000Z'}), now)).toBeNull()
  })
  it('planContinue says so, and sets no moment', () => {
    expect(planContinue(limit({resetsAt: '9999-12-31T09:00:00.000Z'}), yes, null)).toMatchObject({
      continuedBy: 'nobody',
      continueAt: null,
      why: expect.stringMatching(/more than 8 days away: not believed, so not scheduled; pk continue ID --at TIME/),
    })
  })
})

describe('whether pk continues sessions like this one', () => {
  it('the ones pk started, by default; the ones you started yourself only with "all"; none with "off"', () => {
    expect(continuingAllowed({kind: 'recorded'}, undefined, null)).toEqual({allowed: true})
    expect(continuingAllowed({kind: 'detected'}, undefined, null)).toMatchObject({allowed: false, why: expect.stringMatching(/you started it yourself/)})
    expect(continuingAllowed({kind: 'detected'}, {continue: 'all'}, null)).toEqual({allowed: true})
    expect(continuingAllowed({kind: 'recorded'}, {continue: 'off'}, null)).toMatchObject({allowed: false})
    expect(continuingAllowed({kind: 'recorded'}, {continue: 'all'}, {continueAtReset: false})).toMatchObject({why: 'started with pk bg --no-continue'})
  })
  it('the message typed: the agent\'s own, else the one for all, else "continue"', () => {
    expect(continueMessage('claude', undefined)).toBe('continue')
    expect(continueMessage('claude', {message: 'go on'})).toBe('go on')
    expect(continueMessage('codex', {message: 'go on', messages: {codex: 'carry on'}})).toBe('carry on')
    expect(continueMessage(null, {messages: {codex: 'carry on'}})).toBe('continue')
  })
})

describe('the continue file read back', () => {
  it("round-trips, and anything not pk's own shape is not trusted", () => {
    const f = file({wake: {kind: 'sleeper', pid: 7, startTime: 9, at: '2026-12-07T05:11:30.000Z'}})
    expect(parseContinueFile(JSON.stringify(f))).toEqual(f)
    expect(parseContinueFile('{')).toBeNull()
    expect(parseContinueFile('null')).toBeNull()
    expect(parseContinueFile(JSON.stringify({...f, version: 2}))).toBeNull()
    expect(parseContinueFile(JSON.stringify({...f, pid: -1}))).toBeNull()
    expect(parseContinueFile(JSON.stringify({...f, at: 'tomorrow'}))).toBeNull()
    // (a unit name is passed to systemctl: only pk's own shape)
    expect(parseContinueFile(JSON.stringify({...f, wake: {kind: 'systemd', unit: 'x; rm -rf ~', at: f.wake!.at}}))).toBeNull()
  })
})

describe('pk continue --at: the moments it takes', () => {
  const now = Date.parse('2026-12-07T05:00:00.000Z')
  it('a while from now', () => {
    expect(parseMoment('+90s', now, 'UTC')).toBe(now + 90_000)
    expect(parseMoment('+20m', now, 'UTC')).toBe(now + 20 * 60_000)
    expect(parseMoment('+2h', now, 'UTC')).toBe(now + 2 * 3_600_000)
  })
  it('a clock time: the next one in your zone (past midnight when it has gone by today)', () => {
    expect(parseMoment('05:20', now, 'UTC')).toBe(Date.parse('2026-12-07T05:20:00.000Z'))
    expect(parseMoment('04:20', now, 'UTC')).toBe(Date.parse('2026-12-08T04:20:00.000Z'))
    expect(parseMoment('5:20am', now, 'UTC')).toBe(Date.parse('2026-12-07T05:20:00.000Z'))
    expect(parseMoment('07:20', now, 'Europe/Berlin')).toBe(Date.parse('2026-12-07T06:20:00.000Z'))
  })
  it('a date and time, in your zone unless it names an offset', () => {
    expect(parseMoment('2026-12-08T00:20', now, 'Europe/Berlin')).toBe(Date.parse('2026-12-07T23:20:00.000Z'))
    expect(parseMoment('2026-12-08 00:20:30Z', now, 'Europe/Berlin')).toBe(Date.parse('2026-12-08T00:20:30.000Z'))
  })
  it('nothing else', () => {
    for (const bad of ['', 'soon', '25:00', '5:61', '+5d', '-5m', '2026-13-01'])
      expect(parseMoment(bad, now, 'UTC'), bad).toSatisfy((v: number | null) => v === null || Number.isNaN(v))
  })
})
