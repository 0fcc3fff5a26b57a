import {describe, expect, it} from 'vitest'

import {recordedOfChain, sessionOfChain} from '../../../src/lib/listing/caller.js'
import {sessionIdOf} from '../../../src/lib/proc/identity.js'
import {sessionRow} from '../../helpers/fixtures.js'

const view = {bootId: 'boot', pidNs: '4026531836'}
const idOf = (pid: number, startTime: number) => sessionIdOf({...view, pid, startTime})

describe('the caller, by process identity (pure)', () => {
  const agent = sessionRow({id: idOf(100, 7), pid: 100, state: 'idle'})
  it('is the nearest ancestor that is a live session process, by pid and start time', () => {
    const chain = [
      {pid: 300, startTime: 9},
      {pid: 200, startTime: 8},
      {pid: 100, startTime: 7},
    ]
    expect(sessionOfChain(chain, view, [agent])?.id).toBe(agent.id)
    // The same pid with another start time is another process (a reused pid): no session.
    expect(sessionOfChain([{pid: 100, startTime: 99}], view, [agent])).toBeNull()
    expect(sessionOfChain(chain, view, [{...agent, conflict: true}])).toBeNull()
    expect(sessionOfChain(chain, view, [{...agent, state: 'exited'}])).toBeNull()
  })
  it('names no session above a process that serves several (Codex app-server)', () => {
    expect(
      sessionOfChain(
        [
          {pid: 300, startTime: 9, shared: true},
          {pid: 100, startTime: 7},
        ],
        view,
        [agent],
      ),
    ).toBeNull()
    expect(
      recordedOfChain(
        [
          {pid: 300, startTime: 9, shared: true},
          {pid: 100, startTime: 7},
        ],
        view,
        [agent.id],
      ),
    ).toBeNull()
  })
  it('by records: exactly one record names it; two is a conflict, nobody', () => {
    expect(
      recordedOfChain(
        [
          {pid: 300, startTime: 9},
          {pid: 100, startTime: 7},
        ],
        view,
        [agent.id, 'ffffffff'],
      ),
    ).toBe(agent.id)
    expect(recordedOfChain([{pid: 100, startTime: 7}], view, [agent.id, agent.id])).toBeNull()
    expect(recordedOfChain([{pid: 100, startTime: 7}], {...view, bootId: 'other'}, [agent.id])).toBeNull()
  })
})
