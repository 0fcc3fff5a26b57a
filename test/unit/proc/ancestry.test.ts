import {describe, expect, it} from 'vitest'

import {MAX_ANCESTRY, ancestry, findUp} from '../../../src/lib/proc/ancestry.js'

describe('ancestry', () => {
  const stats = new Map([
    [40, {ppid: 30, startTime: 400}],
    [30, {ppid: 20, startTime: 300}],
    [20, {ppid: 10, startTime: 200}],
    [10, {ppid: 5, startTime: 100}],
  ])
  const chain = ancestry(40, (pid) => stats.get(pid) ?? null)
  it('walks parents up to pid 1', () => {
    expect(chain.map((l) => l.pid)).toEqual([40, 30, 20, 10])
  })
  it('stops at a loop, at a vanished parent, and after its limit', () => {
    const loop = new Map([
      [7, {ppid: 8, startTime: 1}],
      [8, {ppid: 7, startTime: 2}],
    ])
    expect(ancestry(7, (pid) => loop.get(pid) ?? null).length).toBeLessThanOrEqual(MAX_ANCESTRY)
    expect(ancestry(99, () => null)).toEqual([])
    const long = (pid: number) => ({ppid: pid + 1, startTime: pid})
    expect(ancestry(2, long, 5)).toHaveLength(5)
  })
  it('finds the nearest ancestor a visitor accepts', () => {
    expect(
      findUp(
        40,
        (pid) => stats.get(pid) ?? null,
        (pid) => (pid === 20 || pid === 10 ? `p${pid}` : null),
      ),
    ).toBe('p20')
    expect(
      findUp(
        40,
        (pid) => stats.get(pid) ?? null,
        () => null,
      ),
    ).toBeNull()
  })
})
