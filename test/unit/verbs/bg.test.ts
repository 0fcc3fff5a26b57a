import {describe, expect, it} from 'vitest'

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
