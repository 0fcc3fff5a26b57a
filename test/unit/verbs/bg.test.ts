import {describe, expect, it} from 'vitest'
import {gateReady} from '../../../src/lib/verbs/bg.js'
import {gateArgv} from '../../../src/lib/tmux/session.js'

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

describe('gateReady', () => {
  const gate = gateArgv('/usr/bin/sleep', 30, ['claude', '--model', 'x y'])
  const usr1 = 1n << 9n // SIGUSR1 is 10: bit 9 of SigCgt
  it('only the gate, with its SIGUSR1 handler in place, gets its go', () => {
    expect(gateReady(gate, usr1 | 1n)).toBe(true)
    // the gate before its trap: the signal would kill it
    expect(gateReady(gate, 0n)).toBe(false)
    expect(gateReady(gate, null)).toBe(false)
    // tmux's own forked child, before it execs the gate: it catches SIGUSR1 with tmux's handler
    expect(gateReady(['tmux', '-S', '/tmp/tmux-0/pk', 'new-session'], usr1)).toBe(false)
    expect(gateReady(null, usr1)).toBe(false)
    // the gate as the ps source shows it: argv split at spaces, the gate's name still a word
    expect(gateReady(gate.join(' ').split(' '), usr1)).toBe(true)
  })
})
