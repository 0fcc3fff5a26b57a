import {describe, expect, it} from 'vitest'

import {pidNamespaceCheck} from '../../../../src/lib/doctor/checks/pid-namespace.js'
import {INITIAL_PID_NS} from '../../../../src/lib/proc/view.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'

const host = {bootId: 'boot-aaaaaaaa', pidNs: INITIAL_PID_NS, pid1StartTime: 1}
const container = {bootId: 'boot-aaaaaaaa', pidNs: '4026532999', pid1StartTime: 500}
const judge = (view: typeof host, owner: typeof host | null) => pidNamespaceCheck.judge(doctorFacts({view: {ok: true, view}, owner: {ok: true, owner}}))

describe('the pid-namespace check', () => {
  it('fails with no coherent view, or an owner file it cannot trust', () => {
    expect(pidNamespaceCheck.judge(doctorFacts({view: {ok: false, reason: 'NSpid disagrees'}, owner: {ok: true, owner: null}}))).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/NSpid disagrees/),
    })
    expect(pidNamespaceCheck.judge(doctorFacts({view: {ok: true, view: host}, owner: {ok: false, reason: 'owner.json is not JSON'}}))).toMatchObject({
      status: 'fail',
      fix: expect.stringMatching(/remove owner.json/),
    })
  })
  it('passes for no owner yet, the owner itself, and the host after a reboot', () => {
    expect(judge(host, null).status).toBe('pass')
    expect(judge(container, container)).toMatchObject({status: 'pass', message: expect.stringMatching(/this pk owns the state/)})
    expect(judge(host, {...container, bootId: 'boot-old'})).toMatchObject({status: 'pass', message: expect.stringMatching(/takes over/)})
  })
  it('warns a container that the state is read-only for it, and says how to get its own', () => {
    expect(judge(container, host)).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/read-only, nothing is paired by pid/),
      fix: expect.stringMatching(/PK_STATE_DIR/),
    })
    expect(judge(container, {...host, bootId: 'boot-old'})).toMatchObject({status: 'warn', fix: 'run pk on the host once to take the state over'})
  })
})
