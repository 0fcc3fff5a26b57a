import {describe, expect, it} from 'vitest'

import {closestWord, editDistance, didYouMean, usageLine} from '../../../src/lib/cli/suggest.js'

describe('suggesting a command for a typo', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('', '')).toBe(0)
    expect(editDistance('ls', 'lss')).toBe(1)
    expect(editDistance('stop', 'spot')).toBe(2)
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(editDistance('abc', '')).toBe(3)
    // Two neighbours swapped, the commonest typo, is one edit.
    expect(editDistance('sl', 'ls')).toBe(1)
    expect(editDistance('sl', 'bg')).toBe(2)
    expect(editDistance('stpo', 'stop')).toBe(1)
  })
  it('offers the closest command only when it is close', () => {
    const commands = ['ls', 'bg', 'stop', 'start', 'send', 'attach', 'logs']
    expect(closestWord('lss', commands)).toBe('ls')
    expect(closestWord('sl', commands)).toBe('ls')
    expect(closestWord('atach', commands)).toBe('attach')
    expect(closestWord('xyzzyplugh', commands)).toBeNull()
    expect(closestWord('x', [])).toBeNull()
  })
})

describe("usageLine: oclif's usage errors in pk's words (issue 39)", () => {
  const flags = ['json', 'timeout', 'for', 'all', 'any']
  it('names the flag a typo was probably meant for, and says a bad number plainly', () => {
    expect(usageLine('Nonexistent flag: --jsno\nSee more help with --help', flags)).toBe('unknown flag --jsno; did you mean --json?')
    // (the meaning, not the spelling: pk serve --port means --listen, though --host is closer by its letters)
    expect(usageLine('Nonexistent flag: --port', ['listen', 'host', 'url', 'fleet'])).toBe('unknown flag --port; did you mean --listen?')
    expect(usageLine('Nonexistent flag: --port=8080', ['listen', 'host'])).toBe('unknown flag --port=8080; did you mean --listen?')
    expect(usageLine('Nonexistent flag: --zzzzzz', flags)).toBe('unknown flag --zzzzzz')
    expect(usageLine('Parsing --timeout \n\tExpected an integer but received: x\nSee more help with --help', flags)).toBe(
      '--timeout takes a whole number, not "x"',
    )
    expect(usageLine('Parsing --timeout \n\tExpected an integer greater than or equal to 0 but received: -1', flags)).toBe(
      '--timeout takes a whole number greater than or equal to 0, not "-1"',
    )
  })
  it("drops oclif's preamble and says an exclusive pair once", () => {
    const both = 'The following errors occurred:\n  --all=true cannot also be provided when using --any\n  --any=true cannot also be provided when using --all'
    expect(usageLine(both, flags)).toBe('--all and --any do not go together')
    expect(usageLine('The following error occurred:\n  All of the following must be provided when using --conversation: --handoff', flags)).toBe(
      'All of the following must be provided when using --conversation: --handoff',
    )
    expect(usageLine('Missing 1 required arg:\nid  session id', flags)).toBe('Missing 1 required arg: id')
    expect(didYouMean('cluade', ['claude', 'codex'])).toBe(' (did you mean claude?)')
    expect(didYouMean('zzzzzzzzz', ['claude', 'codex'])).toBe('')
  })
})
