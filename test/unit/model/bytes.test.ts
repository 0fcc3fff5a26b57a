import {describe, expect, it} from 'vitest'

/**
 * A machine: pane shells 10 and 20 (two Codex windows, 11 and 21, in /w), the first window's app-server
 * daemon 12 (which runs every window's notify), a Claude in pane 30 (31), a plain pane 40.
 */

describe('bytes that are not UTF-8 (issue #21, item 15)', () => {
  it('are carried exactly through strings and back', async () => {
    const {fromBytes, toBytes, hasEscapedBytes} = await import('../../../src/lib/model/bytes.js')
    for (const bytes of [
      Buffer.from([0x61, 0xff, 0x62]),
      Buffer.from('café', 'latin1'),
      Buffer.from('plain é 🙂', 'utf8'),
      Buffer.from([0xc3]),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from([0xc0, 0xaf]),
    ]) {
      const text = fromBytes(bytes)
      expect(toBytes(text).equals(bytes), bytes.toString('hex')).toBe(true)
    }
    expect(fromBytes(Buffer.from('plain é 🙂', 'utf8'))).toBe('plain é 🙂')
    expect(hasEscapedBytes(fromBytes(Buffer.from([0xff])))).toBe(true)
  })
})
