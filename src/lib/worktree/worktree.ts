import {run, RunEnv} from '../exec/run.js'
import {guardedEnv} from './guard.js'
import {existsSync} from 'node:fs'
import {basename, dirname, isAbsolute, join, relative, resolve} from 'node:path'
import {Writable} from 'node:stream'

import {errnoCode, PkError} from '../model/errors.js'
import type {SessionBase} from '../model/contract.js'

/**
 * A git worktree per session, so agents working on one repository at once never write into each other's
 * checkout. Nothing uncommitted is ever deleted: removal goes through `git worktree remove`, which
 * refuses a dirty tree, and pk asks git first.
 */

export interface WorktreeConfig {
  /** Where worktrees go: `{repo}` and `{branch}` are filled in (default: beside the repository). */
  dir?: string
  /** Prefix of the branches pk names (default `pk/`). */
  branchPrefix?: string
  /** argv run in a new worktree before the agent, by repository path or basename, `*` for all. */
  setup?: Record<string, string[]>
}

export interface Worktree {
  path: string
  branch: string
  /** The repository's main checkout. */
  repo: string
}

const GIT_DEADLINE_MS = 30_000

/** Run git without a shell, within a deadline; resolves stdout, rejects with git's own words. */
export async function git(args: string[], cwd: string, deadlineMs = GIT_DEADLINE_MS, env?: RunEnv): Promise<string> {
  const ran = await run(['git', ...args], {cwd, deadlineMs, ...(env === undefined ? {} : {env})})
  if (ran.error)
    throw errnoCode(ran.error) === 'ENOENT'
      ? new PkError('no-git', 'git is not installed or not on PATH')
      : new PkError('git-failed', `git ${args[0]}: ${ran.error.message}`)
  if (ran.code === 0) return ran.stdout
  const why = ran.timedOut ? `no answer within ${deadlineMs / 1000} s` : ran.stderr.trim() || `exit ${ran.code ?? ran.signal}`
  throw new PkError('git-failed', `git ${args[0]}: ${why}`)
}

/** A read of a checkout: git with every program its configuration could run turned off (guard.ts). */
export async function readGit(args: string[], cwd: string, deadlineMs = GIT_DEADLINE_MS): Promise<string> {
  return git(args, cwd, deadlineMs, await guardedEnv(cwd, process.env))
}

/** Pure: a branch name from a label, git-safe. */
export function branchName(prefix: string, label: string): string {
  const safe = label
    .normalize('NFKC')
    .replaceAll(/[^\w.-]+/g, '-')
    .replaceAll(/\.{2,}|^[.-]+|[.-]+$|\.lock$/g, '')
    .slice(0, 60)
  return `${prefix}${safe === '' ? 'session' : safe}`
}

/** Pure: `git worktree list --porcelain` -> the branch checked out in each worktree. */
export function parseWorktreeList(text: string): {path: string; branch: string | null}[] {
  return text
    .split('\n\n')
    .map((block) => {
      const path = /^worktree (.+)$/m.exec(block)?.[1]
      const branch = /^branch refs\/heads\/(.+)$/m.exec(block)?.[1] ?? null
      return path ? {path, branch} : null
    })
    .filter((w): w is {path: string; branch: string | null} => w !== null)
}

/** The repository `cwd` is in: its main checkout, or a usage error when it is none. */
export async function repositoryOf(cwd: string): Promise<string> {
  let common: string
  try {
    common = (await git(['rev-parse', '--path-format=absolute', '--git-common-dir'], cwd)).trim()
  } catch (error) {
    if (error instanceof PkError && error.code === 'no-git') throw error
    throw new PkError('not-a-repo', `${cwd} is not in a git repository; --worktree needs one`)
  }
  return basename(common) === '.git' ? dirname(common) : common
}

/** Pure: where a worktree goes. */
export function worktreePath(repo: string, branch: string, config: WorktreeConfig): string {
  const leaf = branch.replaceAll('/', '-')
  if (config.dir) return resolve(config.dir.replaceAll('{repo}', basename(repo)).replaceAll('{branch}', leaf))
  return join(dirname(repo), `${basename(repo)}.worktrees`, leaf)
}

/**
 * Make the worktree a new session runs in: a new branch from `from` (default HEAD), or an existing
 * branch that no worktree has checked out (one that is checked out elsewhere is refused, exit 2).
 */
