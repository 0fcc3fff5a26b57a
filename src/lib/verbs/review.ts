import {existsSync} from 'node:fs'

import {Context} from '../config/context.js'
import {run} from '../exec/run.js'
import {collectSessions} from '../listing/sessions.js'
import {resolveId} from '../listing/resolve.js'
import type {SessionBase, SessionRow} from '../model/contract.js'
import {PkError} from '../model/errors.js'
import type {SessionRecord} from '../registry/records.js'
import {Changes, changesOf, checkBase, withWorkingTreeIndex} from '../worktree/changes.js'
import {guardedEnv} from '../worktree/guard.js'
import {git, readGit} from '../worktree/worktree.js'

/**
 * Reviewing and landing what an agent did (pk diff, pk land): measured from the base pk bg recorded, never
 * from a guess; nothing is half done, and a refusal changes nothing.
 */

export interface Reviewed {
  row: SessionRow
  record: SessionRecord
  base: SessionBase
}

/** The session, its record and its base; refused (no-base) where pk knows none. */
export async function reviewedSession(ctx: Context, idArg: string, first?: (row: SessionRow) => void): Promise<Reviewed> {
  const listing = await collectSessions(ctx)
  const row = resolveId(idArg, listing.rows)
  first?.(row)
  const record = listing.snapshot.records.find((r) => r.file === row.record)?.record
  if (!record) throw new PkError('no-base', `session ${row.id} was not started by pk (an agent found in a pane): pk knows no commit it started from`)
  if (!record.base)
    throw new PkError(
      'no-base',
      `session ${row.id} has no recorded base: it started outside a git checkout, or before pk recorded what sessions start from; compare by hand (git diff in ${record.cwd})`,
    )
  await checkBase(record.base, row.id, record.worktree?.repo ?? null)
  return {row, record, base: record.base}
}

/** pk diff --json: what a session changed, with its base and whether the checkout is its own. */
export async function diffChanges(ctx: Context, idArg: string, paths: string[]): Promise<Reviewed & {changes: Changes}> {
  const reviewed = await reviewedSession(ctx, idArg)
  return {...reviewed, changes: await changesOf(reviewed.base, ctx.env, paths)}
}

/** Pure: what pk diff says beside a diff of a plain checkout (others may have changed it too). */
export const sharedCheckoutNote = (id: string, base: SessionBase) =>
  base.kind === 'checkout'
    ? `session ${id} ran in ${base.checkout}, a checkout others may change too: this is everything the checkout changed since the session started, not only the agent's work`
    : null

export type LandStrategy = 'merge' | 'rebase' | 'squash'

export interface LandOptions {
  strategy: LandStrategy
  /** Commit the worktree's uncommitted work first, with this message (--commit -m). */
  commit: string | null
  /** The squash commit's message (-m), else one pk writes. */
  message: string | null
  /** Land while the agent is still running but idle. */
  idle: boolean
  push: boolean
  pr: boolean
  prune: boolean
  dryRun: boolean
}

export interface LandResult {
  id: string
  landed: boolean
  dryRun: boolean
  strategy: LandStrategy | 'pr'
  branch: string
  into: string
  repo: string
  /** The commits of the session's branch that landed (or would). */
  commits: number
  /** The target branch's commit after landing; null when nothing landed. */
  commit: string | null
  /** The commit pk made of the uncommitted work (--commit); else null. */
  committed: string | null
  pushed: boolean
  pr: string | null
  pruned: boolean
  /** The session branch's tip that landed. */
  landedTip: string | null
  /** What was (or, with --dry-run, would be) done, in order. */
  steps: string[]
}

const trailer = (record: SessionRecord, id: string) =>
  `\n\nPk-Session: ${id}${record.label ? `\nPk-Label: ${record.label}` : ''}${record.agent ? `\nPk-Agent: ${record.agent}` : ''}`

