import {describe, expect, it} from 'vitest'

import {SessionRow} from '../../../src/lib/model/correlate.js'
import {diffRows} from '../../../src/lib/listing/watch.js'

const row = (id: string, over: Partial<SessionRow> = {}): SessionRow => ({
  id, kind: 'recorded', agent: 'claude', label: null, state: 'working', stateSource: 'hook', attention: false, verified: true, conflict: false,
  pid: 1, cwd: '/home/u/app', command: ['claude'], startedAt: '2026-11-29T10:00:00Z', attached: false, resume: null, record: null, exitReason: null, agentSource: null, exitStatus: null, resumedBy: null, attentionSince: null, worktree: null, usage: null,
  tmux: {socket: '/s', session: id, sessionId: '$1', window: '@1', pane: '%1', lastAttached: null, lastDetached: null, activity: null}, ...over,
})

describe('watch events and the short format', () => {
  it('emits added, changed and removed, one per session, ignoring activity ticks', () => {
    const a = row('a')
    const b = row('b')
    const tick = {...a, tmux: {...a.tmux!, activity: 99}}
    expect(diffRows([a], [tick])).toEqual([])
    expect(diffRows([a], [{...a, state: 'waiting'}, b])).toEqual([{type: 'changed', session: {...a, state: 'waiting'}}, {type: 'added', session: b}])
    expect(diffRows([a, b], [b])).toEqual([{type: 'removed', id: 'a'}])
  })
})
