import {describe, expect, it} from 'vitest'

import {readClaudeRecord} from '../../../src/lib/agents/claude/record.js'
import {OWN_STATE_READERS} from '../../../src/lib/agents/own-sources.js'
import {BUILTIN_PRESETS} from '../../../src/lib/agents/presets.js'

describe('the agents whose own word pk reads in a listing', () => {
  it("are those that keep it in a file (Claude Code), each a preset, read by its own folder's reader", () => {
    expect(Object.keys(OWN_STATE_READERS)).toEqual(['claude'])
    expect(OWN_STATE_READERS.claude).toBe(readClaudeRecord)
    for (const agent of Object.keys(OWN_STATE_READERS)) expect(BUILTIN_PRESETS.map((p) => p.name)).toContain(agent)
  })
})
