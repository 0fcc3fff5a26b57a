import {afterEach, describe, expect, it, vi} from 'vitest'

afterEach(() => {
  vi.unstubAllEnvs()
  vi.resetModules()
})

describe('bench timings', () => {
  it('cost nothing and print nothing unless the benchmark asks', async () => {
    vi.stubEnv('PK_BENCH_TIMINGS', '')
    const timings = await import('../../../src/lib/cli/timings.js')
    timings.mark('view')
    expect(timings.measuring).toBe(false)
    expect(timings.timingsLine()).toBeNull()
  })
  it('add up the time of each phase, as one line for the command layer to print', async () => {
    vi.stubEnv('PK_BENCH_TIMINGS', '1')
    const timings = await import('../../../src/lib/cli/timings.js')
    timings.mark('view')
    timings.mark('records')
    timings.mark('view')
    const line = timings.timingsLine()!
    expect(line).toMatch(/^pk-timings \{.*\}\n$/)
    const marks = JSON.parse(line.slice('pk-timings '.length)) as Record<string, number>
    expect(Object.keys(marks)).toEqual(['start', 'view', 'records'])
    for (const ms of Object.values(marks)) expect(ms).toBeGreaterThanOrEqual(0)
  })
})
