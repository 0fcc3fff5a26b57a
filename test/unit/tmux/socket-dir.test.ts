import {describe, expect, it} from 'vitest'

import {judgeSocketDirs} from '../../../src/lib/tmux/socket-dir.js'

describe('socket directories', () => {
  const dir = (path: string, uid: number, mode: number) => ({path, uid, mode, isDirectory: true})
  const root = dir('/', 0, 0o40755)
  it("trusts a private directory of yours under directories that are yours or root's", () => {
    expect(judgeSocketDirs([root, dir('/tmp', 0, 0o41777), dir('/tmp/tmux-1000', 1000, 0o40700)], 1000)).toBeNull()
    expect(judgeSocketDirs([root, dir('/home', 0, 0o40755), dir('/home/u', 1000, 0o40755), dir('/home/u/s', 1000, 0o40755)], 1000)).toBeNull()
  })
  it('refuses one another user could write, own, or reach through a directory above it without the sticky bit', () => {
    expect(judgeSocketDirs([root, dir('/tmp', 0, 0o41777), dir('/tmp/tmux-1000', 1000, 0o40777)], 1000)).toMatch(/writable by every user/)
    expect(judgeSocketDirs([root, dir('/tmp', 0, 0o41777), dir('/tmp/tmux-1000', 1000, 0o40770)], 1000)).toMatch(/writable by its group/)
    expect(judgeSocketDirs([root, dir('/tmp', 0, 0o41777), dir('/tmp/tmux-1000', 1001, 0o40700)], 1000)).toMatch(/belongs to uid 1001/)
    expect(judgeSocketDirs([root, dir('/shared', 0, 0o40777), dir('/shared/mine', 1000, 0o40700)], 1000)).toMatch(/without the sticky bit/)
    expect(judgeSocketDirs([root, dir('/srv', 1001, 0o40755), dir('/srv/mine', 1000, 0o40700)], 1000)).toMatch(/belongs to uid 1001/)
    expect(judgeSocketDirs([root, {path: '/x', uid: 1000, mode: 0o100600, isDirectory: false}], 1000)).toMatch(/not a directory/)
  })
})
