import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ServerScan, listServer} from '../../../src/lib/tmux/servers.js'
import {Sandbox} from '../../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe('listing a server', () => {
  it('lists its panes, checks it is a process here holding its socket, and says why not where nothing answers', async () => {
    const socket = sb.socket('mine')
    sb.tmux(socket, 'new-session', '-d', '-s', 'a', '--', 'sleep', '1000')
    sb.tmux(socket, 'new-session', '-d', '-s', 'b', '--', 'sleep', '1001')
    const listed = await listServer(socket)
    expect(listed).toMatchObject({socket, status: 'ok', verified: true, unverifiedReason: null, rejectedLines: 0})
    expect(listed.panes).toHaveLength(2)
    expect(listed.serverPid).toBe(Number(sb.tmux(socket, 'display-message', '-p', '#{pid}').trim()))
    // The same answer again stands as it was (a watcher's next look); a missing server is no-server.
    expect(await listServer(socket, {previous: listed})).toBe(listed)
    expect(await listServer(sb.socket('none'))).toMatchObject({status: 'no-server', panes: [], verified: false})
  })

  it("a scan lists every socket of the socket directory, and the records' sockets added to it, once each", async () => {
    for (const name of ['one', 'two']) sb.tmux(sb.socket(name), 'new-session', '-d', '--', 'sleep', '1000')
    const scan = new ServerScan(sb.env)
    scan.add(sb.socket('one'))
    const {servers, tmuxMissing} = await scan.settle()
    expect(tmuxMissing).toBeNull()
    expect(servers.map((s) => s.socket).sort()).toEqual([sb.socket('one'), sb.socket('two')])
    expect(servers.every((s) => s.status === 'ok' && s.verified)).toBe(true)
  })
})
