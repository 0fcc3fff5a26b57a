import {describe, expect, it} from 'vitest'

import {clockText, isZone} from '../../../src/lib/model/clock.js'

describe('a moment as a clock', () => {
  const now = Date.parse('2026-12-07T05:00:00Z')
  it('the time alone within the next 20 hours, in the zone asked for', () => {
    expect(clockText('2026-12-07T05:10:00Z', now, 'UTC')).toBe('05:10')
    expect(clockText('2026-12-08T00:20:00Z', now, 'UTC')).toBe('00:20')
    expect(clockText('2026-12-07T05:10:00Z', now, 'Europe/Berlin')).toBe('06:10')
  })
  it('with its day further away', () => {
    expect(clockText('2026-12-10T04:19:00Z', now, 'UTC')).toBe('Dec 10 04:19')
  })
  it('knows a zone from a name that is none', () => {
    expect(isZone('UTC')).toBe(true)
    expect(isZone('Europe/Berlin')).toBe(true)
    expect(isZone('Etc/GMT-2')).toBe(true)
    expect(isZone('Mars/Olympus')).toBe(false)
  })
})
