import {describe, expect, it} from 'vitest'

import {classifyTmuxFailure, escapeTmuxArg, tmuxArgv, tmuxConfigWord, tmuxScript} from '../../../src/lib/tmux/exec.js'

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
