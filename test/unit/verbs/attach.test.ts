import {describe, expect, it} from 'vitest'

import {findPreset, recognizeAgent} from '../../../src/lib/agents/presets.js'
import {checkAttachable, resolveId} from '../../../src/lib/verbs/attach.js'
import {shellQuote} from '../../../src/lib/model/shell.js'
import {planAttach} from '../../../src/lib/tmux/attach-plan.js'
import {launchArgv} from '../../../src/lib/verbs/bg.js'
import {SessionRow} from '../../../src/lib/model/correlate.js'
import {PkError} from '../../../src/lib/model/errors.js'

const row = (id: string, over: Partial<SessionRow> = {}): SessionRow => ({
  id, kind: 'recorded', agent: null, label: null, state: 'unknown', stateSource: 'none', attention: false, verified: true, conflict: false,
  pid: 1, cwd: '/', command: ['x'], startedAt: null, attached: false, resume: null, record: null, exitReason: null, agentSource: null, exitStatus: null, resumedBy: null, attentionSince: null, worktree: null, usage: null,
  tmux: {socket: '/s', session: 'x', sessionId: '$1', window: '@1', pane: '%1', lastAttached: null, lastDetached: null, activity: null}, ...over,
})

function exitOf(fn: () => unknown): number | undefined {
  try {
    fn()
  } catch (error) {
    return (error as PkError).exitCode
  }
  return undefined
}

describe('resolveId', () => {
  const rows = [row('abc12345'), row('abd00000'), row('ffff0000')]
  it('finds a unique prefix or a full id', () => {
    expect(resolveId('abc', rows).id).toBe('abc12345')
    expect(resolveId('FFFF0000', rows).id).toBe('ffff0000')
  })
  it.each([['', 2], ['xyz', 2], ['abc123456', 2], ['../x', 2], ['ab\n', 4], ['ab', 4], ['0', 3]])('%j exits %i', (id, code) => {
    expect(exitOf(() => resolveId(id, rows))).toBe(code)
  })
  it('refuses an id that two rows carry (exit 4), whichever one comes first', () => {
    const twice = [row('abc12345', {tmux: null}), row('abc12345')]
    expect(exitOf(() => resolveId('abc12345', twice))).toBe(4)
    expect(exitOf(() => resolveId('abc', [...twice].reverse()))).toBe(4)
  })
  it('lists the candidates of an ambiguous prefix', () => {
    expect(() => resolveId('ab', rows)).toThrow(/abc12345[\s\S]*abd00000/)
  })
})

describe('checkAttachable', () => {
  it('refuses conflicts (4), exited sessions (3) and unverified ones (5)', () => {
    expect(exitOf(() => checkAttachable(row('a', {conflict: true, verified: false})))).toBe(4)
    expect(exitOf(() => checkAttachable(row('a', {state: 'exited', tmux: null})))).toBe(3)
    expect(exitOf(() => checkAttachable(row('a', {verified: false})))).toBe(5)
    expect(exitOf(() => checkAttachable(row('a')))).toBeUndefined()
  })
})

describe('planAttach', () => {
  const target = {socket: '/tmp/tmux-0/pk', pane: '%7'}
  it('attaches a client outside tmux', () => {
    expect(planAttach(target, {})).toEqual({
      mode: 'attach',
      argv: ['-S', '/tmp/tmux-0/pk', 'select-window', '-t', '%7', ';', 'select-pane', '-t', '%7', ';', 'attach-session', '-t', '%7'],
    })
  })
  it('switches the client inside tmux on the same server', () => {
    expect(planAttach(target, {TMUX: '/tmp/tmux-0/pk,123,0'}).mode).toBe('switch')
  })
  it('opens a popup with a nested client from another server', () => {
    const plan = planAttach(target, {TMUX: '/tmp/tmux-0/default,123,0'})
    expect(plan.mode).toBe('popup')
    expect(plan.argv.slice(0, 3)).toEqual(['-S', '/tmp/tmux-0/default', 'display-popup'])
    expect(plan.argv.at(-1)).toBe("exec env -u TMUX -u TMUX_PANE tmux -S /tmp/tmux-0/pk select-window -t %7 ';' select-pane -t %7 ';' attach-session -t %7")
  })
  it('quotes words for a shell', () => {
    expect(shellQuote("it's here")).toBe(`'it'\\''s here'`)
    expect(shellQuote('%7')).toBe('%7')
    expect(shellQuote('')).toBe("''")
  })
})

describe('presets', () => {
  it('launches presets with extra args and plain commands as given', () => {
    expect(launchArgv('codex', ['--model', 'o3'], {})).toEqual({argv: ['codex', '--model', 'o3'], agent: 'codex'})
    expect(launchArgv('shell', [], {SHELL: '/bin/zsh'})).toEqual({argv: ['/bin/zsh'], agent: 'shell'})
    expect(launchArgv(undefined, ['bash', '-c', 'echo "$(x)"'], {})).toEqual({argv: ['bash', '-c', 'echo "$(x)"'], agent: null})
    expect(exitOf(() => launchArgv('nope', [], {}))).toBe(2)
    expect(() => launchArgv('nope', [], {})).toThrow(/pi, claude, codex, gemini, opencode, aider, shell/)
    expect(exitOf(() => launchArgv(undefined, [], {}))).toBe(2)
  })
  it('recognises agent processes by argv, directly or under an interpreter', () => {
    expect(recognizeAgent(['/usr/local/bin/claude', '--resume'])).toBe('claude')
    // What the npm package really runs: a native binary named claude.exe, on Linux too.
    expect(recognizeAgent(['/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe'])).toBe('claude')
    expect(recognizeAgent(['node', '--no-warnings', '/usr/lib/node_modules/@google/gemini-cli/bin/gemini'])).toBe('gemini')
    expect(recognizeAgent(['python3', '/home/u/.local/bin/aider'])).toBe('aider')
    expect(recognizeAgent(['bash'])).toBeNull()
    expect(recognizeAgent(['vim', 'claude'])).toBeNull()
    expect(findPreset('shell')!.executables).toEqual([])
  })
})

describe('agent recognition under interpreters', () => {
  it('takes the first non-option argument as the script, and inline code as none', () => {
    expect(recognizeAgent(['/bin/sh', '/home/u/bin/claude'])).toBe('claude')
    expect(recognizeAgent(['sh', '-c', 'vim notes/claude'])).toBeNull()
    expect(recognizeAgent(['node', '-e', 'require("claude")'])).toBeNull()
    expect(recognizeAgent(['python3', '-m', 'aider'])).toBeNull()
  })
})

describe('pk bg --worktree words', () => {
  it('reads the word after --worktree as the branch, unless it names an agent', async () => {
    const {worktreeWords} = await import('../../../src/lib/verbs/bg.js')
    const presets = ['claude', 'codex']
    expect(worktreeWords(['--worktree', 'feat1'], presets)).toEqual(['--worktree', '--branch', 'feat1'])
    expect(worktreeWords(['--worktree=feat1', 'claude'], presets)).toEqual(['--worktree', '--branch', 'feat1', 'claude'])
    expect(worktreeWords(['--worktree', 'claude'], presets)).toEqual(['--worktree', 'claude'])
    expect(worktreeWords(['--worktree', '--name', 'x'], presets)).toEqual(['--worktree', '--name', 'x'])
  })
})
