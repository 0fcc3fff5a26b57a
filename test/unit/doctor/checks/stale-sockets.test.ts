import {execFileSync} from 'node:child_process'
import {existsSync, lstatSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {staleSocketsCheck} from '../../../../src/lib/doctor/checks/stale-sockets.js'
import {listServer} from '../../../../src/lib/tmux/servers.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'
import {server} from '../../../helpers/fixtures.js'
import {Sandbox} from '../../../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

/** A socket file nobody listens on: a process bound it and died without removing it (as a killed tmux server does). */
function staleSocket(path: string): void {
  execFileSync(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.exit(0))`])
  expect(lstatSync(path).isSocket()).toBe(true)
}

describe('the stale-sockets check', () => {
  it('passes with none, and names each stale one with the fix', () => {
    expect(staleSocketsCheck.judge(doctorFacts({servers: [server('/s/a', [])]})).status).toBe('pass')
    const result = staleSocketsCheck.judge(doctorFacts({servers: [server('/s/a', []), server('/s/dead', [], {status: 'stale-socket'})]}))
    expect(result).toMatchObject({status: 'warn', fixable: true, message: expect.stringMatching(/1 socket\(s\) with no server listening .*: \/s\/dead$/)})
  })
  it('--fix removes a real stale socket, and leaves a live server alone', async () => {
    const dead = join(sb.root, 'dead')
    staleSocket(dead)
    const live = sb.socket('live')
    sb.tmux(live, 'new-session', '-d', '-s', 'x', 'sleep 1000')
    const servers = [await listServer(dead), await listServer(live)]
    expect(servers.map((s) => s.status)).toEqual(['stale-socket', 'ok'])
    expect(await staleSocketsCheck.fix!(doctorFacts({servers}))).toEqual([`removed stale socket ${dead}`])
    expect(existsSync(dead)).toBe(false)
    expect(existsSync(live)).toBe(true)
  })
})
