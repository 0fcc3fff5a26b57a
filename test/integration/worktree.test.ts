import {existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {SessionRow} from '../../src/lib/model/contract.js'
import {GIT_ENV, gitIn, makeRepo} from '../helpers/git-repo.js'
import {LsJson, Sandbox, waitFor} from '../helpers/sandbox.js'

let sb: Sandbox
let repo: string
const gitEnv = GIT_ENV
const git = (cwd: string, ...args: string[]) => gitIn(sb)(cwd, ...args)

beforeEach(() => {
  sb = new Sandbox()
  repo = makeRepo(sb)
})
afterEach(() => sb.cleanup())

const bg = async (args: string[]) => {
  const result = await sb.pk(['bg', '--json', ...args], {cwd: repo, env: gitEnv})
  expect(result.code, result.stderr).toBe(0)
  return (JSON.parse(result.stdout) as {session: SessionRow}).session
}
const rowOf = async (id: string) => (await sb.pkJson<LsJson>(['ls', '--all'], {env: gitEnv})).sessions.find((s) => s.id === id)!

describe('pk bg --worktree', () => {
  it('starts the agent in a new worktree on a new branch, beside the repository; ls shows branch and dirty', async () => {
    const row = await bg(['--worktree', '--name', 'fix-login', '--', 'sleep', '100000'])
    const path = join(sb.root, 'app.worktrees', 'pk-fix-login')
    expect(row.cwd).toBe(path)
    expect(row.worktree).toEqual({path, branch: 'pk/fix-login', dirty: false})
    expect(git(path, 'branch', '--show-current').trim()).toBe('pk/fix-login')
    writeFileSync(join(path, 'new-file'), 'work in progress\n')
    expect((await rowOf(row.id)).worktree).toMatchObject({dirty: true})
    expect((await sb.pk(['ls'], {env: gitEnv})).stdout).toContain('[pk/fix-login*]')
  })

  it('uses an existing branch checked out nowhere, refuses one checked out elsewhere (2), and outside a repository (2)', async () => {
    git(repo, 'branch', 'feature')
    const row = await bg(['--worktree=feature', '--', 'sleep', '100000'])
    expect(row.worktree).toMatchObject({branch: 'feature'})
    const again = await sb.pk(['bg', '--worktree=feature', '--', 'sleep', '1'], {cwd: repo, env: gitEnv})
    expect(again.code).toBe(2)
    expect(again.stderr).toMatch(/branch feature is checked out in .*app\.worktrees\/feature/)
    const main = await sb.pk(['bg', '--worktree=main', '--', 'sleep', '1'], {cwd: repo, env: gitEnv})
    expect(main.code).toBe(2)
    const outside = await sb.pk(['bg', '--worktree', '--', 'sleep', '1'], {cwd: sb.home, env: gitEnv})
    expect(outside.code).toBe(2)
    expect(outside.stderr).toMatch(/not in a git repository/)
  })

  it("runs the repository's setup command first, and reports its failure without starting the agent", async () => {
    mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
    writeFileSync(join(sb.home, '.config', 'pk', 'config.json'), JSON.stringify({worktrees: {setup: {app: ['sh', '-c', 'echo setting up; touch .ready']}}}))
    const ok = await sb.pk(['bg', '--worktree=with-setup', '--', 'sleep', '100000'], {cwd: repo, env: gitEnv})
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stderr).toContain('setting up')
    expect(existsSync(join(sb.root, 'app.worktrees', 'with-setup', '.ready'))).toBe(true)
    writeFileSync(join(sb.home, '.config', 'pk', 'config.json'), JSON.stringify({worktrees: {setup: {'*': ['sh', '-c', 'echo broken >&2; exit 4']}}}))
    const failed = await sb.pk(['bg', '--worktree=broken', '--', 'sleep', '100000'], {cwd: repo, env: gitEnv})
    expect(failed.code).toBe(1)
    expect(failed.stderr).toMatch(/broken[\s\S]*setup command sh -c .* failed \(exit 4\); the agent was not started/)
    expect((await sb.pkJson<LsJson>(['ls'], {env: gitEnv})).sessions).toHaveLength(1)
  })
})

