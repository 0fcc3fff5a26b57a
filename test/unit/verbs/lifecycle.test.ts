import {describe, expect, it} from 'vitest'

import {StoredRecord} from '../../../src/lib/registry/records.js'
import {planRestore} from '../../../src/lib/verbs/lifecycle.js'
import {resumableRow} from '../../helpers/fixtures.js'

const row = resumableRow
const stored = (id: string, over: object = {}): StoredRecord =>
  ({
    file: `${id}.json`,
    record: {
      version: 1,
      identity: {bootId: 'b0', pidNs: '1', pid: 1, startTime: 1},
      tmux: {socket: '/s/pk', paneId: '%1', sessionId: '$1', serverPid: 50},
      cwd: '/w',
      argv: ['claude'],
      agent: 'claude',
      label: null,
      createdAt: '',
      startedAt: null,
      conversationId: 'c1',
      status: null,
      ...over,
    },
  }) as StoredRecord

describe('planRestore (pure)', () => {
  it('brings back what a reboot or a dead server ended; leaves stopped, resumed and still-served sessions; says why it skips', () => {
    const rows = [
      row('aaaa0001'),
      row('aaaa0002', {exitReason: 'gone'}),
      row('aaaa0003'),
      row('aaaa0004'),
      row('aaaa0005', {resume: null}),
      row('aaaa0006', {state: 'idle'}),
      row('aaaa0007', {conflict: true}),
    ]
    const records = [
      stored('aaaa0001'),
      stored('aaaa0002'),
      stored('aaaa0003', {stopped: {at: 'x', signal: 'SIGTERM'}}),
      stored('aaaa0004', {resumedBy: 'bbbb0001'}),
      stored('aaaa0005', {conversationId: null}),
      stored('aaaa0006'),
      stored('aaaa0007'),
    ]
    const plan = planRestore(rows, records, [])
    expect(plan.restore.map((r) => r.id)).toEqual(['aaaa0001', 'aaaa0002'])
    expect(plan.skip.map((s) => s.row.id)).toEqual(['aaaa0005'])
    expect(plan.skip[0]!.reason).toMatch(/nothing to resume/)
    // Its server still runs (the same pid): the agent was quit there, not ended by the server's death.
    const alive = planRestore([row('aaaa0002', {exitReason: 'gone'})], [stored('aaaa0002')], [{socket: '/s/pk', status: 'ok', serverPid: 50} as never])
    expect(alive.restore).toEqual([])
  })
})
