import {gemini} from './drivers.js'
import {agentCheck} from './scenario.js'
import {Session, failedTurn, permission, plainTurn, start, stopAndResume, workingAndQueued} from './steps.js'

agentCheck(gemini, (lab, step) => {
  const s: Session = {id: ''}
  start(step, lab, s)
  plainTurn(step, lab, s, /Done with the first turn/)
  workingAndQueued(step, lab, s)
  // Gemini CLI asks before it runs a shell command (its Notification hook: ToolPermission).
  const means = ['yes', 'always', 'no']
  permission(step, lab, s, 'yes', {file: 'by-yes', means, fixture: 'permission'})
  permission(step, lab, s, 'no', {file: null, means})
  permission(step, lab, s, '1', {file: 'by-number', means})
  // (a key Gemini takes for one fails the turn at once; a server error it retries for minutes)
  failedTurn(step, lab, s, {answer: 'error', status: 401}, /API Error/)
  stopAndResume(step, lab, s, /Done after the resume/)
})
