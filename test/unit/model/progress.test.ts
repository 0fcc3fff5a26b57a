import {describe, expect, it} from 'vitest'

import {eachWithProgress, Progress} from '../../../src/lib/model/progress.js'

describe('eachWithProgress', () => {
  it('works through every item in order, tells progress of each, and a failure does not stop the rest', async () => {
    const told: unknown[] = []
    const progress: Progress = {begin: (titles) => told.push(['begin', ...titles]), end: (i, outcome) => told.push([i, outcome])}
    const done: number[] = []
    const results = await eachWithProgress(
      [1, 2, 3],
      (n) => `item ${n}`,
      async (n) => {
        done.push(n)
        if (n === 2) throw new Error('two fails')
        return n * 10
      },
      progress,
      (v) => `got ${v}`,
    )
    expect(done).toEqual([1, 2, 3])
    expect(results.map((r) => (r.ok ? r.value : (r.error as Error).message))).toEqual([10, 'two fails', 30])
    expect(told).toEqual([
      ['begin', 'item 1', 'item 2', 'item 3'],
      [0, {detail: 'got 10'}],
      [1, {error: 'two fails'}],
      [2, {detail: 'got 30'}],
    ])
  })
  it('draws nothing for no items', async () => {
    let begun = false
    await eachWithProgress([], String, async () => 0, {begin: () => (begun = true), end: () => {}})
    expect(begun).toBe(false)
  })
})