export async function createWorktree(opts: {
  cwd: string
  branch: string | undefined
  label: string
  from: string | undefined
  config: WorktreeConfig
  forbidden?: string[]
}): Promise<Worktree & {newBranch: boolean; base: SessionBase | null}> {
  const repo = await repositoryOf(opts.cwd)
  const branch = opts.branch ?? branchName(opts.config.branchPrefix ?? 'pk/', opts.label)
  if (
    !(await git(['check-ref-format', '--branch', branch], repo).then(
      () => true,
      () => false,
    ))
  )
    throw new PkError('bad-branch', `${JSON.stringify(branch)} is not a valid branch name`)
  const holders = parseWorktreeList(await git(['worktree', 'list', '--porcelain'], repo)).filter((w) => w.branch === branch)
  if (holders.length > 0) throw new PkError('branch-checked-out', `branch ${branch} is checked out in ${holders[0]!.path}; pick another branch, or work there`)
  const exists = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], repo).then(
    () => true,
    () => false,
  )
  if (exists && opts.from) throw new PkError('bad-branch', `branch ${branch} exists already; --from makes a new branch`)
  const path = worktreePath(repo, branch, opts.config)
  for (const own of opts.forbidden ?? []) {
    const inside = relative(resolve(own), path)
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside)))
      throw new PkError(
        'bad-cwd',
        `${path} is inside ${own}, pk's own directory; a worktree never goes there (pk runs code from its config directory). Set worktrees.dir in your own config.`,
      )
  }
  if (existsSync(path)) throw new PkError('worktree-exists', `${path} exists already; remove it or pick another branch`)
  const base = await worktreeBase(repo, exists ? branch : null, opts.from)
  await git(exists ? ['worktree', 'add', path, branch] : ['worktree', 'add', '-b', branch, path, opts.from ?? 'HEAD'], repo)
  return {path, branch, repo, newBranch: !exists, base: base && {...base, checkout: path, kind: 'worktree'}}
}

/**
 * What a new worktree starts from: a new branch from `from` (a local branch: that branch; else none) or from
 * the main checkout's HEAD (its branch); an existing branch from where it forked off the main checkout's
 * branch. Null when git cannot say (an empty repository); a session without a base only loses pk diff.
 */
async function worktreeBase(repo: string, existing: string | null, from: string | undefined): Promise<{commit: string; branch: string | null} | null> {
  const quietly = (args: string[]) =>
    git(args, repo, 5000).then(
      (out) => out.trim(),
      () => '',
    )
  const current = (await quietly(['symbolic-ref', '--quiet', '--short', 'HEAD'])) || null
  if (existing !== null) {
    const commit = await quietly(['merge-base', 'HEAD', `refs/heads/${existing}`])
    return commit ? {commit, branch: current} : null
  }
  const commit = await quietly(['rev-parse', '--verify', '--quiet', `${from ?? 'HEAD'}^{commit}`])
  if (!commit) return null
  if (from === undefined) return {commit, branch: current}
  const isBranch = (await quietly(['rev-parse', '--verify', '--quiet', `refs/heads/${from}`])) !== ''
  return {commit, branch: isBranch ? from : null}
}

/** Pure: `git rev-parse --show-toplevel HEAD --symbolic-full-name HEAD` -> a plain checkout's base. */
export function parseCheckoutBase(text: string): {checkout: string; commit: string; branch: string | null} | null {
  const [checkout, commit, ref] = text.split('\n')
  if (!checkout?.startsWith('/') || !/^[0-9a-f]{40,64}$/.test(commit ?? '')) return null
  return {checkout, commit: commit!, branch: ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null}
}

/** The base of a session started in a plain checkout at `cwd` (its HEAD now), or null outside git. */
export async function checkoutBase(cwd: string): Promise<SessionBase | null> {
  const out = await git(['rev-parse', '--show-toplevel', 'HEAD', '--symbolic-full-name', 'HEAD'], cwd, 5000).catch(() => null)
  const parsed = out === null ? null : parseCheckoutBase(out)
  return parsed && {...parsed, kind: 'checkout'}
}

/** Take back a worktree made for a session that never started: the fresh checkout, and its branch when pk made it. */
export async function discardWorktree(worktree: Worktree, newBranch: boolean): Promise<void> {
  await git(['worktree', 'remove', '--force', worktree.path], worktree.repo)
  if (newBranch) await git(['branch', '-D', worktree.branch], worktree.repo)
}

