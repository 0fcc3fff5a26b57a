import {describe, expect, it} from 'vitest'

import {parseCheckoutBase, parseWorktreeList, setupFor} from '../../../src/lib/worktree/worktree.js'

describe('worktrees (pure)', () => {
  it("a plain checkout's base: its top, HEAD and branch; a detached HEAD has none; anything else is no base", () => {
    const sha = 'c'.repeat(40)
    expect(parseCheckoutBase(`/src/app\n${sha}\nrefs/heads/feat/x\n`)).toEqual({checkout: '/src/app', commit: sha, branch: 'feat/x'})
    expect(parseCheckoutBase(`/src/app\n${sha}\nHEAD\n`)).toEqual({checkout: '/src/app', commit: sha, branch: null})
    expect(parseCheckoutBase('/src/app\nHEAD\n')).toBeNull()
    expect(parseCheckoutBase('')).toBeNull()
  })
  it('reads `git worktree list --porcelain`: each worktree and its branch (none when detached)', () => {
    const text =
      'worktree /r/app\nHEAD 1\nbranch refs/heads/main\n\nworktree /r/app.worktrees/feat-x\nHEAD 2\nbranch refs/heads/feat/x\n\nworktree /r/detached\nHEAD 3\ndetached\n'
    expect(parseWorktreeList(text)).toEqual([
      {path: '/r/app', branch: 'main'},
      {path: '/r/app.worktrees/feat-x', branch: 'feat/x'},
      {path: '/r/detached', branch: null},
    ])
  })
  it("a repository's setup: by its path, then its name, then *", () => {
    const config = {setup: {'/r/app': ['make'], api: ['npm', 'ci'], '*': ['true']}}
    expect(setupFor('/r/app', config)).toEqual(['make'])
    expect(setupFor('/x/api', config)).toEqual(['npm', 'ci'])
    expect(setupFor('/x/other', config)).toEqual(['true'])
    expect(setupFor('/x/other', {})).toBeNull()
  })
})
