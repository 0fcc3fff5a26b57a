import {describe, expect, it} from 'vitest'

import {childrenToWait} from '../../../src/lib/listing/watch.js'
import {listFor, waitIds} from '../../../src/lib/mcp/tools.js'
import {sessionRow} from '../../helpers/fixtures.js'

describe('children (pure)', () => {
  const rows = [
    sessionRow({id: 'a', parent: null}),
    sessionRow({id: 'b', parent: 'a', state: 'working'}),
    sessionRow({id: 'c', parent: 'a', state: 'exited'}),
    sessionRow({id: 'd', parent: 'b'}),
  ]
  it('a wait waits on the live children, and on the ended ones too for exited', () => {
    expect(childrenToWait('a', rows, 'idle')).toEqual(['b'])
    expect(childrenToWait('a', rows, 'exited')).toEqual(['b', 'c'])
    expect(childrenToWait('a', rows, 'any')).toEqual(['b', 'c'])
    expect(childrenToWait('d', rows, 'idle')).toEqual([])
  })
  it("wait_for's ids: given, the caller session's children, or those this server started", () => {
    const started = new Set<string>()
    expect(waitIds({ids: ['x']}, {session: 'a', pid: 1, startTime: 1, started})).toEqual({idArgs: ['x'], childrenOf: undefined})
    expect(waitIds({children: true}, {session: 'a', pid: 1, startTime: 1, started})).toEqual({idArgs: [], childrenOf: 'a'})
    expect(waitIds({children: true}, {session: null, pid: 1, startTime: 1, started: new Set(['q'])})).toEqual({idArgs: ['q'], childrenOf: undefined})
    expect(() => waitIds({children: true}, {session: null, pid: 1, startTime: 1, started})).toThrow(/no children/)
    expect(() => waitIds({}, {session: 'a', pid: 1, startTime: 1, started})).toThrow(/needs ids, or children/)
    expect(() => waitIds({ids: ['x'], children: true}, {session: 'a', pid: 1, startTime: 1, started})).toThrow(/not both/)
  })
  it("list_sessions' filters", () => {
    expect(listFor(rows, {children: true}, (r) => r.parent === 'a').map((r) => r.id)).toEqual(['b', 'c'])
    expect(listFor(rows, {state: 'working'}, () => false).map((r) => r.id)).toEqual(['b'])
  })
})
