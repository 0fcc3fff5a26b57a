import {describe, expect, it} from 'vitest'

import {auditLine, cutLong} from '../../../src/lib/registry/mcp-audit.js'

describe('the audit log (pure)', () => {
  it('one line per call, long text cut saying how long it was', () => {
    expect(cutLong({text: 'y'.repeat(300), n: 3, list: ['z'.repeat(201)]})).toEqual({
      text: `${'y'.repeat(200)}… (300 characters)`,
      n: 3,
      list: [`${'z'.repeat(200)}… (201 characters)`],
    })
    const line = auditLine({at: 't', phase: 'end', session: 'a', pid: 1, tool: 'send_message', args: {text: 'hi\nthere'}, exit: 0, code: null})
    expect(line.endsWith('\n')).toBe(true)
    expect(line.split('\n')).toHaveLength(2)
    expect(JSON.parse(line)).toMatchObject({tool: 'send_message', args: {text: 'hi\nthere'}})
  })
})
