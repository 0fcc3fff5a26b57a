import {existsSync} from 'node:fs'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {isTmuxProcess, removeStaleSocket} from '../../../src/lib/tmux/stale-sockets.js'
import {Sandbox, waitFor} from '../../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe('stale sockets', () => {
  it("removes a socket no server listens on, and never a live server's", async () => {
    const live = sb.socket('live')
    sb.tmux(live, 'new-session', '-d', '--', 'sleep', '1000')
    const dead = sb.socket('dead')
    sb.tmux(dead, 'new-session', '-d', '--', 'sleep', '1000')
    const pid = Number(sb.tmux(dead, 'display-message', '-p', '#{pid}').trim())
    expect(isTmuxProcess(pid)).toBe(true)
    expect(isTmuxProcess(process.pid)).toBe(false)
    // A server killed outright leaves its socket file behind.
    process.kill(pid, 'SIGKILL')
    await waitFor('the server gone', () => !isTmuxProcess(pid))
    expect(existsSync(dead)).toBe(true)
    // (a tmux that is slow to say there is no server there is taken for a live one: asked again)
    await waitFor('removed', async () => (await removeStaleSocket(dead)) === 'removed', 15_000)
    expect(existsSync(dead)).toBe(false)
    expect(await removeStaleSocket(live)).toBe('live')
    expect(existsSync(live)).toBe(true)
  })
})