/** Pure: why a session's state keeps it from landing, or null. */
export function whyNotLandable(row: SessionRow, allowIdle: boolean): string | null {
  if (row.state === 'exited') return null
  if (row.state === 'working') return `session ${row.id} is working: land it once it is done (pk wait ${row.id} --for idle), and stopped (pk stop ${row.id})`
  if (row.state === 'waiting') return `session ${row.id} waits on a dialog or a question: answer it (pk answer ${row.id}) and let it finish first`
  if (row.state === 'unknown') return `pk cannot tell what session ${row.id} is doing just now; stop it first (pk stop ${row.id})`
  if (!allowIdle) return `session ${row.id} is idle but still running (it may start working again): stop it first (pk stop ${row.id}), or pass --idle`
  return null
}

/** git, quiet, a read (guard.ts: no program of the checkout's runs): stdout trimmed, or '' when git says no. */
const ask = (args: string[], cwd: string) =>
  readGit(args, cwd, 10_000).then(
    (out) => out.trim(),
    () => '',
  )

/**
 * pk land: takes a worktree session's work into the branch it was made from, in the main checkout, in one
 * step. Every check comes first; a merge is tried with `git merge-tree` before the main checkout is touched,
 * and a rebase happens in a throwaway worktree, so a conflict leaves both checkouts as they were; the
 * uncommitted work (--commit) is committed without touching the worktree's index until the work landed.
 */
export async function landSession(ctx: Context, idArg: string, opts: LandOptions): Promise<LandResult> {
  let id: string | null = null
  try {
    return await landResolved(ctx, idArg, opts, (row) => (id = row.id))
  } catch (error) {
    // (the session a refusal is about, for pk land --json's refusal document)
    if (error instanceof PkError && id !== null) Object.assign(error, {sessionId: id})
    throw error
  }
}

