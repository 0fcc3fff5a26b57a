import {describe, expect, it} from 'vitest'

import {classifyTmuxFailure, escapeTmuxArg, tmuxArgv, tmuxConfigWord, tmuxScript} from '../../../src/lib/tmux/exec.js'
import {FIELD_SEPARATOR, parsePaneLine, parsePaneList} from '../../../src/lib/tmux/panes.js'
import {judgeSocketDirs, parseUnixSockets, socketInodesOfFds} from '../../../src/lib/tmux/servers.js'
import {candidateNames, environmentFlags, formatLiteral, paneTail, parseEnvironmentNames, parseNewSession, safeSessionName, variablesToUnset} from '../../../src/lib/tmux/session.js'

describe('tmux argv', () => {
  it('escapes arguments that tmux would take as a command separator', () => {
    expect(escapeTmuxArg(';')).toBe('\\;')
    expect(escapeTmuxArg('a;')).toBe('a\\;')
    expect(escapeTmuxArg('a\\;')).toBe('a\\\\;')
    expect(escapeTmuxArg('a;b')).toBe('a;b')
    expect(tmuxArgv('/s', [['new-session', 'x;'], ['kill-server']])).toEqual(['-S', '/s', 'new-session', 'x\\;', ';', 'kill-server'])
  })

  it('tells no server, a stale socket and other errors apart', () => {
    expect(classifyTmuxFailure('no server running on /tmp/tmux-0/x\n')).toBe('no-server')
    expect(classifyTmuxFailure('error connecting to /tmp/tmux-0/x (No such file or directory)\n')).toBe('no-server')
    expect(classifyTmuxFailure('error connecting to /tmp/tmux-0/x (Connection refused)\n')).toBe('stale-socket')
    expect(classifyTmuxFailure("can't find pane: %9")).toBe('error')
    expect(classifyTmuxFailure('access not allowed')).toBe('access-denied')
  })

  it('writes words of tmux config that stand for exactly their text', () => {
    expect(tmuxConfigWord('abc-_/.09')).toBe('"abc-_/.09"')
    expect(tmuxConfigWord(`a'b"c$D#{e};\n%5 ~`)).toBe(String.raw`"a\047b\042c\044D\043\173e\175\073\012\0455\040\176"`)
    expect(tmuxConfigWord('é')).toBe(String.raw`"\303\251"`)
    expect(tmuxScript([['new-session', '-d'], ['kill-server']])).toBe('"new-session" "-d"\n"kill-server"\n')
  })
})

describe('pane list', () => {
  const line = (fields: string[]) => fields.join(FIELD_SEPARATOR)
  const good = ['%3', '123', '0', '', '$1', '2', '@4', '1700000000', '', '1700000050', '99', 'my session']

  it('parses a well-formed line', () => {
    expect(parsePaneLine(line(good))).toEqual({
      paneId: '%3', panePid: 123, dead: false, deadStatus: null, sessionId: '$1', attachedClients: 2, windowId: '@4',
      windowActivity: 1_700_000_000, lastAttached: null, lastDetached: 1_700_000_050, serverPid: 99, sessionName: 'my session',
    })
  })

  it('rejects lines with the wrong field count or malformed ids', () => {
    const list = parsePaneList([line(good), line(good.slice(1)), line([...good, 'extra']), line(['3', ...good.slice(1)]), line(good.map((f, i) => (i === 1 ? 'x' : f)))].join('\n') + '\n')
    expect(list.panes).toHaveLength(1)
    expect(list.rejected).toHaveLength(4)
  })

  it('parses new-session output', () => {
    expect(parseNewSession(line(['%1', '50', '$2', '40', 'x']) + '\n')).toEqual({paneId: '%1', panePid: 50, sessionId: '$2', serverPid: 40, sessionName: 'x'})
    expect(parseNewSession('')).toBeNull()
  })
})

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

describe('session helpers', () => {
  it.each([
    ['my "odd" name;', 'my-odd-name'],
    ['a.b:c', 'a-b-c'],
    ['line\nbreak', 'line-break'],
    ['', 'pk'],
    [';;;', 'pk'],
    ['x'.repeat(80), 'x'.repeat(40)],
  ])('makes %j a safe tmux name', (label, name) => expect(safeSessionName(label)).toBe(name))

  it('passes the caller environment but not its tmux client', () => {
    const flags = environmentFlags({PATH: '/bin', TMUX: '/tmp/x,1,0', TMUX_PANE: '%1', KEY: 'a;b\nc', UNSET: undefined})
    expect(flags).toEqual(['-e', 'PATH=/bin', '-e', 'KEY=a;b\nc'])
  })

  it('removes from the pane what only the server environment has', () => {
    expect(parseEnvironmentNames('PATH=/bin\n-GONE\nODD=a=b\n\n')).toEqual(['PATH', 'ODD'])
    expect(variablesToUnset(['PATH', 'SECRET', 'TMUX', 'bad-name', 'LINES'], {PATH: '/bin', LINES: '40'})).toEqual(['SECRET', 'LINES'])
  })

  it('never runs out of session names, and keeps # literal in a start directory', () => {
    const names = candidateNames('claude', () => 'abc123')
    expect(names.slice(0, 3)).toEqual(['claude', 'claude-2', 'claude-3'])
    expect(names.at(-1)).toBe('claude-abc123')
    expect(formatLiteral('/tmp/#(touch x)/#{pane_id}')).toBe('/tmp/##(touch x)/##{pane_id}')
  })

  it('drops the dead-pane banner from captured output', () => {
    expect(paneTail('boom\n\n\nPane is dead (status 3, Sun Nov 29)\n\n')).toBe('boom')
  })
})

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
