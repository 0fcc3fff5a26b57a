import {describe, expect, it} from 'vitest'

import {PkError} from '../../../src/lib/model/errors.js'
import {TmuxCommandError, TMUX_DEADLINE_MS} from '../../../src/lib/tmux/exec.js'
import {beforeTyping, Deadline, watchScreen} from '../../../src/lib/verbs/deadline.js'

const slowServer = () => new TmuxCommandError('unresponsive', '', 'did not answer')

describe('a command deadline', () => {
  it('gives each tmux call what is left of it, never less than tmux own default', () => {
    let now = 1000
    const deadline = new Deadline(30_000, () => now)
    expect(deadline.callMs()).toBe(30_000)
    now += 29_500
    expect([deadline.left(), deadline.callMs(), deadline.passed()]).toEqual([500, TMUX_DEADLINE_MS, false])
    now += 1000
    expect([deadline.left(), deadline.passed(), String(deadline)]).toEqual([0, true, '30 s'])
  })

  it('before anything is typed, a server that did not answer is a timeout (exit 124) that says nothing was typed; other errors stay', async () => {
    const deadline = new Deadline(1500)
    const error = await beforeTyping(Promise.reject(slowServer()), deadline, 'session abc').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PkError)
    expect([(error as PkError).code, (error as PkError).exitCode, (error as PkError).message]).toEqual([
      'timeout',
      124,
      'session abc: its tmux server did not answer within 1.5 s (stopped or very busy); nothing was typed, try again',
    ])
    const other = new TmuxCommandError('error', "can't find pane", "can't find pane")
    expect(await beforeTyping(Promise.reject(other), deadline, 'x').catch((e: unknown) => e)).toBe(other)
    expect(await beforeTyping(Promise.resolve(7), deadline, 'x')).toBe(7)
  })
})

describe('watching a screen for a change', () => {
  it('ends false when nothing changes within the window of answered looks', async () => {
    const started = Date.now()
    expect(await watchScreen(async () => false, 300, new Deadline(10_000))).toBe(false)
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
  })

  /** Looks at a screen whose first look tmux answers late (a stopped server, 1.2 s), changed by the third. */
  const slowFirstLook = () => {
    const seen = {looks: 0}
    const test = async () => {
      seen.looks++
      if (seen.looks === 1) await new Promise((resolve) => setTimeout(resolve, 1200))
      return seen.looks >= 3
    }
    return {seen, test}
  }

  it('goes on after a look tmux was slow to answer: the change it shows late still counts', async () => {
    expect(await watchScreen(slowFirstLook().test, 300, new Deadline(10_000))).toBe(true)
  })

  it('never goes on past the caller deadline', async () => {
    const {seen, test} = slowFirstLook()
    expect(await watchScreen(test, 300, new Deadline(0))).toBe(false)
    expect(seen.looks).toBe(1)
  })
})
