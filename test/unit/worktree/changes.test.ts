import {describe, expect, it} from 'vitest'

import {diffArgv, joinFiles, parseCommits, parseNameStatus, parseNumstat, summarize} from '../../../src/lib/worktree/changes.js'

const base = {commit: 'a'.repeat(40), branch: 'main', checkout: '/repo.worktrees/pk-x', kind: 'worktree' as const}

describe("reading git's words about a session's changes", () => {
  it('numstat -z: plain files, binary ones, renames with both names, and names with tabs and newlines', () => {
    const text = '3\t1\tsrc/a.ts\0-\t-\timg.png\0' + '2\t0\t\0old name.txt\0new\tname\n.txt\0'
    expect(parseNumstat(text)).toEqual([
      {path: 'src/a.ts', oldPath: null, insertions: 3, deletions: 1},
      {path: 'img.png', oldPath: null, insertions: null, deletions: null},
      {path: 'new\tname\n.txt', oldPath: 'old name.txt', insertions: 2, deletions: 0},
    ])
    expect(parseNumstat('')).toEqual([])
  })
  it('name-status -z: each status by its letter, a rename under its new name', () => {
    const statuses = parseNameStatus('M\0src/a.ts\0A\0img.png\0R087\0old name.txt\0new name.txt\0D\0gone\0T\0link\0X\0odd\0')
    expect(Object.fromEntries(statuses)).toEqual({
      'src/a.ts': 'modified',
      'img.png': 'added',
      'new name.txt': 'renamed',
      gone: 'deleted',
      link: 'type-changed',
      odd: 'unknown',
    })
  })
  it('the files joined with their status, a binary one with no line counts; the sums', () => {
    const files = joinFiles(parseNumstat('3\t1\tsrc/a.ts\0-\t-\timg.png\0'), parseNameStatus('M\0src/a.ts\0A\0img.png\0'))
    expect(files).toEqual([
      {path: 'src/a.ts', oldPath: null, status: 'modified', insertions: 3, deletions: 1, binary: false},
      {path: 'img.png', oldPath: null, status: 'added', insertions: null, deletions: null, binary: true},
    ])
    const commits = parseCommits(
      `${'b'.repeat(40)}\x1fAda\x1f2026-12-04T10:00:00+00:00\x1fFix: a \x1f in a subject?\0\n${'c'.repeat(40)}\x1fBo\x1f2026-12-03T09:00:00+00:00\x1fFirst\0`,
    )
    expect(commits.map((c) => [c.commit[0], c.author, c.subject])).toEqual([
      ['b', 'Ada', 'Fix: a '],
      ['c', 'Bo', 'First'],
    ])
    expect(summarize({files, insertions: 3, deletions: 1, commits, dirty: true, head: 'b'.repeat(40)})).toEqual({
      files: 2,
      insertions: 3,
      deletions: 1,
      commits: 2,
      dirty: true,
    })
  })
  it('the diff is always against the recorded commit, over the whole checkout unless paths are given', () => {
    // (never a program of the checkout's: an external diff, a textconv)
    expect(diffArgv(base, 'patch', [])).toEqual(['git', 'diff', '--cached', '--no-ext-diff', '--no-textconv', base.commit, '--', ':/'])
    expect(diffArgv(base, 'stat', ['src/', '-rf'])).toEqual([
      'git',
      'diff',
      '--cached',
      '--no-ext-diff',
      '--no-textconv',
      '--stat',
      base.commit,
      '--',
      'src/',
      '-rf',
    ])
    expect(diffArgv(base, 'name-only', [])).toContain('--name-only')
  })
})
