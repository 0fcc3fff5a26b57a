import {opencode} from './drivers.js'
import {agentCheck} from './scenario.js'
import {Session, failedTurn, permission, plainTurn, start, stopAndResume, workingAndQueued} from './steps.js'

agentCheck(opencode, (lab, step) => {
  const s: Session = {id: ''}
  start(step, lab, s, {fixture: 'start'})
  plainTurn(step, lab, s, /Done with the first turn/)
  workingAndQueued(step, lab, s)
  // opencode asks before bash runs ("permission": {"bash": "ask"}); Allow always is confirmed once more.
  const means = ['yes', 'always', 'no']
  permission(step, lab, s, 'yes', {file: 'by-yes', means, fixture: 'permission'})
  permission(step, lab, s, 'no', {file: null, means})
  permission(step, lab, s, 'always', {file: 'by-always', means})
  failedTurn(step, lab, s, {answer: 'error', status: 400}, /fake error 400|Bad Request|error/i, 120_000)
  stopAndResume(step, lab, s, /Done after the resume/)
})