describe('cleaning up worktrees', () => {
  it('prune keeps a dirty or unmerged worktree with the reason, removes a clean merged one, and never deletes work', async () => {
    const merged = await bg(['--worktree=merged', '--', 'sleep', '100000'])
    const dirty = await bg(['--worktree=dirty', '--', 'sleep', '100000'])
    const unmerged = await bg(['--worktree=unmerged', '--', 'sleep', '100000'])
    writeFileSync(join(dirty.cwd!, 'notes'), 'do not lose me\n')
    writeFileSync(join(unmerged.cwd!, 'change'), 'x\n')
    git(unmerged.cwd!, 'add', '.')
    git(unmerged.cwd!, 'commit', '-q', '-m', 'unmerged work')
    expect((await sb.pk(['stop', merged.id, dirty.id, unmerged.id])).code).toBe(0)
    // pk stop leaves the worktrees.
    for (const row of [merged, dirty, unmerged]) expect(existsSync(row.cwd!)).toBe(true)
    const result = await sb.pk(['prune', '--yes', '--json'], {env: gitEnv})
    expect(result.code, result.stderr).toBe(0)
    const {worktrees} = JSON.parse(result.stdout) as {worktrees: {branch: string; action: string; reason: string}[]}
    const by = Object.fromEntries(worktrees.map((w) => [w.branch, w]))
    expect(by.merged).toMatchObject({action: 'remove', reason: expect.stringMatching(/merged/)})
    expect(by.dirty).toMatchObject({action: 'keep', reason: 'it has uncommitted changes'})
    expect(by.unmerged).toMatchObject({action: 'keep', reason: 'unmerged is neither merged nor pushed'})
    expect(existsSync(merged.cwd!)).toBe(false)
    expect(readFileSync(join(dirty.cwd!, 'notes'), 'utf8')).toBe('do not lose me\n')
    expect(existsSync(unmerged.cwd!)).toBe(true)
    // The branch of a removed worktree stays.
    expect(git(repo, 'branch', '--list', 'merged').trim()).toBe('merged')
  })

  it('--include-worktrees --delete-branches also deletes the branches whose work is merged (or empty), never an unmerged one', async () => {
    const empty = await bg(['--worktree=empty', '--', 'sleep', '100000'])
    const done = await bg(['--worktree=done', '--', 'sleep', '100000'])
    const open = await bg(['--worktree=open', '--', 'sleep', '100000'])
    writeFileSync(join(done.cwd!, 'f2'), 'merged work\n')
    git(done.cwd!, 'add', '.')
    git(done.cwd!, 'commit', '-q', '-m', 'merged work')
    git(repo, 'merge', '-q', '--ff-only', 'done')
    writeFileSync(join(open.cwd!, 'f3'), 'open work\n')
    git(open.cwd!, 'add', '.')
    git(open.cwd!, 'commit', '-q', '-m', 'open work')
    expect((await sb.pk(['stop', '--all'])).code).toBe(0)
    expect((await sb.pk(['prune', '--yes', '--delete-branches'], {env: gitEnv})).code).toBe(2)
    const result = await sb.pk(['prune', '--yes', '--include-worktrees', '--delete-branches', '--json'], {env: gitEnv})
    expect(result.code, result.stderr).toBe(0)
    const by = Object.fromEntries((JSON.parse(result.stdout) as {worktrees: {branch: string}[]}).worktrees.map((w) => [w.branch, w]))
    expect(by.empty).toMatchObject({action: 'remove', branchDeleted: true})
    expect(by.done).toMatchObject({action: 'remove', branchDeleted: true})
    expect(by.open).toMatchObject({action: 'remove', branchDeleted: false, branchReason: 'not merged'})
    expect(git(repo, 'branch', '--list', 'empty', 'done', 'open').trim()).toBe('open')
    expect(git(repo, 'log', '-1', '--format=%s', 'open').trim()).toBe('open work')
    for (const row of [empty, done, open]) expect(existsSync(row.cwd!)).toBe(false)
  })

  it('resume runs in the worktree, made again from its branch when its directory was removed', async () => {
    mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
    writeFileSync(
      join(sb.home, '.config', 'pk', 'config.json'),
      JSON.stringify({agents: {napper: {command: ['sleep', '100000'], executables: ['sleep'], resume: ['sleep', '{id}']}}}),
    )
    const first = await bg(['napper', '--worktree=resumable'])
    const file = join(sb.stateDir, 'sessions', `${first.id}.json`)
    writeFileSync(file, JSON.stringify({...JSON.parse(readFileSync(file, 'utf8')), conversationId: '100001'}))
    expect((await sb.pk(['stop', first.id])).code).toBe(0)
    rmSync(first.cwd!, {recursive: true, force: true})
    const resumed = await sb.pk(['resume', first.id, '--json'], {env: gitEnv})
    expect(resumed.code, resumed.stderr).toBe(0)
    const session = (JSON.parse(resumed.stdout) as {session: SessionRow}).session
    expect(session.cwd).toBe(first.cwd)
    expect(session.worktree).toMatchObject({branch: 'resumable'})
    await waitFor('worktree back', () => existsSync(join(first.cwd!, 'README')))
  })
})
