import {spawn} from 'node:child_process'
import {describe, expect, it} from 'vitest'

import {machineZone, processZone} from '../../../src/lib/proc/zone.js'
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
