import {describe, expect, it} from 'vitest'

import {CHECKS, failed, judgeAll} from '../../../src/lib/doctor/index.js'
import {doctorFacts} from '../../helpers/doctor-facts.js'

describe('pk doctor', () => {
  it('runs each check once, in order, under a unique id', () => {
    const facts = doctorFacts({
      servers: [],
      serverPaths: new Map(),
      records: [],
      recordProblems: [],
      conflicts: [],
      earlierBoot: [],
      restorable: 0,
      state: {path: '/s', exists: false, verdict: null, sessionsVerdict: null},
      view: {ok: true, view: {bootId: 'b', pidNs: '4026531836', pid1StartTime: 1}},
      owner: {ok: true, owner: null},
    })
    const results = judgeAll(facts)
    expect(results.map((r) => r.id)).toEqual(CHECKS.map((c) => c.id))
    expect(new Set(results.map((r) => r.id)).size).toBe(CHECKS.length)
    for (const r of results) expect(r.title).toBe(CHECKS.find((c) => c.id === r.id)!.title)
  })
  it('fails when any check fails, and only then (a warning is not a failure)', () => {
    const result = (status: 'pass' | 'warn' | 'fail') => ({id: 'x', title: 'x', status, message: '', fix: null, fixable: false})
    expect(failed({checks: [result('pass'), result('warn')], fixes: []})).toBe(false)
    expect(failed({checks: [result('pass'), result('fail')], fixes: []})).toBe(true)
  })
})
