import {copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, isAbsolute, join} from 'node:path'

import {run, RunEnv} from '../exec/run.js'
import type {ChangeSummary, SessionBase} from '../model/contract.js'
import {errnoCode, PkError} from '../model/errors.js'
import {checkOwnGitDir, guardedEnv} from './guard.js'
import {readGit} from './worktree.js'

/**
 * What a session changed since its base (pk diff, pk ls --changes, pk land): its commits, and its
 * uncommitted work, untracked files included. Everything is measured against the whole working tree of
 * its checkout through a throwaway index (GIT_INDEX_FILE in a private temporary directory): the checkout's
 * own index, files, refs and objects are never touched (see withWorkingTreeIndex).
 */

export type FileStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type-changed' | 'unmerged' | 'unknown'

export interface ChangedFile {
  path: string
  /** Where a renamed or copied file came from; else null. */
  oldPath: string | null
  status: FileStatus
  /** Lines added and removed; null for a binary file. */
  insertions: number | null
  deletions: number | null
  binary: boolean
}

export interface Commit {
  commit: string
  subject: string
  author: string
  date: string
}

export interface Changes {
  files: ChangedFile[]
  insertions: number
  deletions: number
  commits: Commit[]
  /** Uncommitted work in the checkout (tracked changes or untracked files). */
  dirty: boolean
  /** The commit the checkout is on now. */
  head: string
}

const GIT_DIFF_DEADLINE_MS = 30_000

const STATUS: Record<string, FileStatus> = {A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'type-changed', U: 'unmerged'}

/** Pure: `git diff --numstat -z` -> one entry per file (a rename: `ins\tdel\t\0old\0new\0`). */
export function parseNumstat(text: string): {path: string; oldPath: string | null; insertions: number | null; deletions: number | null}[] {
  const out: {path: string; oldPath: string | null; insertions: number | null; deletions: number | null}[] = []
  const parts = text.split('\0')
  for (let i = 0; i < parts.length; i++) {
    const head = parts[i]!
    if (head === '') continue
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(head)
    if (!match) continue
    const counts = {insertions: match[1] === '-' ? null : Number(match[1]), deletions: match[2] === '-' ? null : Number(match[2])}
    if (match[3] === '') {
      const oldPath = parts[++i] ?? ''
      const path = parts[++i] ?? ''
      out.push({path, oldPath, ...counts})
    } else out.push({path: match[3]!, oldPath: null, ...counts})
  }
  return out
}

/** Pure: `git diff --name-status -z` -> each file's status (`R100\0old\0new\0` for a rename). */
export function parseNameStatus(text: string): Map<string, FileStatus> {
  const out = new Map<string, FileStatus>()
  const parts = text.split('\0')
  for (let i = 0; i < parts.length; i++) {
    const code = parts[i]!
    if (code === '') continue
    const status = STATUS[code[0]!] ?? 'unknown'
    if (code[0] === 'R' || code[0] === 'C') {
      i++
      out.set(parts[++i] ?? '', status)
    } else out.set(parts[++i] ?? '', status)
  }
  return out
}

/** Pure: `git log -z --format=%H%x1f%an%x1f%aI%x1f%s` -> commits, newest first. */
export function parseCommits(text: string): Commit[] {
  return text
    .split('\0')
    .filter((entry) => entry.trim() !== '')
    .map((entry) => {
      const [commit, author, date, subject] = entry.replace(/^\n/, '').split('\x1f')
      return {commit: commit ?? '', author: author ?? '', date: date ?? '', subject: subject ?? ''}
    })
}

/** Pure: the files of a diff, with numbers and status joined. */
export function joinFiles(numstat: ReturnType<typeof parseNumstat>, statuses: Map<string, FileStatus>): ChangedFile[] {
  return numstat.map((n) => ({
    path: n.path,
    oldPath: n.oldPath,
    status: statuses.get(n.path) ?? 'unknown',
    insertions: n.insertions,
    deletions: n.deletions,
    binary: n.insertions === null,
  }))
}

