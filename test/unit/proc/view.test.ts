import {describe, expect, it} from 'vitest'

import {INITIAL_PID_NS, describeView, isInitial, judgeView, sameView} from '../../../src/lib/proc/view.js'
import {measureView, readView} from '../../../src/lib/proc/source.js'
import {readBootId, readPidNamespace} from '../../../src/lib/proc/reader.js'

const facts = {bootId: 'b-123456789', pidNs: '4026532000', nsPids: [7], pid1StartTime: 5}

describe('where this pk stands: boot and pid namespace', () => {
  it('is coherent only when /proc is of its own pid namespace', () => {
    expect(judgeView(facts)).toEqual({ok: true, view: {bootId: 'b-123456789', pidNs: '4026532000', pid1StartTime: 5}})
    expect(judgeView({...facts, nsPids: [4711, 7]})).toMatchObject({ok: false, reason: expect.stringMatching(/ancestor pid namespace \(NSpid: 4711 7\)/)})
    expect(judgeView({...facts, bootId: null})).toMatchObject({ok: false})
    expect(judgeView({...facts, nsPids: []})).toMatchObject({ok: false})
    expect(judgeView({...facts, pid1StartTime: null})).toMatchObject({ok: false, reason: 'cannot read /proc/1/stat'})
  })
  it('two views are the same only with the same boot, namespace and pid 1', () => {
    const view = {bootId: 'b', pidNs: INITIAL_PID_NS, pid1StartTime: 1}
    expect(sameView(view, {...view})).toBe(true)
    expect(sameView(view, {...view, pid1StartTime: 2})).toBe(false)
    expect(isInitial(view)).toBe(true)
    expect(describeView({...view, bootId: 'abcdef0123456789'})).toBe(`pid namespace ${INITIAL_PID_NS} (the initial one), boot abcdef01`)
  })
  it("reads this machine's view from the real /proc", () => {
    const measured = measureView()
    // The test runs in whatever namespace CI gives it; its view is then that namespace's.
    if (measured.ok) expect(measured.view).toMatchObject({bootId: readBootId(), pidNs: readPidNamespace('self')})
    const {view, measurement} = readView()
    expect(view.bootId).toBe(readBootId())
    expect(measurement.ok).toBe(measured.ok)
  })
})
