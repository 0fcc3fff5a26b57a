import {describe, expect, it} from 'vitest'

import {usageText} from '../../../src/lib/present/usage.js'

const line = (key: string, over: object = {}) => ({
  key,
  sessions: 1,
  input: 1200,
  output: 350,
  cacheRead: 20_000,
  cacheWrite: 0,
  cost: 0.5,
  unpriced: [],
  ...over,
})

describe('pk usage for people', () => {
  it('a line per key, aligned, with the total only when there are several', () => {
    expect(usageText([line('ab12cd3')], line('total')).stdout).toBe('ab12cd3     in   1.2k  out    350  cache    20k  $0.50\n')
    const two = usageText([line('claude'), line('codex', {cost: null, unpriced: ['gpt-9']})], line('total', {cost: null, unpriced: ['gpt-9']})).stdout.split(
      '\n',
    )
    expect(two).toHaveLength(4)
    expect(two[1]).toMatch(/^codex .*\? \(unpriced: gpt-9\)$/)
    expect(two[2]).toMatch(/^total /)
  })
  it('says why there is nothing, on stderr', () => {
    expect(usageText([], null)).toEqual({stdout: '', stderr: expect.stringMatching(/^no usage known: .*pk setup AGENT/)})
  })
})
