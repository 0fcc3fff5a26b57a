import {createHash, randomBytes} from 'node:crypto'
import {describe, expect, it} from 'vitest'

import {ownSha256Hex, sha256Hex} from '../../../src/lib/model/sha256.js'

const nodeSha = (text: string) => createHash('sha256').update(text).digest('hex')

describe('ownSha256Hex and sha256Hex', () => {
  it("is FIPS 180-4's SHA-256: the standard's examples", () => {
    expect(ownSha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    expect(ownSha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(ownSha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1')
  })

  it('equals node:crypto on every length across block boundaries, on random text and on non-ASCII text', () => {
    for (let n = 0; n < 300; n++) {
      const ascii = 'x'.repeat(n)
      expect({n, hex: ownSha256Hex(ascii)}).toEqual({n, hex: nodeSha(ascii)})
    }
    for (let i = 0; i < 2000; i++) {
      const text = randomBytes(i % 97).toString('base64') + (i % 3 === 0 ? 'é€😀\u0000' : '')
      expect({text, hex: ownSha256Hex(text)}).toEqual({text, hex: nodeSha(text)})
      // (and whichever sha256Hex takes, its first calls' or node:crypto's)
      expect({text, hex: sha256Hex(text)}).toEqual({text, hex: nodeSha(text)})
    }
    // What ids are made of: boot id, pid namespace, pid and start time.
    const key = 'd0e8a4d4-6f2a-4a8e-9c1b-3f0c9a1b2c3d/4026531836/4190001/123456789'
    expect(sha256Hex(key)).toBe(nodeSha(key))
  })
})
