import {chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {arrangeWake, calendarOf, cancelWake, environmentFile, timerArgv, wakeAlive} from '../../../src/lib/verbs/wake.js'
import {Sandbox, alive, waitFor} from '../../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe("the wake-up's systemd timer", () => {
  it("runs pk continue ID --wake MS once, at the moment in UTC, carrying the environment pk's state is found by", () => {
    const at = Date.parse('2026-12-07T05:11:30.200Z')
    const {unit, argv} = timerArgv('0a1b2c3d', at, ['/usr/bin/node', '/opt/pk/bin/run.js'], '/s/wake.env')
    expect(unit).toBe(`pk-continue-0a1b2c3d-${at}`)
    expect(calendarOf(at)).toBe('2026-12-07 05:11:31 UTC')
    expect(argv.slice(0, 2)).toEqual(['systemd-run', '--user'])
    expect(argv).toContain('--on-calendar=2026-12-07 05:11:31 UTC')
    // Its environment from a file of yours, never as words in its argv, which every user can read (issue 72).
    expect(argv).toContain('--property=EnvironmentFile=/s/wake.env')
    expect(argv.some((a) => a.startsWith('--setenv'))).toBe(false)
    expect(environmentFile({PK_STATE_DIR: '/s', HOME: '/h "q" \\', TZ: 'bad\nvalue', SECRET: 'x'})).toBe('PK_STATE_DIR="/s"\nHOME="/h \\"q\\" \\\\"\n')
    expect(argv.slice(argv.indexOf('--'))).toEqual(['--', '/usr/bin/node', '/opt/pk/bin/run.js', 'continue', '0a1b2c3d', '--wake', String(at)])
  })

  it('is arranged where a user manager answers, and stopped to cancel it (systemctl and systemd-run stand-ins record what they were asked)', async () => {
    // (no user manager runs in this container: stand-ins that answer as one does, and note each call)
    const bin = join(sb.root, 'systemd-bin')
    const asked = join(sb.root, 'asked')
    mkdirSync(bin)
    for (const name of ['systemctl', 'systemd-run']) {
      const answer = name === 'systemctl' ? 'case "$*" in *is-system-running*) echo running ;; esac' : ''
      writeFileSync(join(bin, name), `#!/bin/sh\necho "${name} $*" >> '${asked}'\n${answer}\nexit 0\n`)
      chmodSync(join(bin, name), 0o755)
    }
    const env = {...sb.env, PATH: `${bin}:${process.env.PATH}`}
    mkdirSync(sb.stateDir, {recursive: true, mode: 0o700})
    const at = Date.now() + 3600_000
    const wake = await arrangeWake('0a1b2c3d', at, env)
    expect(wake).toEqual({kind: 'systemd', unit: `pk-continue-0a1b2c3d-${at}`, at: new Date(at).toISOString()})
    expect(wakeAlive(wake!)).toBeNull()
    await cancelWake(wake!, env)
    const calls = readFileSync(asked, 'utf8').trim().split('\n')
    expect(calls[1]).toMatch(/^systemd-run --user --quiet --collect --unit=pk-continue-0a1b2c3d-\d+ /)
    // The environment file it names: yours alone, what the timer's pk needs.
    const envFile = join(sb.stateDir, 'wake.env')
    expect(calls[1]).toContain(`--property=EnvironmentFile=${envFile}`)
    expect(statSync(envFile).mode & 0o777).toBe(0o600)
    expect(readFileSync(envFile, 'utf8')).toContain(`PK_STATE_DIR="${sb.stateDir}"`)
    expect(calls.at(-1)).toBe(`systemctl --user stop pk-continue-0a1b2c3d-${at}.timer`)
  })
})

describe('without a user manager: a sleeping pk', () => {
  it('started detached, alive until the moment; cancelled, that very process ends', async () => {
    const env = {...sb.env, PK_SYSTEMD: '0'}
    const wake = await arrangeWake('0a1b2c3d', Date.now() + 3600_000, env)
    expect(wake).toMatchObject({kind: 'sleeper'})
    if (wake?.kind !== 'sleeper') throw new Error('no sleeper')
    expect(wakeAlive(wake)).toBe(true)
    // (its own process: pk continue ID --wake MS, in this sandbox's state)
    expect(readFileSync(`/proc/${wake.pid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['continue', '0a1b2c3d', '--wake']))
    await cancelWake(wake, env)
    await waitFor('ended', () => !alive(wake.pid), 10_000)
    expect(wakeAlive(wake)).toBe(false)
    // (a sleeper that is another process now is never signalled)
    await cancelWake({...wake, startTime: wake.startTime + 1}, env)
    expect(existsSync(sb.root)).toBe(true)
  })
})
