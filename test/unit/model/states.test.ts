import {describe, expect, it} from 'vitest'

import {HOOK_STATES, RULE_STATES, STATES, isOneOf} from '../../../src/lib/model/states.js'

describe('states', () => {
  it('a hook may report every state but unknown; a pane rule only what a screen can show', () => {
    expect(HOOK_STATES.every((s) => isOneOf(STATES, s))).toBe(true)
    expect(isOneOf(HOOK_STATES, 'unknown')).toBe(false)
    expect(isOneOf(RULE_STATES, 'exited')).toBe(false)
  })
  it('checks untrusted values of any type', () => {
    expect(isOneOf(STATES, 'idle')).toBe(true)
    for (const value of ['Idle', '', null, undefined, 3, ['idle'], {}]) expect(isOneOf(STATES, value)).toBe(false)
  })
})