/** Pure: the counts of a set of changes. */
export function summarize(changes: Changes): ChangeSummary {
  return {files: changes.files.length, insertions: changes.insertions, deletions: changes.deletions, commits: changes.commits.length, dirty: changes.dirty}
}

/** git in `cwd` with the throwaway index: resolves stdout, rejects with git's own words. */
async function gitWith(env: RunEnv, args: string[], cwd: string): Promise<string> {
  const ran = await run(['git', ...args], {cwd, env, deadlineMs: GIT_DIFF_DEADLINE_MS})
  if (ran.error)
    throw errnoCode(ran.error) === 'ENOENT'
      ? new PkError('no-git', 'git is not installed or not on PATH')
      : new PkError('git-failed', `git ${args[0]}: ${ran.error.message}`)
  if (ran.code === 0) return ran.stdout
  throw new PkError('git-failed', `git ${args[0]}: ${ran.timedOut ? 'no answer in time' : ran.stderr.trim() || `exit ${ran.code ?? ran.signal}`}`)
}

/**
 * Run `fn` with an environment whose GIT_INDEX_FILE is a throwaway index holding the checkout's whole
 * working tree as `git add -A` would stage it (ignored files left out), so that `git diff --cached BASE`
 * is everything the session changed. The objects that takes (the blobs of new and changed files) go to a
 * throwaway object directory too, the repository's own read as an alternate: a reader leaves the
 * repository as it was. `keepObjects` writes them into the repository (pk land commits them).
 */
