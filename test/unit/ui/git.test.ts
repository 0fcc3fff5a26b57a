import {describe, expect, it} from 'vitest'

import {parseGitHead} from '../../../src/lib/ui/git.js'

describe('the git branch of a directory', () => {
  it('reads the branch from .git/HEAD', () => {
    expect(parseGitHead('ref: refs/heads/feature/x\n')).toBe('feature/x')
    expect(parseGitHead('0123456789abcdef0123456789abcdef01234567\n')).toBe('0123456')
    expect(parseGitHead('garbage')).toBeNull()
  })
})
