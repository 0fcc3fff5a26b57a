import {describe, expect, it} from 'vitest'

import {orphanInodes} from '../../../src/lib/doctor/orphans.js'

describe('orphaned tmux servers', () => {
  it('finds listening inodes that no socket file leads to', () => {
    const listening = new Map([
      ['/s/pk', new Set(['1', '2'])],
      ['/elsewhere', new Set(['3'])],
    ])
    const exists = (p: string) => p !== '/s/gone'
    expect(orphanInodes(listening, (p) => p.startsWith('/s/'), new Map([['/s/pk', new Set(['2'])]]), exists)).toEqual([
      {path: '/s/pk', inode: '1', reason: 'socket-taken'},
    ])
    // No verified server answered at the path: which listener the file leads to is unknown, so none is an orphan.
    expect(orphanInodes(listening, (p) => p.startsWith('/s/'), new Map(), exists)).toEqual([])
    expect(orphanInodes(new Map([['/s/one', new Set(['7'])]]), () => true, new Map(), exists)).toEqual([])
    expect(orphanInodes(new Map([['/s/gone', new Set(['8'])]]), () => true, new Map(), exists)).toEqual([
      {path: '/s/gone', inode: '8', reason: 'socket-missing'},
    ])
  })
})
