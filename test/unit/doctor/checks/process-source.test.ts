import {describe, expect, it} from 'vitest'

import {pidNamespaceCheck} from '../../../../src/lib/doctor/checks/pid-namespace.js'
import {processSourceCheck} from '../../../../src/lib/doctor/checks/process-source.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'

describe('the process-source check', () => {
  it('says which source reads the processes, and whether PK_PROCESS_SOURCE chose it', () => {
    expect(processSourceCheck.judge(doctorFacts({processSource: {name: 'proc', forced: false, lsof: false}}))).toMatchObject({
      status: 'pass',
      message: 'processes are read from /proc',
    })
    expect(processSourceCheck.judge(doctorFacts({processSource: {name: 'ps', forced: false, lsof: true}}))).toMatchObject({
      status: 'pass',
      message: expect.stringMatching(/with ps .*no \/proc; lsof verifies tmux servers/),
    })
  })

  it('warns when the ps source has no lsof: no server can be verified', () => {
    expect(processSourceCheck.judge(doctorFacts({processSource: {name: 'ps', forced: true, lsof: false}}))).toMatchObject({status: 'warn', fix: 'install lsof'})
  })
})

describe('the pid-namespace check where there are no pid namespaces', () => {
  const mac = {bootId: 'boottime:1764620835.012345', pidNs: 'ps', pid1StartTime: 1764620835}

  it('is not applicable (skipped, and says so), never a silent pass', () => {
    expect(pidNamespaceCheck.judge(doctorFacts({view: {ok: true, view: mac}, owner: {ok: true, owner: mac}}))).toMatchObject({
      status: 'skip',
      message: expect.stringMatching(/not applicable/),
    })
    expect(pidNamespaceCheck.judge(doctorFacts({view: {ok: true, view: mac}, owner: {ok: true, owner: null}}))).toMatchObject({status: 'skip'})
  })

  it('still says when the state belongs to the other source', () => {
    const proc = {bootId: mac.bootId, pidNs: '4026531836', pid1StartTime: 1}
    expect(pidNamespaceCheck.judge(doctorFacts({view: {ok: true, view: mac}, owner: {ok: true, owner: proc}}))).toMatchObject({status: 'warn'})
  })
})