async function landResolved(ctx: Context, idArg: string, opts: LandOptions, resolved: (row: SessionRow) => void): Promise<LandResult> {
  if (opts.pr && opts.strategy !== 'merge')
    throw new PkError('bad-flags', '--pr opens a pull request for the branch as it is: it takes no --rebase or --squash')
  // Whether there is anything to land first (a session pk made no worktree for has none, whatever it does),
  // then the agent's state: a working one is refused as working, whatever else is wrong.
  const {row, record, base} = await reviewedSession(ctx, idArg, (row) => {
    resolved(row)
    if (row.worktree === null)
      throw new PkError(
        'land-refused',
        `session ${row.id} did not run in a worktree pk made for it (it ran in ${row.cwd ?? 'a folder pk cannot tell'}): there is nothing to land; commit there (pk bg --worktree gives a session a branch of its own)`,
      )
    const busy = whyNotLandable(row, opts.idle)
    if (busy) throw new PkError('session-busy', busy)
  })
  const worktree = record.worktree
  if (!worktree || base.kind !== 'worktree')
    throw new PkError(
      'land-refused',
      `session ${row.id} ran in a plain checkout (${record.cwd}), not a worktree pk made for it: there is nothing to land; commit there`,
    )
  const into = base.branch
  if (into === null) throw new PkError('no-base', `session ${row.id}'s worktree was made from a commit, not a branch: pk does not know where to land it`)
  if (opts.prune && row.state !== 'exited')
    throw new PkError('session-busy', `--prune removes a stopped session: session ${row.id} still runs (pk stop ${row.id} first, or land without --prune)`)
  if (!existsSync(worktree.path))
    throw new PkError('land-refused', `session ${row.id}'s worktree ${worktree.path} is gone (pk resume brings it back from ${worktree.branch})`)
  const repo = worktree.repo
  const branch = worktree.branch
  const steps: string[] = []
  const result: LandResult = {
    id: row.id,
    landed: false,
    dryRun: opts.dryRun,
    strategy: opts.pr ? 'pr' : opts.strategy,
    branch,
    into,
    repo,
    commits: 0,
    commit: null,
    committed: null,
    pushed: false,
    pr: null,
    pruned: false,
    landedTip: null,
    steps,
  }

  // The main checkout: on the branch the worktree was made from, with nothing uncommitted (a pull request leaves it alone).
  if (!opts.pr) {
    const on = await ask(['symbolic-ref', '--quiet', '--short', 'HEAD'], repo)
    if (on !== into) throw new PkError('land-refused', `the main checkout ${repo} is on ${on || 'a detached HEAD'}, not ${into}: check out ${into} there first`)
    const dirty = await readGit(['status', '--porcelain', '--untracked-files=no'], repo, 10_000)
    if (dirty.trim() !== '')
      throw new PkError(
        'land-refused',
        `the main checkout ${repo} has uncommitted changes (${firstPaths(dirty)}): commit or stash them first; nothing was changed`,
      )
  }
  // The worktree: its uncommitted work, committed only when asked.
  const tip = await ask(['rev-parse', '--verify', `refs/heads/${branch}`], repo)
  if (!tip) throw new PkError('land-refused', `branch ${branch} does not exist any more`)
  const worktreeDirty = await readGit(['status', '--porcelain'], worktree.path, 10_000)
  if (worktreeDirty.trim() !== '' && opts.commit === null)
    throw new PkError(
      'land-refused',
      `session ${row.id}'s worktree has uncommitted work (${firstPaths(worktreeDirty)}): commit it there, or pass --commit -m MESSAGE; nothing was changed`,
    )
  let candidate = tip
  if (worktreeDirty.trim() !== '') {
    steps.push(`commit the worktree's uncommitted work on ${branch}`)
    if (!opts.dryRun) {
      candidate = await commitWorkingTree(ctx, worktree.path, tip, `${opts.commit}${trailer(record, row.id)}`)
      result.committed = candidate
    }
  }
  result.commits = Number(await ask(['rev-list', '--count', `${into}..${candidate}`], repo)) + (opts.dryRun && worktreeDirty.trim() !== '' ? 1 : 0)
  if (result.commits === 0) {
    steps.push(`nothing to land: ${branch} has no commits that ${into} lacks`)
    return result
  }

  if (opts.pr) {
    await openPullRequest(ctx, {repo, branch, into, candidate, tip, worktree: worktree.path, record, id: row.id, dryRun: opts.dryRun}, result)
    return result
  }
  await refuseUntrackedInTheWay(repo, into, candidate)

  // Tried before anything changes: a conflict refuses, with the files, and both checkouts stay as they were.
  if (opts.strategy === 'rebase') {
    steps.push(`rebase ${branch} onto ${into} (in a throwaway worktree)`, `fast-forward ${into} to it`)
    if (opts.dryRun) {
      await refuseConflicts(repo, into, candidate)
      return result
    }
    const rebased = await rebaseAside(repo, candidate, into)
    // The worktree first: what the agent wrote since pk took its work stays (or nothing lands).
    await followRebase(worktree.path, candidate, rebased)
    await git(['update-ref', '-m', 'pk land', `refs/heads/${branch}`, rebased, tip], worktree.path)
    await git(['merge', '--ff-only', '--quiet', rebased], repo)
    result.commit = rebased
  } else {
    await refuseConflicts(repo, into, candidate)
    if (opts.strategy === 'squash') {
      steps.push(`squash ${branch} into one commit on ${into}`)
      if (opts.dryRun) return result
      await git(['merge', '--squash', '--quiet', candidate], repo).catch(async (error: unknown) => {
        await git(['reset', '--merge'], repo).catch(() => {})
        throw error
      })
      const message = opts.message ?? `${record.label ?? branch}: the work of session ${row.id}, squashed from ${branch}`
      await git(['commit', '--quiet', '--no-verify', '-m', `${message}${trailer(record, row.id)}`], repo).catch(async (error: unknown) => {
        await git(['reset', '--merge'], repo).catch(() => {})
        throw error
      })
    } else {
      steps.push(`merge ${branch} into ${into} (a fast-forward where it can be, else a merge commit)`)
      if (opts.dryRun) return result
      await git(['merge', '--ff', '--no-edit', '--quiet', '-m', `Merge branch '${branch}' (pk session ${row.id})`, candidate], repo).catch(
        async (error: unknown) => {
          await git(['merge', '--abort'], repo).catch(() => {})
          throw error
        },
      )
    }
    if (candidate !== tip) await moveBranch(worktree.path, branch, candidate, tip)
    result.commit = await ask(['rev-parse', 'HEAD'], repo)
  }
  result.landed = true
  result.landedTip = await ask(['rev-parse', '--verify', `refs/heads/${branch}`], repo)
  if (opts.push) {
    const remote = (await ask(['config', '--get', `branch.${into}.remote`], repo)) || 'origin'
    steps.push(`push ${into} to ${remote}`)
    await git(['push', '--quiet', remote, `${into}:${into}`], repo, 120_000).catch((error: unknown) => {
      throw new PkError('git-failed', `${into} landed (${result.commit?.slice(0, 12)}), but the push failed: ${(error as Error).message}`)
    })
    result.pushed = true
  }
  if (opts.prune) await pruneLanded(ctx, result, record, opts.strategy === 'squash')
  return result
}

