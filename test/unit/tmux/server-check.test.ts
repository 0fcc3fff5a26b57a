import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {parseUnixSockets, socketInodesOfFds, verifyServer} from '../../../src/lib/tmux/server-check.js'
import {waitFor} from '../../helpers/sandbox.js'

describe('server verification data', () => {
  it('finds listening sockets by path and socket inodes among fds', () => {
    const text = [
      'Num       RefCount Protocol Flags    Type St Inode Path',
      '0000000000000000: 00000002 00000000 00010000 0001 01 5001 /tmp/tmux-0/pk',
      '0000000000000000: 00000003 00000000 00000000 0001 03 5002 /tmp/tmux-0/pk',
      '0000000000000000: 00000002 00000000 00010000 0001 01 5003 /tmp/with space/s',
      '0000000000000000: 00000002 00000000 00010000 0001 01 5004',
    ].join('\n')
    const sockets = parseUnixSockets(text)
    expect([...sockets.get('/tmp/tmux-0/pk')!]).toEqual(['5001'])
    expect([...sockets.get('/tmp/with space/s')!]).toEqual(['5003'])
    expect([...socketInodesOfFds(['/dev/null', 'socket:[5001]', 'pipe:[7]'])]).toEqual(['5001'])
  })
})

describe('the process that holds a listening socket', () => {
  it.runIf(process.platform === 'linux')('is found whether its socket is among its lowest fds (tmux) or past them; one that holds none is not it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pk-holder-'))
    // A tmux server listens on one of its first fds; a process that opened 40 files first listens well past
    // the fds tried before the fd folder is listed.
    const tmux = join(dir, 'tmux')
    execFileSync('tmux', ['-S', tmux, '-f', '/dev/null', 'new-session', '-d', 'sleep 60'])
    const server = Number(execFileSync('tmux', ['-S', tmux, 'display-message', '-p', '#{pid}'], {encoding: 'utf8'}))
    const high = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'); for (let i = 0; i < 40; i++) fs.openSync('/dev/null', 'r'); require('net').createServer().listen(${JSON.stringify(join(dir, 'high'))}); setTimeout(() => {}, 60000)`,
      ],
      {stdio: 'ignore'},
    )
    try {
      await waitFor('listening', () => existsSync(join(dir, 'high')))
      expect(verifyServer(tmux, server)).toEqual({verified: true, reason: null})
      expect(verifyServer(join(dir, 'high'), high.pid!)).toEqual({verified: true, reason: null})
      expect(verifyServer(join(dir, 'high'), server).verified).toBe(false)
      expect(verifyServer(tmux, high.pid!).verified).toBe(false)
      expect(verifyServer(tmux, 0x3fffffff)).toMatchObject({verified: false, reason: expect.stringMatching(/not a process in this pid namespace/)})
    } finally {
      high.kill('SIGKILL')
      spawnSync('tmux', ['-S', tmux, 'kill-server'])
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
