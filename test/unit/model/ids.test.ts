import {describe, expect, it} from 'vitest'

import {PaneId, TmuxSessionId, isPaneId, isTmuxSessionId, isWindowId} from '../../../src/lib/model/ids.js'
import {captureKey} from '../../../src/lib/listing/status.js'

describe("tmux's ids", () => {
  it('are told apart by their shape', () => {
    expect(['%0', '%12', '$3', '@4', '%', '%1a', ' %1', 'ab12cd34'].map((s) => [isPaneId(s), isTmuxSessionId(s), isWindowId(s)])).toEqual([
      [true, false, false],
      [true, false, false],
      [false, true, false],
      [false, false, true],
      [false, false, false],
      [false, false, false],
      [false, false, false],
      [false, false, false],
    ])
  })
  it('cannot be handed one for another, or for a session id, without a compile error', () => {
    const session: TmuxSessionId = '$1'
    const pkId: string = 'ab12cd34'
    // @ts-expect-error a tmux session id is not a pane id
    captureKey('/s', session)
    // @ts-expect-error nor is pk's own session id
    captureKey('/s', pkId)
    const pane: PaneId = '%12'
    expect(captureKey('/s', pane)).toBe('/s\0%12')
  })
})
