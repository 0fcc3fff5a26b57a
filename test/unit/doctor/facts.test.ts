import {describe, expect, it} from 'vitest'

import {agentsOnPath, parseServerAccess} from '../../../src/lib/doctor/facts.js'

describe("doctor's facts (pure parts)", () => {
  it('parses server-access lists and finds agents on a PATH', () => {
    expect(parseServerAccess('nobody (W)\nalice (R)\nme (W)\n\n', 'me')).toEqual(['nobody (W)', 'alice (R)'])
    expect(agentsOnPath('/a:/b', (p) => p === '/b/claude' || p === '/a/codex')).toEqual(
      new Map([
        ['codex', '/a/codex'],
        ['claude', '/b/claude'],
      ]),
    )
  })
})
