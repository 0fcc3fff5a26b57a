import {execFileSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'

import {shellQuote} from '../../../src/lib/model/shell.js'

describe('shellQuote', () => {
  it('quotes words for a shell', () => {
    expect(shellQuote("it's here")).toBe(`'it'\\''s here'`)
    expect(shellQuote('%7')).toBe('%7')
    expect(shellQuote('')).toBe("''")
  })
  it('reads back as the same word in a real sh', () => {
    for (const word of ["it's", 'a b', '$HOME', '`x`', '', '-n', 'é\\n', '*', '%7']) {
      expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`], {encoding: 'utf8'})).toBe(word)
    }
  })
})
