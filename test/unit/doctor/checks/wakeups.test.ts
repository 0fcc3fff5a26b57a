import {describe, expect, it} from 'vitest'

import {wakeupsCheck} from '../../../../src/lib/doctor/checks/wakeups.js'
import {DoctorFacts} from '../../../../src/lib/doctor/types.js'

describe('the wake-ups check', () => {
  const facts = (wakeups: DoctorFacts['wakeups']) => ({wakeups}) as DoctorFacts
  const at = '2026-12-07T05:21:30.000Z'
  it('lists each, and warns of a sleeping pk that is gone while its session lives', () => {
    expect(wakeupsCheck.judge(facts([]))).toMatchObject({status: 'pass', message: 'none arranged'})
    const fine = wakeupsCheck.judge(facts([{id: '0a1b2c3d', kind: 'systemd', at, pid: null, alive: null, sessionLive: true}]))
    expect(fine).toMatchObject({status: 'pass', message: `session 0a1b2c3d at ${at} by a systemd user timer`})
    const lost = wakeupsCheck.judge(
      facts([
        {id: '0a1b2c3d', kind: 'sleeper', at, pid: 42, alive: false, sessionLive: true},
        {id: 'ffffffff', kind: 'sleeper', at, pid: 43, alive: false, sessionLive: false},
      ]),
    )
    expect(lost).toMatchObject({status: 'warn', fix: 'pk continue 0a1b2c3d --at TIME (or pk continue 0a1b2c3d now)'})
    expect(lost.message).toMatch(/pid 42\), gone; session ffffffff .*\(the session is over/)
  })
  it('a sleeper gone once its session moved past that limit (Claude continued by itself) is no warning (issue 70)', () => {
    const past = wakeupsCheck.judge(facts([{id: '0a1b2c3d', kind: 'sleeper', at, pid: 42, alive: false, sessionLive: true, stillAtLimit: false}]))
    expect(past).toMatchObject({status: 'pass', fix: null, message: expect.stringMatching(/past that limit: nothing to do/)})
  })
})
