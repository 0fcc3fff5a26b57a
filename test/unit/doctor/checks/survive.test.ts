import {describe, expect, it} from 'vitest'

import {surviveCheck} from '../../../../src/lib/doctor/checks/survive.js'
import {DoctorFacts} from '../../../../src/lib/doctor/types.js'

describe('the survive check', () => {
  const facts = (over: Partial<DoctorFacts>) => ({restorable: 0, ...over}) as DoctorFacts
  const login = {systemd: true, killUserProcesses: null, linger: false, user: 'me'}
  it('says what the machine does, and the command that changes it', () => {
    expect(surviveCheck.judge(facts({login, autostart: {installed: null, last: null}}))).toMatchObject({status: 'pass', fix: 'pk setup autostart'})
    const killing = surviveCheck.judge(facts({login: {...login, killUserProcesses: true}, autostart: {installed: 'systemd', last: null}}))
    expect(killing).toMatchObject({status: 'warn', fix: expect.stringContaining('loginctl enable-linger me')})
    const failed = surviveCheck.judge(
      facts({login: {...login, linger: true}, autostart: {installed: 'cron', last: {at: 'then', ok: false, summary: '0 restored, 0 skipped, 1 failed'}}}),
    )
    expect(failed).toMatchObject({status: 'warn', message: expect.stringMatching(/FAILED/)})
  })
})
