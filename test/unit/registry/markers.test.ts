import {describe, expect, it} from 'vitest'

import {claimText, isUntold, markerName, parseMarker, toldText} from '../../../src/lib/registry/markers.js'

describe('markerName', () => {
  it('names one event by its session and the date it began, whoever looks and however often', () => {
    const row = {id: 'ab12cd34', attentionSince: '2026-12-01T10:00:00.000Z'}
    expect(markerName(row)).toBe(`ab12cd34-${Date.parse('2026-12-01T10:00:00Z')}`)
    expect(markerName({...row, attentionSince: '2026-12-01T10:00:00Z'})).toBe(markerName(row))
    expect(markerName({...row, attentionSince: '2026-12-01T10:00:01Z'})).not.toBe(markerName(row))
    expect(markerName({...row, id: 'ab12cd35'})).not.toBe(markerName(row))
  })
})

describe('parseMarker', () => {
  it('reads a claim by who tells the event; anything else is an event told', () => {
    const at = new Date('2026-12-01T10:00:00Z')
    expect(parseMarker(claimText({pid: 4242, startTime: 987654}, at))).toEqual({claimedBy: {pid: 4242, startTime: 987654}})
    expect(parseMarker(toldText(at))).toEqual({told: true})
    expect(parseMarker('2026-12-01T10:00:00.000Z\n')).toEqual({told: true})
    expect(parseMarker('claimed x y')).toEqual({told: true})
    expect(parseMarker('')).toEqual({told: true})
    expect(['none', 'abandoned', 'told', 'telling'].map((s) => isUntold(s as 'none'))).toEqual([true, true, false, false])
  })
})