/** Pure: the setup argv for a repository, by its path, then its basename, then `*`. */
export function setupFor(repo: string, config: WorktreeConfig): string[] | null {
  const setup = config.setup ?? {}
  return setup[repo] ?? setup[basename(repo)] ?? setup['*'] ?? null
}

/** Run the setup command in the new worktree, its output where the caller says (pk bg: its stderr); a failure says what failed. */
export async function runSetup(argv: string[], cwd: string, output: Writable | number): Promise<void> {
  const ran = await run(argv, {cwd, output})
  if (ran.error) throw new PkError('setup-failed', `setup command ${argv[0]} could not start: ${ran.error.message}; the worktree stays at ${cwd}`)
  if (ran.code !== 0)
    throw new PkError(
      'setup-failed',
      `setup command ${argv.join(' ')} failed (${ran.signal ?? `exit ${ran.code}`}); the agent was not started, the worktree stays at ${cwd}`,
    )
}

/** Uncommitted changes (tracked or not) in a worktree; null when git cannot tell. */
export async function isDirty(path: string): Promise<boolean | null> {
  return readGit(['status', '--porcelain'], path, 5000).then(
    (out) => out.trim() !== '',
    () => null,
  )
}

/**
 * Why a worktree holds work that removing it would lose, or null when it holds none: uncommitted changes,
 * or files git ignores (git status hides them, and git worktree remove deletes them: .env, local
 * databases). Null too where git cannot read it (a reason).
 */
export async function workLeftIn(path: string): Promise<string | null> {
  const dirty = await isDirty(path)
  if (dirty === null) return 'git cannot read it'
  if (dirty) return 'it has uncommitted changes'
  const ignored = await readGit(['status', '--porcelain', '--ignored', '-z'], path, 5000).then(
    (out) =>
      out
        .split('\0')
        .filter((l) => l.startsWith('!! '))
        .map((l) => l.slice(3)),
    () => null,
  )
  if (ignored === null) return 'git cannot read it'
  if (ignored.length > 0) return `it holds ignored files git would delete (${ignored.slice(0, 3).join(', ')}${ignored.length > 3 ? ', …' : ''})`
  return null
}

/** Whether the branch is merged into what the main checkout has, or pushed to its upstream. */
export async function isSafeToRemove(worktree: Worktree): Promise<{ok: boolean; reason: string}> {
  const left = await workLeftIn(worktree.path)
  if (left !== null) return {ok: false, reason: left}
  const merged = await git(['merge-base', '--is-ancestor', worktree.branch, 'HEAD'], worktree.repo).then(
    () => true,
    () => false,
  )
  if (merged) return {ok: true, reason: `clean, and ${worktree.branch} is merged`}
  const unpushed = await git(['rev-list', '--count', `${worktree.branch}@{upstream}..${worktree.branch}`], worktree.repo).then(
    (n) => Number(n.trim()),
    () => null,
  )
  if (unpushed === 0) return {ok: true, reason: `clean, and ${worktree.branch} is pushed`}
  return {ok: false, reason: `${worktree.branch} is neither merged nor pushed`}
}

/** Remove a clean worktree (git refuses a dirty one too); the branch stays. */
export async function removeWorktree(worktree: Worktree): Promise<void> {
  await git(['worktree', 'remove', worktree.path], worktree.repo)
}

/**
 * Delete a removed worktree's branch only when its work is in what the main checkout has (`git branch -d`
 * refuses a branch that is not merged into HEAD or its upstream; a branch with no commits of its own is
 * merged). Why not, when git refuses.
 */
export async function deleteMergedBranch(repo: string, branch: string): Promise<{deleted: boolean; reason: string}> {
  return git(['branch', '-d', '--', branch], repo).then(
    () => ({deleted: true, reason: 'merged'}),
    (error: unknown) => ({deleted: false, reason: /not fully merged/.test(String(error)) ? 'not merged' : 'git refused'}),
  )
}

/** Forget worktrees whose directory is gone. */
export async function pruneWorktrees(repo: string): Promise<void> {
  await git(['worktree', 'prune'], repo).catch(() => {})
}

/** Bring back a session's worktree whose directory was removed, from its branch. */
export async function restoreWorktree(worktree: Worktree): Promise<void> {
  if (existsSync(worktree.path)) return
  await pruneWorktrees(worktree.repo)
  await git(['worktree', 'add', worktree.path, worktree.branch], worktree.repo)
}
