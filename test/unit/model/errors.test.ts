import {describe, expect, it} from 'vitest'

import {ERRORS, ERROR_CODES, ExitCode, PkError, describeError, errnoCode, terminalSafe, terminalSafeColour} from '../../../src/lib/model/errors.js'

describe('the error catalog', () => {
  it('gives every code one documented exit and a meaning, and a thrown error takes its exit from there', () => {
    const exits = new Set<number>(Object.values(ExitCode))
    for (const code of ERROR_CODES) {
      expect(exits.has(ERRORS[code].exit), code).toBe(true)
      expect(ERRORS[code].meaning.length, code).toBeGreaterThan(10)
      expect(new PkError(code, 'x').exitCode).toBe(ERRORS[code].exit)
    }
    expect(new PkError('bad-config', 'x')).toMatchObject({code: 'bad-config', exitCode: 2, name: 'PkError', message: 'x'})
  })
  it("says a system error as what failed, where, and what to do; anything else is pk's bug", () => {
    const enospc = Object.assign(new Error('ENOSPC: no space'), {code: 'ENOSPC', syscall: 'write', path: '/s/x.json'})
    expect(describeError(enospc)).toEqual({message: 'write /s/x.json failed (ENOSPC): no space left on the device; free some space and try again', exitCode: 1})
    expect(describeError(new TypeError('x is undefined')).message).toMatch(/this is a bug in pk/)
    expect(errnoCode(enospc)).toBe('ENOSPC')
    expect(errnoCode('nope')).toBeUndefined()
  })
  it('never lets a name print escape sequences on a terminal', () => {
    expect(terminalSafe('a\u001B[2Jb\tc\nd\u009Be')).toBe('a?[2Jb\tc\nd?e')
    // Standard output keeps colours (SGR) and nothing else: no clipboard write, title, cursor move or C1 CSI.
    expect(terminalSafeColour('\u001B[1;31mred\u001B[0m \u001B[38:5:2mx\u001B[m')).toBe('\u001B[1;31mred\u001B[0m \u001B[38:5:2mx\u001B[m')
    expect(terminalSafeColour('a\u001B]52;c;eA==\u0007b\u001B]0;t\u001B\\c\u001B[2J\u009B2Jd\te\n')).toBe('a?]52;c;eA==?b?]0;t?\\c?[2J?2Jd\te\n')
    expect(describeError(new PkError('no-such-session', 'no session \u001B]0;x\u0007')).message).toBe('no session ?]0;x?')
  })
})

describe('exitOf: how a command ended, as its exit', () => {
  it('maps each outcome, a first failure by the catalog', async () => {
    const {exitOf, PkError} = await import('../../../src/lib/model/errors.js')
    expect(exitOf('ok')).toBe(0)
    expect(exitOf('not-all-ok')).toBe(1)
    expect(exitOf({childExit: 130})).toBe(130)
    expect(exitOf({firstFailure: new PkError('no-such-session', 'x')})).toBe(3)
    expect(exitOf({firstFailure: new PkError('unverified', 'x')})).toBe(5)
    expect(exitOf({firstFailure: new Error('a bug')})).toBe(1)
  })
})
