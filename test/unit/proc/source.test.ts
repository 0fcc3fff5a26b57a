import {afterEach, describe, expect, it} from 'vitest'

import {chooseSource, procSource, processSource} from '../../../src/lib/proc/source.js'

describe('choosing the source', () => {
  it('takes /proc where it can be read, ps where not, and PK_PROCESS_SOURCE over both', () => {
    expect(chooseSource(undefined, true)).toBe('proc')
    expect(chooseSource('', false)).toBe('ps')
    expect(chooseSource('ps', true)).toBe('ps')
    expect(chooseSource('proc', false)).toBe('proc')
    expect(() => chooseSource('sysctl', true)).toThrow(/proc or ps/)
  })
})

describe('the source in use', () => {
  const before = process.env.PK_PROCESS_SOURCE
  afterEach(() => {
    if (before === undefined) delete process.env.PK_PROCESS_SOURCE
    else process.env.PK_PROCESS_SOURCE = before
  })

  it('follows PK_PROCESS_SOURCE, and both see this process the same way up to their clocks', () => {
    process.env.PK_PROCESS_SOURCE = 'ps'
    const ps = processSource()
    expect(ps).toMatchObject({name: 'ps', startResolutionMs: 1000})
    const byPs = ps.table().stat(process.pid)!
    process.env.PK_PROCESS_SOURCE = 'proc'
    expect(processSource()).toBe(procSource)
    const byProc = procSource.table().stat(process.pid)!
    expect(byPs).toMatchObject({pid: process.pid, ppid: byProc.ppid})
    // The same moment, read to the second by one and in hundredths after boot by the other.
    expect(Math.abs(ps.startDate(byPs.startTime)!.getTime() - procSource.startDate(byProc.startTime)!.getTime())).toBeLessThan(2000)
    expect(ps.measureView()).toMatchObject({ok: true, view: {pidNs: expect.stringMatching(/^ps:\d+$/)}})
  })
})
