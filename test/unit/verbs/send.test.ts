import {describe, expect, it} from 'vitest'

import {checkSendText, lastLines} from '../../../src/lib/verbs/lifecycle.js'
import {readiness} from '../../../src/lib/verbs/send.js'
import {resumableRow} from '../../helpers/fixtures.js'

const row = resumableRow

describe('pk send text (pure)', () => {
  it('types text, never keys: CRLF becomes LF, tabs and newlines pass, C0 and C1 controls are refused', () => {
    expect(checkSendText('a\r\nb\tc')).toBe('a\nb\tc')
    expect(() => checkSendText('x\u001B[2J')).toThrow(/control character \(code 27\)/)
    expect(() => checkSendText('x\u009B31m')).toThrow(/code 155/)
  })
  it('types into a ready agent, waits for one that works (with --when-idle) or starts, refuses a dialog', () => {
    expect(readiness(row('a', {state: 'idle'}), false)).toBe('go')
    expect(readiness(row('a', {state: 'working'}), false)).toBe('go')
    expect(readiness(row('a', {state: 'working'}), true)).toBe('wait')
    expect(readiness(row('a', {state: 'unknown'}), false)).toBe('wait')
    expect(readiness(row('a', {state: 'waiting'}), false)).toMatchObject({refuse: expect.stringMatching(/waiting on a dialog/)})
    expect(readiness(row('a', {agent: null, state: 'unknown'}), false)).toBe('go')
  })
  it('the last lines of a capture, without the blank screen below the output', () => {
    expect(lastLines('a\nb\nc\n\n\n', 2)).toEqual(['b', 'c'])
  })
})
