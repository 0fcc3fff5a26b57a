import {spawn} from 'node:child_process'
import {describe, expect, it} from 'vitest'

import {environOf, machineZone, processZone} from '../../../src/lib/proc/zone.js'
import {waitFor} from '../../helpers/sandbox.js'

/** A process with this TZ (or none), alive until the test ends it. */
async function withTz<T>(tz: string | undefined, probe: (pid: number) => T): Promise<T> {
  const env = {...process.env}
  delete env.TZ
  if (tz !== undefined) env.TZ = tz
  const child = spawn('sleep', ['30'], {env, stdio: 'ignore'})
  try {
    await waitFor('started', () => child.pid)
    return probe(child.pid!)
  } finally {
    child.kill('SIGKILL')
  }
}

describe("the zone a process reads its clock in (an agent writes its limit's reset on it)", () => {
  it('its TZ where that names a zone: a name, a :name, a zoneinfo path', async () => {
    expect(await withTz('Asia/Tokyo', processZone)).toBe('Asia/Tokyo')
    expect(await withTz(':Europe/Berlin', processZone)).toBe('Europe/Berlin')
    expect(await withTz('/usr/share/zoneinfo/America/New_York', processZone)).toBe('America/New_York')
  })
  it("else the machine's", async () => {
    expect(await withTz(undefined, processZone)).toBe(machineZone())
    expect(await withTz('not a zone', processZone)).toBe(machineZone())
    // (a process that is gone: the machine's too)
    expect(processZone(2 ** 22 + 7)).toBe(machineZone())
  })
})

describe("a process's environment", () => {
  it('gives each variable asked for, the first one too, a value holding "=" whole, and null for one it does not have', async () => {
    const child = spawn('sleep', ['30'], {env: {FIRST: 'one', PK_B: 'y=z', PK_BB: 'not this'}, stdio: 'ignore'})
    try {
      await waitFor('its environment', () => environOf(child.pid!)('FIRST') === 'one', 10_000)
      const env = environOf(child.pid!)
      expect([env('FIRST'), env('PK_B'), env('PK_BB'), env('PK'), env('B'), env('MISSING')]).toEqual(['one', 'y=z', 'not this', null, null, null])
      expect(environOf(2 ** 22 + 1)('FIRST')).toBeNull()
    } finally {
      child.kill()
    }
  })
})