export async function withWorkingTreeIndex<T>(checkout: string, env: RunEnv, fn: (env: RunEnv) => Promise<T>, opts: {keepObjects?: boolean} = {}): Promise<T> {
  // (a read runs no program the checkout's configuration names, see guard.ts; a commit pk land makes
  // (keepObjects) keeps its filters)
  const guarded = await guardedEnv(checkout, env, {filters: !opts.keepObjects})
  const dir = mkdtempSync(join(tmpdir(), 'pk-index-'))
  const gitDir = gitDirOf(checkout)
  const objects = gitDir === null || opts.keepObjects ? null : objectsDirOf(gitDir)
  const indexed: RunEnv = {
    ...guarded,
    GIT_INDEX_FILE: join(dir, 'index'),
    GIT_OPTIONAL_LOCKS: '0',
    ...(objects === null ? {} : {GIT_OBJECT_DIRECTORY: join(dir, 'objects'), GIT_ALTERNATE_OBJECT_DIRECTORIES: objects}),
  }
  try {
    if (objects !== null) mkdirSync(join(dir, 'objects'))
    // A copy of the checkout's own index, dated as it is (git's racy-entry check goes by that date), keeps
    // what git knows of each file's stat: only changed files are read again. Without one, HEAD's tree.
    if (gitDir === null || !copyIndex(join(gitDir, 'index'), indexed.GIT_INDEX_FILE!)) await gitWith(indexed, ['read-tree', 'HEAD'], checkout)
    await gitWith(indexed, ['add', '--all', '--', ':/'], checkout)
    return await fn(indexed)
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

/** Pure: where a checkout's index is, from its `.git`: a directory (a main checkout), or a file naming the worktree's git directory. */
export function indexPathOf(checkout: string, dotGit: {directory: true} | {directory: false; text: string}): string | null {
  if (dotGit.directory) return join(checkout, '.git', 'index')
  const gitdir = /^gitdir: (.+)$/m.exec(dotGit.text)?.[1]?.trim()
  if (!gitdir) return null
  return join(isAbsolute(gitdir) ? gitdir : join(checkout, gitdir), 'index')
}

/** The checkout's git directory (its `.git`, or the one a worktree's `.git` file names), or null. */
function gitDirOf(checkout: string): string | null {
  try {
    const dotGit = join(checkout, '.git')
    const index = indexPathOf(
      checkout,
      lstatSync(dotGit).isDirectory() ? {directory: true} : {directory: false, text: readFileSync(dotGit, 'utf8').slice(0, 4096)},
    )
    return index === null ? null : dirname(index)
  } catch {
    return null
  }
}

/** The repository's object directory: a worktree's git directory names the common one in `commondir`. */
function objectsDirOf(gitDir: string): string | null {
  let common = gitDir
  try {
    const named = readFileSync(join(gitDir, 'commondir'), 'utf8').trim()
    common = isAbsolute(named) ? named : join(gitDir, named)
  } catch {
    // a main checkout's .git: the common directory itself
  }
  const objects = join(common, 'objects')
  return existsSync(objects) ? objects : null
}

/** Copy an index to `to` with its dates; false where there is none to copy (a regular file, at most 256 MiB). */
function copyIndex(from: string, to: string): boolean {
  try {
    const index = lstatSync(from)
    if (!index.isFile() || index.size > 256 * 1024 * 1024) return false
    copyFileSync(from, to)
    utimesSync(to, index.atime, index.mtime)
    return true
  } catch {
    return false
  }
}

/** Checked before anything is measured: the checkout is there, and the base is a commit of it. */
export async function checkBase(base: SessionBase, id: string, repo: string | null = null): Promise<void> {
  // A worktree pk made reads through its repository's own git directory, or not at all.
  if (base.kind === 'worktree' && repo !== null && existsSync(base.checkout)) await checkOwnGitDir(base.checkout, repo, process.env)
  await readGit(['rev-parse', '--show-toplevel'], base.checkout, 5000).catch((error: unknown) => {
    if (error instanceof PkError && error.code === 'no-git') throw error
    throw new PkError('no-base', `session ${id} ran in ${base.checkout}, which is no git checkout now (removed?); nothing to compare`)
  })
  const known = await readGit(['cat-file', '-e', `${base.commit}^{commit}`], base.checkout, 5000).then(
    () => true,
    () => false,
  )
  if (!known) throw new PkError('no-base', `session ${id} started from ${base.commit.slice(0, 12)}, which its repository no longer has; nothing to compare`)
}

/** Everything a session changed since its base, with git's own numbers; `paths` limits it (git pathspecs). */
export async function changesOf(base: SessionBase, env: RunEnv, paths: string[] = []): Promise<Changes> {
  return withWorkingTreeIndex(base.checkout, env, async (indexed) => {
    const spec = ['--', ...(paths.length > 0 ? paths : [':/'])]
    const [numstat, names, log, head, dirty] = await Promise.all([
      gitWith(indexed, ['diff', '--cached', '--numstat', '-z', '--no-color', '--no-ext-diff', '--no-textconv', base.commit, ...spec], base.checkout),
      gitWith(indexed, ['diff', '--cached', '--name-status', '-z', '--no-color', '--no-ext-diff', '--no-textconv', base.commit, ...spec], base.checkout),
      gitWith(indexed, ['log', '-z', '--no-color', '--format=%H%x1f%an%x1f%aI%x1f%s', `${base.commit}..HEAD`], base.checkout),
      gitWith(indexed, ['rev-parse', 'HEAD'], base.checkout),
      gitWith(indexed, ['diff', '--cached', '--name-only', '-z', 'HEAD'], base.checkout),
    ])
    const files = joinFiles(parseNumstat(numstat), parseNameStatus(names))
    return {
      files,
      insertions: files.reduce((n, f) => n + (f.insertions ?? 0), 0),
      deletions: files.reduce((n, f) => n + (f.deletions ?? 0), 0),
      commits: parseCommits(log),
      dirty: dirty !== '',
      head: head.trim(),
    }
  })
}

/**
 * The argv that shows the diff itself (a patch, `--stat` or `--name-only`), run with the throwaway index's
 * environment: on a terminal git pages and colours it as the user configured git; into a pipe it is plain.
 */
export function diffArgv(base: SessionBase, mode: 'patch' | 'stat' | 'name-only', paths: string[]): string[] {
  return [
    'git',
    'diff',
    '--cached',
    // (no program of the checkout's: an external diff, a textconv)
    '--no-ext-diff',
    '--no-textconv',
    ...(mode === 'stat' ? ['--stat'] : mode === 'name-only' ? ['--name-only'] : []),
    base.commit,
    '--',
    ...(paths.length > 0 ? paths : [':/']),
  ]
}

/** pk ls --changes: the counts only (no names, no commit subjects): three git calls on the throwaway index. */
async function summaryOf(base: SessionBase, env: RunEnv): Promise<ChangeSummary> {
  return withWorkingTreeIndex(base.checkout, env, async (indexed) => {
    const [numstat, commits, dirty] = await Promise.all([
      gitWith(indexed, ['diff', '--cached', '--numstat', '-z', '--no-color', '--no-ext-diff', '--no-textconv', base.commit, '--', ':/'], base.checkout),
      gitWith(indexed, ['rev-list', '--count', `${base.commit}..HEAD`], base.checkout),
      gitWith(indexed, ['diff', '--cached', '--name-only', '-z', 'HEAD'], base.checkout),
    ])
    const files = parseNumstat(numstat)
    return {
      files: files.length,
      insertions: files.reduce((n, f) => n + (f.insertions ?? 0), 0),
      deletions: files.reduce((n, f) => n + (f.deletions ?? 0), 0),
      commits: Number(commits.trim()) || 0,
      dirty: dirty !== '',
    }
  })
}

/** How many checkouts are measured at once (pk ls --changes): each is a few git calls. */
const AT_ONCE = 4

/**
 * The summary of each base's changes, keyed by `checkout commit`: each distinct checkout and base measured
 * once (sessions that share a checkout share its changes), a few at a time; null where git could not say.
 */
export async function summarizeAll(bases: SessionBase[], env: RunEnv): Promise<Map<string, ChangeSummary | null>> {
  const distinct = new Map<string, SessionBase>()
  for (const base of bases) distinct.set(baseKey(base), base)
  const out = new Map<string, ChangeSummary | null>()
  const queue = [...distinct]
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [key, base] = next
      out.set(key, await summaryOf(base, env).catch(() => null))
    }
  }
  await Promise.all(Array.from({length: Math.min(AT_ONCE, queue.length)}, worker))
  return out
}

