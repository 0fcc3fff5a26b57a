import {describe, expect, it} from 'vitest'

import {mcpCheck} from '../../../../src/lib/doctor/checks/mcp.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'

describe('the mcp check', () => {
  it('passes while pk mcp takes calls; warns while it is off, with since when and how to turn it on', () => {
    expect(mcpCheck.judge(doctorFacts({mcpOff: null}))).toMatchObject({status: 'pass'})
    expect(mcpCheck.judge(doctorFacts({}))).toMatchObject({status: 'pass'})
    const off = mcpCheck.judge(doctorFacts({mcpOff: {at: '2026-12-07T10:00:00.000Z', why: 'pk mcp --off at 2026-12-07T10:00:00.000Z'}}))
    expect(off).toMatchObject({status: 'warn', fix: 'pk mcp --on', message: expect.stringMatching(/^off since 2026-12-07T10:00:00.000Z .*refuses every call/)})
  })
})
