import {readRegularFile} from '../registry/files.js'
import {dirname, join} from 'node:path'

/** Pure: the branch named by a .git/HEAD file, or a short commit for a detached HEAD. */
export function parseGitHead(text: string): string | null {
  const ref = /^ref: refs\/heads\/(.+)$/m.exec(text)
  if (ref) return ref[1]!.trim()
  const sha = /^([0-9a-f]{40})$/m.exec(text.trim())
  return sha ? sha[1]!.slice(0, 7) : null
}

/** The git branch of a directory, read from .git/HEAD upward (no git process per session). */
export function gitBranch(cwd: string | null): string | null {
  if (cwd === null) return null
  let dir = cwd
  let branch: string | null = null
  for (;;) {
    try {
      let head = join(dir, '.git', 'HEAD')
      let text: string
      try {
        text = readRegularFile(head, 64 * 1024, true)
      } catch {
        // A worktree or submodule: .git is a file pointing at the real git directory.
        const pointer = /^gitdir: (.+)$/m.exec(readRegularFile(join(dir, '.git'), 64 * 1024, true))
        if (!pointer) throw new Error('no .git')
        head = join(pointer[1]!.startsWith('/') ? pointer[1]! : join(dir, pointer[1]!), 'HEAD')
        text = readRegularFile(head, 64 * 1024, true)
      }
      branch = parseGitHead(text)
      break
    } catch {
      const parent = dirname(dir)
      if (parent === dir) break
      dir = parent
    }
  }
  return branch
}

/** `gitBranch`, each directory read once: one per dashboard refresh, so nothing has to be forgotten. */
export function branchReader(): (cwd: string | null) => string | null {
  const seen = new Map<string | null, string | null>()
  return (cwd) => {
    if (!seen.has(cwd)) seen.set(cwd, gitBranch(cwd))
    return seen.get(cwd)!
  }
}