/**
 * --prune: the stopped session's record and dead pane (pk prune ID), its worktree (clean: everything in it
 * landed) and its branch: merged, or squashed from exactly the tip that landed.
 */
async function pruneLanded(ctx: Context, result: LandResult, record: SessionRecord, squashed: boolean): Promise<void> {
  const {prune} = await import('./prune.js')
  const run = await prune(ctx, {
    dryRun: false,
    includeResumable: true,
    includeWorktrees: squashed,
    deleteBranches: true,
    ids: [result.id],
    confirm: async () => true,
  })
  const worktree = run.worktrees.find((w) => w.path === record.worktree?.path)
  result.steps.push(
    `prune session ${result.id}: ${run.removed.length > 0 ? 'its record' : 'no record'}; worktree ${worktree?.action === 'remove' ? 'removed' : `kept (${worktree?.reason ?? 'not found'})`}`,
  )
  if (squashed && worktree?.action === 'remove' && !worktree.branchDeleted) {
    // git branch -d refuses a squashed branch (its commits are not ancestors): deleted only while its tip is the one that landed.
    const tip = await ask(['rev-parse', '--verify', `refs/heads/${result.branch}`], result.repo)
    if (tip !== '' && tip === result.landedTip) await git(['branch', '-D', '--', result.branch], result.repo).catch(() => {})
  }
  result.pruned = run.removed.length > 0 && worktree?.action === 'remove'
}

function firstPaths(porcelain: string): string {
  const paths = porcelain
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(3))
  return paths.slice(0, 3).join(', ') + (paths.length > 3 ? `, and ${paths.length - 3} more` : '')
}

/** A commit of everything in the worktree (as `git add -A` would take it) on top of `parent`; the worktree, its index and the branch untouched. */
async function commitWorkingTree(ctx: Context, checkout: string, parent: string, message: string): Promise<string> {
  return withWorkingTreeIndex(
    checkout,
    ctx.env,
    async (env) => {
      const tree = await gitEnv(env, ['write-tree'], checkout)
      return gitEnv(env, ['commit-tree', tree, '-p', parent, '-m', message], checkout)
    },
    {keepObjects: true},
  )
}

async function gitEnv(env: Context['env'], args: string[], cwd: string): Promise<string> {
  const ran = await run(['git', ...args], {cwd, env, deadlineMs: 30_000})
  if (ran.code !== 0) throw new PkError('git-failed', `git ${args[0]}: ${ran.stderr.trim() || ran.error?.message || `exit ${ran.code}`}`)
  return ran.stdout.trim()
}

/**
 * Refuses (land-refused, with the files) when the main checkout holds an untracked file where the work adds
 * one: git's merge would stop on it ("would be overwritten by merge") with the work half taken; checked
 * before anything changes, and said in pk's words.
 */
