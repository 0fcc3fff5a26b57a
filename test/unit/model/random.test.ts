import {describe, expect, it} from 'vitest'

import {randomBytes} from '../../../src/lib/model/random.js'

describe('randomBytes', () => {
  it('gives as many bytes as asked, different each time (node:crypto, loaded at the first call)', () => {
    const a = randomBytes(16)
    const b = randomBytes(16)
    expect([a.length, b.length, randomBytes(0).length]).toEqual([16, 16, 0])
    expect(a.equals(b)).toBe(false)
  })
})
