import {gemini} from './drivers.js'
import {agentCheck} from './scenario.js'
import {Session, failedTurn, permission, plainTurn, start, stopAndResume, usageLimit, workingAndQueued} from './steps.js'

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
  // Its quota (429, RESOURCE_EXHAUSTED, "Please retry in 3600s."): its dialog, the reset in it; no hook tells
  // it, the check's watcher sees it. pk continue chooses its Keep trying.
  usageLimit(step, lab, s, {
    behavior: {answer: 'error', status: 429, message: 'You exceeded your current quota. Please retry in 3600s.'},
    fixture: 'usage-limit',
    reset: 'shown',
    what: /limit/,
    timeoutMs: 120_000,
  })
  stopAndResume(step, lab, s, /Done after the resume/)
})
