import {describe, expect, it} from 'vitest'

import {closestWord, editDistance} from '../../../src/lib/cli/suggest.js'

describe('suggesting a command for a typo', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('', '')).toBe(0)
    expect(editDistance('ls', 'lss')).toBe(1)
    expect(editDistance('stop', 'spot')).toBe(2)
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(editDistance('abc', '')).toBe(3)
  })
  it('offers the closest command only when it is close', () => {
    const commands = ['ls', 'stop', 'start', 'send', 'attach', 'logs']
    expect(closestWord('lss', commands)).toBe('ls')
    expect(closestWord('atach', commands)).toBe('attach')
    expect(closestWord('xyzzyplugh', commands)).toBeNull()
    expect(closestWord('x', [])).toBeNull()
  })
})
