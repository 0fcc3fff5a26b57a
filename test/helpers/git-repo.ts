import {execFileSync} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {Sandbox} from './sandbox.js'

/** Who commits in a test repository, and no system git config. */
export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'pk test',
  GIT_AUTHOR_EMAIL: 'pk@test',
  GIT_COMMITTER_NAME: 'pk test',
  GIT_COMMITTER_EMAIL: 'pk@test',
  GIT_CONFIG_NOSYSTEM: '1',
}

/** git in `cwd` with the sandbox's environment; its output. */
export const gitIn =
  (sb: Sandbox) =>
  (cwd: string, ...args: string[]) =>
    execFileSync('git', args, {cwd, env: {...sb.env, ...GIT_ENV}, encoding: 'utf8'})

/** A repository `SANDBOX/app` on main with one commit of `files` (default: a README). */
export function makeRepo(sb: Sandbox, files: Record<string, string> = {README: 'app\n'}): string {
  const repo = join(sb.root, 'app')
  const git = gitIn(sb)
  mkdirSync(repo)
  git(repo, 'init', '-q', '-b', 'main')
  for (const [name, text] of Object.entries(files)) writeFileSync(join(repo, name), text)
  git(repo, 'add', '.')
  git(repo, 'commit', '-q', '-m', 'first')
  return repo
}
