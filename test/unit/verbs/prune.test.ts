import {describe, expect, it} from 'vitest'

import {planPrune} from '../../../src/lib/verbs/prune.js'
import {SessionRow} from '../../../src/lib/model/contract.js'
import {pane, sampleRecord, server, sessionRow} from '../../helpers/fixtures.js'

describe('planPrune', () => {
  const row = (over: Partial<SessionRow>): SessionRow =>
    sessionRow({
      agent: null,
      state: 'exited',
      stateSource: 'process',
      verified: false,
      pid: 10,
      tmux: null,
      record: '/st/a.json',
      exitReason: 'gone',
      ...over,
    })
  const record = sampleRecord({
    identity: {bootId: 'b', pidNs: '1', pid: 10, startTime: 1},
    tmux: {socket: '/s/pk', paneId: '%3', sessionId: '$1', serverPid: 5},
  })

  it('removes ended records and their dead panes; keeps live, resumable and conflicting ones', () => {
    const rows = [
      row({}),
      row({id: 'b', record: '/st/b.json', resume: ['claude', '--resume', 'x']}),
      row({id: 'c', record: '/st/c.json', conflict: true}),
      row({id: 'd', record: '/st/d.json', state: 'unknown', exitReason: null, verified: true}),
      row({id: 'e', kind: 'pane', record: null}),
    ]
    const servers = [
      server('/s/pk', [pane({paneId: '%3', panePid: 10, dead: true}), pane({paneId: '%4', panePid: 11, dead: true})]),
      server('/s/old', [], {status: 'stale-socket', verified: false}),
    ]
    const plan = planPrune({rows, servers, records: [{file: '/st/a.json', record}]}, {includeResumable: false})
    expect(plan.remove.map((i) => `${i.kind} ${i.target}`)).toEqual(['record /st/a.json', 'pane /s/pk %3', 'socket /s/old'])
    expect(plan.keep.map((k) => `${k.id} ${k.reason}`)).toEqual(['b resumable', 'c conflict'])
    const all = planPrune({rows, servers, records: []}, {includeResumable: true})
    expect(all.remove.map((i) => i.target)).toContain('/st/b.json')
  })

  it('does not take a dead pane of another server instance', () => {
    const servers = [server('/s/pk', [pane({paneId: '%3', panePid: 10, dead: true, serverPid: 6})], {serverPid: 6})]
    const plan = planPrune({rows: [row({})], servers, records: [{file: '/st/a.json', record}]}, {includeResumable: false})
    expect(plan.remove.map((i) => i.kind)).toEqual(['record'])
  })
})
