import {describe, expect, it} from 'vitest'

import {parseObservation} from '../../../src/lib/events/observe.js'

describe("a watcher's screen observation (pk notify --observe)", () => {
  it('takes a process, the state its screen shows and when it was first seen', () => {
    expect(
      parseObservation('{"pid": 42, "startTime": 900, "state": "waiting", "firstSeen": 1764590000000, "from": "working", "lastOther": 1764589990000}'),
    ).toEqual({pid: 42, startTime: 900, state: 'waiting', from: 'working', firstSeen: 1764590000000, lastOther: 1764589990000})
    expect(parseObservation('{"pid": 42, "startTime": 900, "state": "idle", "firstSeen": 5, "from": 3, "lastOther": -1}')).toMatchObject({
      from: null,
      lastOther: null,
    })
  })
  it.each([
    ['not json', /takes a JSON object/],
    ['[1]', /needs pid, startTime, state/],
    ['{"pid": 0, "startTime": 1, "state": "idle", "firstSeen": 1}', /needs pid/],
    ['{"pid": 1.5, "startTime": 1, "state": "idle", "firstSeen": 1}', /needs pid/],
    ['{"pid": 1, "startTime": 1, "state": "working", "firstSeen": 1}', /state \(idle or waiting\)/],
    ['{"pid": 1, "startTime": 1, "state": "idle"}', /firstSeen/],
    // Past JavaScript's dates (or 2100): no event of this world, and it would break whoever prints it.
    ['{"pid": 1, "startTime": 1, "state": "idle", "firstSeen": 9000000000000000}', /before 2100/],
    ['{"pid": 1, "startTime": 1, "state": "idle", "firstSeen": 5, "lastOther": 9000000000000000}', /before 2100/],
  ])('refuses %s (exit 2)', (text, message) => {
    expect(() => parseObservation(text)).toThrow(message)
    try {
      parseObservation(text)
    } catch (error) {
      expect(error).toMatchObject({code: 'bad-payload', exitCode: 2})
    }
  })
})
