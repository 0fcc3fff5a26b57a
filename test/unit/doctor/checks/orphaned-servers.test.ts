import {describe, expect, it} from 'vitest'

import {orphanedServersCheck} from '../../../../src/lib/doctor/checks/orphaned-servers.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'

describe('the orphaned-servers check', () => {
  it('explains orphaned servers in plain words', () => {
    const result = orphanedServersCheck.judge(doctorFacts({orphans: [{pid: 42, socket: '/s/pk', reason: 'socket-missing', panes: 3, recordedPanes: 2}]}))
    expect(result).toMatchObject({
      status: 'fail',
      fixable: true,
      message: 'your sessions are alive but unreachable: tmux server pid 42 still runs 3 pane(s) (2 pk session(s)), but its socket /s/pk was deleted',
    })
    const taken = orphanedServersCheck.judge(doctorFacts({orphans: [{pid: 42, socket: '/s/pk', reason: 'socket-taken', panes: 1, recordedPanes: 0}]}))
    expect(taken.fixable).toBe(false)
  })
})