async function refuseUntrackedInTheWay(repo: string, into: string, candidate: string): Promise<void> {
  const untracked = (await readGit(['status', '--porcelain', '-z', '--untracked-files=all'], repo, 10_000))
    .split('\0')
    .filter((entry) => entry.startsWith('?? '))
    .map((entry) => entry.slice(3))
  if (untracked.length === 0) return
  const added = new Set((await readGit(['diff', '--name-only', '--no-renames', '--diff-filter=A', '-z', `${into}...${candidate}`], repo, 10_000)).split('\0'))
  const inTheWay = untracked.filter((path) => added.has(path))
  if (inTheWay.length > 0)
    throw new PkError(
      'land-refused',
      `the main checkout ${repo} has ${inTheWay.length === 1 ? 'an untracked file' : 'untracked files'} where the session's work adds ${inTheWay.length === 1 ? 'one' : 'them'} (${inTheWay.slice(0, 3).join(', ')}${inTheWay.length > 3 ? `, and ${inTheWay.length - 3} more` : ''}): move ${inTheWay.length === 1 ? 'it' : 'them'} away (or commit ${inTheWay.length === 1 ? 'it' : 'them'}) first; nothing was changed`,
    )
}

/** Refuses (land-conflict, with the files) when merging `candidate` into `into` would conflict; changes nothing. */
async function refuseConflicts(repo: string, into: string, candidate: string): Promise<void> {
  const ran = await run(['git', 'merge-tree', '--write-tree', '--name-only', '--no-messages', into, candidate], {
    cwd: repo,
    env: await guardedEnv(repo, process.env),
    deadlineMs: 30_000,
  })
  if (ran.code === 0) return
  if (ran.code === 1) {
    const files = ran.stdout.split('\n').slice(1).filter(Boolean)
    throw new PkError(
      'land-conflict',
      `${into} and the session's work conflict in ${files.join(', ') || 'some files'}: nothing was changed; resolve it in the worktree (git merge ${into} there), then land again`,
    )
  }
  throw new PkError('git-failed', `git merge-tree: ${ran.stderr.trim() || ran.error?.message || `exit ${ran.code}`} (git 2.38 or later is needed)`)
}

/** Rebase `candidate` onto `into` in a throwaway detached worktree: the new tip, or land-conflict with nothing changed. */
async function rebaseAside(repo: string, candidate: string, into: string): Promise<string> {
  const {mkdtempSync, rmSync} = await import('node:fs')
  const {tmpdir} = await import('node:os')
  const {join} = await import('node:path')
  const parent = mkdtempSync(join(tmpdir(), 'pk-land-'))
  const aside = join(parent, 'rebase')
  try {
    // The repository's own hooks (post-checkout: an install, a build) are not run for pk's throwaway checkout.
    await git(['-c', 'core.hooksPath=/dev/null', 'worktree', 'add', '--quiet', '--detach', aside, candidate], repo)
    const ran = await run(['git', '-c', 'core.hooksPath=/dev/null', 'rebase', '--quiet', into], {cwd: aside, deadlineMs: 120_000})
    if (ran.code !== 0) {
      const files = (await ask(['diff', '--name-only', '--diff-filter=U'], aside)).split('\n').filter(Boolean)
      await git(['rebase', '--abort'], aside).catch(() => {})
      throw new PkError(
        'land-conflict',
        `rebasing onto ${into} conflicts in ${files.join(', ') || 'some files'}: nothing was changed; resolve it in the worktree, then land again`,
      )
    }
    return await ask(['rev-parse', 'HEAD'], aside)
  } finally {
    await git(['worktree', 'remove', '--force', aside], repo).catch(() => {})
    rmSync(parent, {recursive: true, force: true})
    await git(['worktree', 'prune'], repo).catch(() => {})
  }
}

/**
 * The session's branch to `to` (only from `from`: nobody moved it meanwhile), and its worktree with it: the
 * index to the new commit; the files too after a rebase (they were all committed: nothing is lost).
 */
async function moveBranch(worktree: string, branch: string, to: string, from: string): Promise<void> {
  await git(['update-ref', '-m', 'pk land', `refs/heads/${branch}`, to, from], worktree)
  // (the index only: the files stay as the agent left them, whatever it wrote since pk took them)
  await git(['reset', '--quiet', to], worktree)
}

