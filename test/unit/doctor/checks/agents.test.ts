import {describe, expect, it} from 'vitest'

import {agentsCheck} from '../../../../src/lib/doctor/checks/agents.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'

describe('the agents check', () => {
  it('names the release of each agent on PATH, and warns of one pk is not verified on', () => {
    expect(agentsCheck.judge(doctorFacts({})).status).toBe('pass')
    const verified = agentsCheck.judge(doctorFacts({agentReleases: [{agent: 'claude', path: '/u/bin/claude', release: '2.1.337'}]}))
    expect(verified).toMatchObject({status: 'pass', message: 'claude 2.1.337: verified'})
    const newer = agentsCheck.judge(
      doctorFacts({
        agentReleases: [
          {agent: 'claude', path: '/u/bin/claude', release: '2.1.340'},
          {agent: 'codex', path: '/u/bin/codex', release: '0.171.0'},
          {agent: 'pi', path: '/opt/pi', release: null},
        ],
      }),
    )
    expect(newer.status).toBe('warn')
    expect(newer.message).toBe(
      'claude 2.1.340: newer than the newest release pk is verified on (2.1.337): working, waiting and idle come from its own record of itself; limits and dialogs, read from its screen, may be misread; codex 0.171.0: verified; pi at /opt/pi: its release is not known (not installed from npm)',
    )
  })
})
