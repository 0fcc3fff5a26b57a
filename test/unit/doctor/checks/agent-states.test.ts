import {describe, expect, it} from 'vitest'

import {agentStatesCheck} from '../../../../src/lib/doctor/checks/agent-states.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'

describe('the agent-states check', () => {
  it("counts the sessions read from their agent's own record, and warns of a record not believed or a screen that disagrees", () => {
    expect(agentStatesCheck.judge(doctorFacts({})).status).toBe('skip')
    expect(agentStatesCheck.judge(doctorFacts({agentStates: {read: 0, problems: []}}))).toMatchObject({status: 'pass', message: /no session/})
    expect(agentStatesCheck.judge(doctorFacts({agentStates: {read: 3, problems: []}}))).toMatchObject({
      status: 'pass',
      message: "3 session(s) read from their agent's own record",
    })
    const refused = agentStatesCheck.judge(
      doctorFacts({
        agentStates: {read: 0, problems: [{code: 'own-state-refused', message: "claude's own record of session ab is not believed: x is a symbolic link"}]},
      }),
    )
    expect(refused).toMatchObject({status: 'warn', message: /symbolic link/, fix: /chmod go-w/})
    const disagrees = agentStatesCheck.judge(
      doctorFacts({agentStates: {read: 1, problems: [{code: 'state-disagrees', message: 'claude in ab says it is working'}]}}),
    )
    expect(disagrees).toMatchObject({status: 'warn', fix: /npm run agents -- --latest/})
  })
})