/**
 * After a rebase, the worktree's files follow its branch from `landed` (what pk took of it) to `to`, as git
 * checkout carries local changes: only the files that differ between the two are written, each only where
 * it is still as pk took it. A file the agent changed since (an idle agent may write again), where the rebase
 * changes it too, refuses the whole step (git read-tree checks every file before it writes one): nothing is
 * written, the worktree's index is put back, and nothing lands. Never a hard reset over unseen work. The
 * worktree's index is then `to`'s.
 */
async function followRebase(worktree: string, landed: string, to: string): Promise<void> {
  const env = await guardedEnv(worktree, process.env, {filters: false})
  const indexFile = (await git(['rev-parse', '--path-format=absolute', '--git-path', 'index'], worktree, 10_000, env)).trim()
  const {copyFileSync, existsSync: exists, rmSync} = await import('node:fs')
  const saved = `${indexFile}.pk-land`
  const had = exists(indexFile)
  if (had) copyFileSync(indexFile, saved)
  try {
    await git(['read-tree', landed], worktree, 30_000, env)
    // (what matches `landed` is known as such; what the agent changed since stays changed: read-tree checks it)
    await git(['update-index', '-q', '--refresh'], worktree, 30_000, env).catch(() => {})
    await git(['read-tree', '-m', '-u', landed, to], worktree, 30_000, env)
  } catch (error) {
    if (had) copyFileSync(saved, indexFile)
    const said = (error as Error).message.match(/'([^']+)' not uptodate/g)?.map((m) => m.slice(1, m.indexOf("'", 1))) ?? []
    throw new PkError(
      'land-refused',
      `the agent changed ${said.length > 0 ? said.join(', ') : 'files'} in its worktree since pk took its work, where the rebase changes them too: nothing landed, nothing in the worktree was touched; land again once it is done (pk stop it first)`,
    )
  } finally {
    if (had) rmSync(saved, {force: true})
  }
}

/** --pr: push the session's branch and open a pull request with gh, where gh is installed; how otherwise. */
async function openPullRequest(
  ctx: Context,
  at: {repo: string; branch: string; into: string; candidate: string; tip: string; worktree: string; record: SessionRecord; id: string; dryRun: boolean},
  result: LandResult,
): Promise<void> {
  const remote = (await ask(['config', '--get', `branch.${at.branch}.remote`], at.repo)) || 'origin'
  result.steps.push(`push ${at.branch} to ${remote}`, `open a pull request of ${at.branch} into ${at.into} (gh pr create)`)
  if (at.dryRun) return
  if (at.candidate !== at.tip) await moveBranch(at.worktree, at.branch, at.candidate, at.tip)
  await git(['push', '--quiet', '--set-upstream', remote, `${at.branch}:${at.branch}`], at.repo, 120_000)
  result.pushed = true
  const title = at.record.label ?? at.branch
  const body = `The work of pk session ${at.id}${at.record.agent ? ` (${at.record.agent})` : ''}, from branch ${at.branch}.`
  const ran = await run(['gh', 'pr', 'create', '--base', at.into, '--head', at.branch, '--title', title, '--body', body], {
    cwd: at.repo,
    env: ctx.env,
    deadlineMs: 120_000,
  })
  if (ran.error)
    throw new PkError(
      'no-gh',
      `${at.branch} is pushed to ${remote}; gh (GitHub's CLI) is not installed, so no pull request was opened: install it (https://cli.github.com) and run pk land ${at.id} --pr again, or open one on your forge`,
    )
  if (ran.code !== 0)
    throw new PkError('git-failed', `${at.branch} is pushed to ${remote}, but gh pr create failed: ${ran.stderr.trim() || `exit ${ran.code}`}`)
  result.pr = /https?:\/\/\S+/.exec(ran.stdout)?.[0] ?? (ran.stdout.trim() || null)
  result.landed = true
}
