import {describe, expect, it} from 'vitest'

import {markerName} from '../../../src/lib/registry/markers.js'

describe('markerName', () => {
  it('names one event by its session and the date it began, whoever looks and however often', () => {
    const row = {id: 'ab12cd34', attentionSince: '2026-12-01T10:00:00.000Z'}
    expect(markerName(row)).toBe(`ab12cd34-${Date.parse('2026-12-01T10:00:00Z')}`)
    expect(markerName({...row, attentionSince: '2026-12-01T10:00:00Z'})).toBe(markerName(row))
    expect(markerName({...row, attentionSince: '2026-12-01T10:00:01Z'})).not.toBe(markerName(row))
    expect(markerName({...row, id: 'ab12cd35'})).not.toBe(markerName(row))
  })
})
