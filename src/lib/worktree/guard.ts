import {realpathSync} from 'node:fs'
import {isAbsolute, join, resolve} from 'node:path'

import {run, RunEnv} from '../exec/run.js'
import {PkError} from '../model/errors.js'

/**
 * Reading an agent's work never runs code the agent configured. git runs programs its configuration names
 * on a plain read: `core.fsmonitor` (on status, add), a clean filter (`filter.NAME.clean`/`.process`, on add
 * and diff of a file the attributes give that filter), an external diff and a textconv (`diff.external`,
 * `diff.NAME.command`/`.textconv`), hooks, and `core.pager`. The agent can write its checkout's
 * `.gitattributes` and, running as you, the repository's config; so every read pk makes of a checkout runs
 * git with all of those turned off, through git's own environment for configuration (GIT_CONFIG_COUNT,
 * which outranks every config file), whatever the files say. The programs named are never run to find out
 * what they are: their names are read with `git config` (which runs none).
 */

/** Pure: the configuration that turns off every program a read could run, for the filter and diff drivers named. */
export function guardConfig(drivers: {filters: string[]; diffs: string[]}): [string, string][] {
  const pairs: [string, string][] = [
    ['core.fsmonitor', 'false'],
    ['core.hooksPath', '/dev/null'],
    ['core.pager', 'cat'],
    ['diff.external', ''],
    // (git log verifies signatures with gpg.program when log.showSignature says so; status runs git log in
    // each submodule for its summary)
    ['log.showSignature', 'false'],
    ['status.submoduleSummary', 'false'],
  ]
  for (const name of drivers.filters) for (const key of ['clean', 'smudge', 'process']) pairs.push([`filter.${name}.${key}`, ''])
  for (const name of drivers.filters) pairs.push([`filter.${name}.required`, 'false'])
  for (const name of drivers.diffs) for (const key of ['command', 'textconv']) pairs.push([`diff.${name}.${key}`, ''])
  return pairs
}

/** Pure: configuration pairs as git's environment takes them (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n). */
export function configEnv(pairs: [string, string][]): Record<string, string> {
  const env: Record<string, string> = {GIT_CONFIG_COUNT: String(pairs.length)}
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key
    env[`GIT_CONFIG_VALUE_${i}`] = value
  })
  return env
}

/** Pure: the filter and diff drivers `git config -z --get-regexp` names (`filter.lfs.clean\ngit-lfs clean -- %f\0`). */
export function parseDrivers(text: string): {filters: string[]; diffs: string[]} {
  const filters = new Set<string>()
  const diffs = new Set<string>()
  for (const entry of text.split('\0')) {
    const key = entry.split('\n')[0]!
    const filter = /^filter\.(.+)\.(clean|smudge|process|required)$/.exec(key)
    if (filter) filters.add(filter[1]!)
    const diff = /^diff\.(.+)\.(command|textconv|cachetextconv)$/.exec(key)
    if (diff) diffs.add(diff[1]!)
  }
  return {filters: [...filters], diffs: [...diffs]}
}

/**
 * The environment for git reads of `checkout`: `env` with every program git could run turned off (see
 * above), an external diff program unset, and git's pager the user's own (GIT_PAGER or PAGER, never a
 * repository's `core.pager`). `filters: false` keeps the filters: for a commit pk land makes, not a read.
 */
export async function guardedEnv(checkout: string, env: RunEnv, opts: {filters?: boolean} = {}): Promise<RunEnv> {
  const listed = await run(['git', 'config', '-z', '--get-regexp', '^(filter|diff)\\.'], {cwd: checkout, env, deadlineMs: 10_000})
  // (exit 1: no such key; anything else: the reads that follow say what is wrong)
  const named = ran(listed) ? parseDrivers(listed.stdout) : {filters: [], diffs: []}
  // (pk land --commit writes a commit of the worktree: its filters (git-lfs's clean) stay, as that is what a commit there would take)
  const drivers = opts.filters === false ? {filters: [], diffs: named.diffs} : named
  const guarded: Record<string, string | undefined> = {...env, ...configEnv(guardConfig(drivers)), GIT_PAGER: env.GIT_PAGER || env.PAGER || 'less'}
  delete guarded.GIT_EXTERNAL_DIFF
  return guarded
}

const ran = (r: Awaited<ReturnType<typeof run>>) => r.error === null && r.code === 0

/**
 * A worktree's git directory must be its repository's own (`REPO/.git/worktrees/NAME`): its `.git` file can
 * name any directory, one the agent made inside the worktree with a configuration of its own. Refused
 * (exit 5) otherwise; `repo` is the repository's main checkout.
 */
export async function checkOwnGitDir(worktree: string, repo: string, env: RunEnv): Promise<void> {
  const ask = async (cwd: string) => {
    const r = await run(['git', 'rev-parse', '--path-format=absolute', '--git-common-dir'], {cwd, env, deadlineMs: 10_000})
    return ran(r) ? real(r.stdout.trim()) : null
  }
  const [theirs, ours] = await Promise.all([ask(worktree), ask(repo)])
  if (theirs === null || ours === null || theirs !== ours)
    throw new PkError(
      'unsafe-checkout',
      `${worktree}'s git directory is not its repository's own (${theirs ?? 'none'}, not ${ours ?? repo}): its .git names another; pk reads nothing there (its configuration could run programs)`,
    )
}

const real = (path: string) => {
  try {
    return realpathSync(path)
  } catch {
    return isAbsolute(path) ? resolve(path) : join('/', path)
  }
}