export const baseKey = (base: SessionBase) => `${base.checkout} ${base.commit}`

/**
 * What the dashboard keeps of each checkout's changes between its refreshes (in memory: a reader writes no
 * cache): a checkout is measured again, in the background, once its index changed or its last measure is
 * `maxAgeMs` old (an edit git has not seen leaves the index as it was), never two at once for one checkout.
 */
export class ChangeWatch {
  private readonly known = new Map<string, {summary: ChangeSummary | null; at: number; index: string}>()
  private readonly running = new Set<string>()

  constructor(
    private readonly env: RunEnv,
    private readonly onMeasured: () => void,
    private readonly maxAgeMs = 15_000,
  ) {}

  /** The last summary of each base (undefined: not measured yet); stale ones are measured again meanwhile. */
  look(bases: SessionBase[], now = Date.now()): Map<string, ChangeSummary | null | undefined> {
    const out = new Map<string, ChangeSummary | null | undefined>()
    for (const base of bases) {
      const key = baseKey(base)
      const last = this.known.get(key)
      out.set(key, last?.summary)
      const index = indexStamp(base.checkout)
      if ((last === undefined || last.index !== index || now - last.at >= this.maxAgeMs) && !this.running.has(key) && this.running.size < AT_ONCE) {
        this.running.add(key)
        void summaryOf(base, this.env)
          .catch(() => null)
          .then((summary) => {
            this.known.set(key, {summary, at: Date.now(), index})
            this.running.delete(key)
            this.onMeasured()
          })
      }
    }
    return out
  }
}

/** The checkout's index as of now (size and date), or '' where there is none to read. */
function indexStamp(checkout: string): string {
  const gitDir = gitDirOf(checkout)
  try {
    const index = gitDir === null ? null : lstatSync(join(gitDir, 'index'))
    return index ? `${index.size} ${index.mtimeMs}` : ''
  } catch {
    return ''
  }
}
