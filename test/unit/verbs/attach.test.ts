import {describe, expect, it} from 'vitest'

import {checkAttachable} from '../../../src/lib/verbs/attach.js'
import {SessionRow} from '../../../src/lib/model/contract.js'
import {exitCodeOf, sessionRow} from '../../helpers/fixtures.js'

/** A row with this id, as the lookups see it. */
const row = (id: string, over: Partial<SessionRow> = {}): SessionRow => sessionRow({id, agent: null, command: ['x'], record: null, ...over})
const exitOf = exitCodeOf

describe('checkAttachable', () => {
  it('refuses conflicts (4), exited sessions (3) and unverified ones (5)', () => {
    expect(exitOf(() => checkAttachable(row('a', {conflict: true, verified: false})))).toBe(4)
    expect(exitOf(() => checkAttachable(row('a', {state: 'exited', tmux: null})))).toBe(3)
    expect(exitOf(() => checkAttachable(row('a', {verified: false})))).toBe(5)
    expect(exitOf(() => checkAttachable(row('a')))).toBeUndefined()
  })
})
