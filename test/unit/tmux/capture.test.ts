import {describe, expect, it} from 'vitest'

import {splitCaptures} from '../../../src/lib/tmux/capture.js'

describe('splitting one capture call into screens', () => {
  it('gives each pane its own screen, past %10, and nothing to a pane whose marker is missing', () => {
    const out = ['@@pk-capture n1 %9@@', 'nine', '', '@@pk-capture n1 %10@@', 'ten', '@@pk-capture n1 %11@@', '@@pk-capture other %12@@', 'twelve?'].join('\n')
    const screens = splitCaptures(out, 'n1')
    expect([...screens.keys()]).toEqual(['%9', '%10', '%11'])
    expect(screens.get('%9')).toBe('nine\n')
    expect(screens.get('%10')).toBe('ten')
    // A marker with another nonce is screen text, not a separator.
    expect(screens.get('%11')).toBe('@@pk-capture other %12@@\ntwelve?')
  })

  it('a marker that strftime mangled is not taken for one', () => {
    expect(splitCaptures('@@pk-capture n1   %5@@\ntext', 'n1').size).toBe(0)
  })
})
