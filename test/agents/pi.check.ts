import {pi} from './drivers.js'
import {agentCheck} from './scenario.js'
import {Session, failedTurn, plainTurn, start, stopAndResume, usageLimit, workingAndQueued} from './steps.js'

// Pi runs its tools without asking: no dialog to answer.
agentCheck(pi, (lab, step) => {
  const s: Session = {id: ''}
  start(step, lab, s, {fixture: 'start'})
  plainTurn(step, lab, s, /Done with the first turn/)
  workingAndQueued(step, lab, s, {fixture: 'streaming'})
  // A server error: Pi tries three times ("Retrying (n/3)", working), then gives up; told once, not per try.
  failedTurn(step, lab, s, {answer: 'error', status: 500}, /Retry failed after 3 attempts/, 120_000)
  // A rate limit (429) its own three tries did not get past: no reset shown.
  usageLimit(step, lab, s, {behavior: {answer: 'error', status: 429}, fixture: 'retry-failed', reset: null, what: /limit/, timeoutMs: 120_000})
  stopAndResume(step, lab, s, /Done after the resume/)
})
