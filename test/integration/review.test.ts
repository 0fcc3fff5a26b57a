import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Ajv} from 'ajv'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {SessionRow} from '../../src/lib/model/contract.js'
import {claudePayload} from '../helpers/reporting-session.js'
import {GIT_ENV, gitIn, makeRepo} from '../helpers/git-repo.js'
import {LsJson, PK_BIN, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'

/**
 * Issue 54: what an agent changed (pk diff, pk ls --changes) and taking it (pk land), on real git
 * repositories and real tmux. git's own numbers and trees are the oracle.
 */
let sb: Sandbox
let repo: string
const gitEnv = GIT_ENV
const git = (cwd: string, ...args: string[]) => gitIn(sb)(cwd, ...args)
const shape = (name: string) => new Ajv({allowUnionTypes: true}).compile(JSON.parse(readFileSync(join(ROOT, 'schemas', `${name}.schema.json`), 'utf8')))

beforeEach(() => {
  sb = new Sandbox()
  repo = makeRepo(sb, {README: 'app\n', 'lib.txt': 'one\ntwo\nthree\n'})
})
afterEach(() => sb.cleanup())

const pk = (args: string[], cwd = repo) => sb.pk(args, {cwd, env: gitEnv})
const bg = async (args: string[], cwd = repo) => {
  const result = await pk(['bg', '--json', ...args], cwd)
  expect(result.code, result.stderr).toBe(0)
  return (JSON.parse(result.stdout) as {session: SessionRow}).session
}
/** A worktree session (a sleep), and its worktree. */
const worktreeSession = async (name: string) => {
  const row = await bg(['--worktree', '--name', name, '--', 'sleep', '100000'])
  return {id: row.id, path: row.cwd!, branch: row.worktree!.branch}
}
const stop = async (id: string) => expect((await pk(['stop', id])).code).toBe(0)
/** Both checkouts as git and the disk see them: status, HEAD, refs, and every file's hash. */
function snapshot(...dirs: string[]): string[] {
  const out: string[] = []
  for (const dir of dirs) {
    out.push(`${dir} status ${git(dir, 'status', '--porcelain', '--untracked-files=all')}`, `${dir} HEAD ${git(dir, 'rev-parse', 'HEAD')}`)
    const walk = (at: string) => {
      for (const name of readdirSync(at).sort()) {
        if (name === '.git') continue
        const path = join(at, name)
        if (statSync(path).isDirectory()) walk(path)
        else out.push(`${path} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`)
      }
    }
    walk(dir)
  }
  out.push(git(repo, 'for-each-ref', '--format=%(refname) %(objectname)'))
  return out
}

describe('pk diff', () => {
  it('shows a worktree session’s commits, uncommitted changes and untracked files; --stat, --name-only and --json agree with git', async () => {
    const s = await worktreeSession('diffing')
    writeFileSync(join(s.path, 'committed.txt'), 'a\nb\n')
    git(s.path, 'add', 'committed.txt')
    git(s.path, 'commit', '-q', '-m', 'add committed')
    writeFileSync(join(s.path, 'lib.txt'), 'one\nTWO\nthree\nfour\n')
    writeFileSync(join(s.path, 'untracked.txt'), 'new\nfile\nhere\n')
    writeFileSync(join(s.path, 'blob.bin'), Buffer.from([0, 1, 2, 0, 255]))
    const before = snapshot(s.path)
    const objects = () => git(repo, 'count-objects', '-v')

    const objectsBefore = objects()
    const patch = await pk(['diff', s.id])
    expect(patch.code, patch.stderr).toBe(0)
    for (const file of ['committed.txt', 'lib.txt', 'untracked.txt', 'blob.bin']) expect(patch.stdout).toContain(`b/${file}`)
    expect(patch.stdout).toContain('+TWO')
    expect(patch.stdout.includes('\u001b[')).toBe(false) // into a pipe: plain
    const stat = await pk(['diff', s.id, '--stat'])
    const names = await pk(['diff', s.id, '--name-only'])
    const json = await pk(['diff', s.id, '--json'])
    expect(json.code, json.stderr).toBe(0)
    const doc = JSON.parse(json.stdout)
    expect(shape('diff')(doc), JSON.stringify(shape('diff').errors)).toBe(true)
    const only = await pk(['diff', s.id, '--name-only', '--', 'lib.txt'])
    expect(only.stdout).toBe('lib.txt\n')
    // Nothing of the worktree changed: not its index, not its files, not the repository's objects.
    expect(snapshot(s.path)).toEqual(before)
    expect(objects()).toBe(objectsBefore)

    // git's own numbers: everything staged in the worktree's real index, against the recorded base.
    const base = doc.base.commit
    expect(base).toBe(git(repo, 'rev-parse', 'main').trim())
    git(s.path, 'add', '-A')
    expect(stat.stdout).toBe(git(s.path, 'diff', '--cached', '--stat', base))
    expect(names.stdout).toBe(git(s.path, 'diff', '--cached', '--name-only', base))
    const numstat = git(s.path, 'diff', '--cached', '--numstat', base)
      .trim()
      .split('\n')
      .map((l) => l.split('\t'))
    expect(
      doc.files.map((f: {path: string; insertions: number | null; deletions: number | null}) => [
        String(f.insertions ?? '-'),
        String(f.deletions ?? '-'),
        f.path,
      ]),
    ).toEqual(numstat)
    expect(doc.files.find((f: {path: string}) => f.path === 'blob.bin')).toMatchObject({binary: true, status: 'added', insertions: null})
    expect(doc.files.find((f: {path: string}) => f.path === 'untracked.txt')).toMatchObject({status: 'added', insertions: 3, deletions: 0})
    expect(doc.files.find((f: {path: string}) => f.path === 'lib.txt')).toMatchObject({status: 'modified', insertions: 2, deletions: 1})
    expect(doc.commits.map((c: {subject: string}) => c.subject)).toEqual(['add committed'])
    expect(doc).toMatchObject({scope: 'worktree', dirty: true, insertions: 7, deletions: 1, base: {branch: 'main', kind: 'worktree', checkout: s.path}})

    // pk ls --changes says the same, in its JSON and its table; without --changes there is no such field.
    const listed = (await sb.pkJson<LsJson>(['ls', '--changes'], {env: gitEnv})).sessions.find((r) => r.id === s.id)!
    expect(listed.changes).toEqual({files: 4, insertions: 7, deletions: 1, commits: 1, dirty: true})
    expect((await sb.pkJson<LsJson>(['ls'], {env: gitEnv})).sessions.find((r) => r.id === s.id)).not.toHaveProperty('changes')
    const table = await pk(['ls', '--changes', '-o', 'id,changes', s.id])
    expect(table.stdout).toBe(`ID\tCHANGES\n${s.id}\t4f +7 -1 1c *\n`)

    // The dashboard measures it in the background and shows it on the session's line.
    const term = sb.socket('term')
    sb.tmux(term, 'new-session', '-d', '-x', '160', '-y', '20', '-s', 'term', '--', 'env', '-u', 'TMUX', '-u', 'TMUX_PANE', 'sleep', '100000')
    sb.tmux(term, 'respawn-pane', '-k', '-t', 'term', '--', 'env', '-u', 'TMUX', '-u', 'TMUX_PANE', process.execPath, PK_BIN, 'ui')
    const line = () =>
      sb
        .tmux(term, 'capture-pane', '-p', '-t', 'term')
        .split('\n')
        .find((l) => l.includes(s.id))
    await waitFor('the dashboard shows the changes', () => line()?.includes('4f +7 -1 1c *'), 15_000)
    sb.tmux(term, 'kill-server')
  })

  it('a session in a plain checkout: against the HEAD it started from, saying it is the checkout’s diff; one from before bases: refused, exit 5', async () => {
    const row = await bg(['--', 'sleep', '100000'])
    const started = git(repo, 'rev-parse', 'HEAD').trim()
    writeFileSync(join(repo, 'README'), 'app\nmore\n')
    git(repo, 'commit', '-q', '-am', 'later')
    writeFileSync(join(repo, 'notes.txt'), 'x\n')
    const text = await pk(['diff', row.id, '--name-only'])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toBe('README\nnotes.txt\n')
    expect(text.stderr).toMatch(
      /a checkout others may change too: this is everything the checkout changed since the session started, not only the agent's work/,
    )
    const doc = JSON.parse((await pk(['diff', row.id, '--json'])).stdout)
    expect(doc).toMatchObject({scope: 'checkout', base: {commit: started, branch: 'main', kind: 'checkout', checkout: repo}, dirty: true})
    expect(doc.commits.map((c: {subject: string}) => c.subject)).toEqual(['later'])

    // A record from before pk recorded bases (the field taken out), and a session started outside git.
    const file = join(sb.stateDir, 'sessions', `${row.id}.json`)
    const record = JSON.parse(readFileSync(file, 'utf8'))
    delete record.base
    writeFileSync(file, JSON.stringify(record))
    const old = await pk(['diff', row.id])
    expect(old.code).toBe(5)
    expect(old.stderr).toMatch(new RegExp(`session ${row.id} has no recorded base: it started outside a git checkout, or before pk recorded`))
    const outside = await bg(['--', 'sleep', '100000'], sb.home)
    expect((await pk(['diff', outside.id, '--json'])).code).toBe(5)
    expect((await pk(['land', outside.id])).code).toBe(5)
    // A malformed id and an unknown one, as everywhere.
    expect((await pk(['diff', 'zz'])).code).toBe(2)
    expect((await pk(['diff', 'ffffffff'])).code).toBe(3)
  })
})

describe("reading an agent's work runs none of its code (issue 62, item 3)", () => {
  it("fsmonitor, a clean filter, an external diff, a textconv and a pager the worktree's config names: none runs on any read", async () => {
    const s = await worktreeSession('hostile')
    const ran = join(sb.root, 'ran')
    const tool = (name: string) => {
      const path = join(sb.root, `${name}.sh`)
      // (each leaves its name in `ran`, and does what git asks of it, so that git goes on)
      writeFileSync(path, `#!/bin/sh\necho ${name} >> '${ran}'\ncat\n`, {mode: 0o755})
      return path
    }
    // What the agent can write: its checkout's attributes and the repository's (shared) configuration.
    writeFileSync(join(s.path, '.gitattributes'), '*.txt filter=evil diff=evil\n')
    git(s.path, 'config', 'filter.evil.clean', tool('clean'))
    git(s.path, 'config', 'filter.evil.process', tool('process'))
    git(s.path, 'config', 'diff.evil.textconv', tool('textconv'))
    git(s.path, 'config', 'diff.evil.command', tool('diffcmd'))
    git(s.path, 'config', 'core.fsmonitor', tool('fsmonitor'))
    git(s.path, 'config', 'diff.external', tool('external'))
    git(s.path, 'config', 'core.pager', tool('pager'))
    git(s.path, 'config', 'log.showSignature', 'true')
    git(s.path, 'config', 'gpg.program', tool('gpg'))
    writeFileSync(join(s.path, 'lib.txt'), 'one\nTWO\n')
    writeFileSync(join(s.path, 'new.txt'), 'new\n')
    await stop(s.id)
    for (const args of [
      ['diff', s.id, '--json'],
      ['diff', s.id, '--stat'],
      ['diff', s.id],
      ['ls', '--changes', '--json'],
      ['land', s.id, '--dry-run', '--commit', '-m', 'x'],
      ['prune', '--dry-run', '--include-worktrees'],
    ]) {
      const result = await pk(args)
      expect([args.join(' '), result.code], result.stderr).toEqual([args.join(' '), 0])
    }
    // pk diff on a terminal, where git would page: the user's pager (PAGER), never the repository's.
    const term = sb.socket('term')
    const out = join(sb.root, 'paged')
    sb.tmux(
      term,
      'new-session',
      '-d',
      '-x',
      '120',
      '-y',
      '30',
      '--',
      'sh',
      '-c',
      `PAGER=cat '${process.execPath}' '${PK_BIN}' diff ${s.id} > /dev/tty; echo done > '${out}'; sleep 100000`,
    )
    await waitFor('pk diff on a terminal ended', () => existsSync(out), 20_000)
    sb.tmux(term, 'kill-server')
    expect(existsSync(ran) ? readFileSync(ran, 'utf8') : '').toBe('')
  })

  it('a worktree whose .git names a git directory of its own (inside it) is read not at all: refused, exit 5', async () => {
    const s = await worktreeSession('own-gitdir')
    // A git directory the agent made, with a configuration of its own.
    const fake = join(s.path, 'fake-git')
    git(sb.root, 'init', '-q', '--bare', fake)
    writeFileSync(join(s.path, '.git'), `gitdir: ${fake}\n`)
    const diff = await pk(['diff', s.id, '--json'])
    expect(diff.code).toBe(5)
    expect(diff.stderr).toMatch(/is not its repository's own/)
  })
})

describe('pk land', () => {
  /** A stopped worktree session with one commit changing `file`, main moved on by a commit changing `other` (or not). */
  async function landable(name: string, opts: {mainMoves: boolean; conflict?: boolean}) {
    const s = await worktreeSession(name)
    writeFileSync(join(s.path, 'lib.txt'), 'one\ntwo (agent)\nthree\n')
    writeFileSync(join(s.path, `${name}.txt`), `${name}\n`)
    git(s.path, 'add', '-A')
    git(s.path, 'commit', '-q', '-m', `${name}: work`)
    if (opts.mainMoves) {
      writeFileSync(join(repo, opts.conflict ? 'lib.txt' : 'README'), opts.conflict ? 'one\ntwo (you)\nthree\n' : `app\nby you, beside ${name}\n`)
      git(repo, 'commit', '-q', '-am', 'yours')
    }
    await stop(s.id)
    return s
  }
  const treeOf = (rev: string) => git(repo, 'rev-parse', `${rev}^{tree}`).trim()

  it('fast-forwards, or makes a merge commit: the tree git’s own merge makes', async () => {
    const ff = await landable('ff', {mainMoves: false})
    const tip = git(repo, 'rev-parse', ff.branch).trim()
    const done = await pk(['land', ff.id, '--json'])
    expect(done.code, done.stderr).toBe(0)
    const doc = JSON.parse(done.stdout)
    expect(shape('land')(doc), JSON.stringify(shape('land').errors)).toBe(true)
    expect(doc).toMatchObject({landed: true, strategy: 'merge', commits: 1, into: 'main', branch: ff.branch, commit: tip})
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(tip)
    expect(git(repo, 'status', '--porcelain')).toBe('')

    const merged = await landable('merged', {mainMoves: true})
    const expected = git(repo, 'merge-tree', '--write-tree', 'main', merged.branch).trim()
    const again = await pk(['land', merged.id])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toMatch(/landed 1 commit\(s\) of pk\/merged in main/)
    expect(git(repo, 'rev-list', '--parents', '-n', '1', 'HEAD').trim().split(' ')).toHaveLength(3)
    expect(treeOf('HEAD')).toBe(expected)
    // The branch is merged now: pk prune removes the worktree as it does any merged one.
    const pruned = await pk(['prune', merged.id, '--yes', '--json'])
    expect(pruned.code, pruned.stderr).toBe(0)
    expect(existsSync(merged.path)).toBe(false)
  })

  it('--rebase replays the work and fast-forwards; --squash makes one commit: each the tree git makes', async () => {
    const r = await landable('rebased', {mainMoves: true})
    const expected = git(repo, 'merge-tree', '--write-tree', 'main', r.branch).trim()
    const main = git(repo, 'rev-parse', 'main').trim()
    // The repository's own checkout hook does not run for pk's throwaway checkout.
    const hooked = join(sb.root, 'hook-ran')
    writeFileSync(join(repo, '.git', 'hooks', 'post-checkout'), `#!/bin/sh\ntouch '${hooked}'\n`, {mode: 0o755})
    const rebased = await pk(['land', r.id, '--rebase'])
    expect(existsSync(hooked)).toBe(false)
    expect(rebased.code, rebased.stderr).toBe(0)
    expect(treeOf('HEAD')).toBe(expected)
    expect(git(repo, 'rev-parse', 'HEAD~1').trim()).toBe(main) // linear: the replayed commit on top of main
    expect(git(repo, 'rev-parse', r.branch).trim()).toBe(git(repo, 'rev-parse', 'HEAD').trim())
    expect(git(r.path, 'status', '--porcelain')).toBe('')

    const q = await landable('squashed', {mainMoves: true})
    writeFileSync(join(q.path, 'second.txt'), 'two commits\n')
    git(q.path, 'add', '-A')
    git(q.path, 'commit', '-q', '-m', 'second')
    const expectedSquash = git(repo, 'merge-tree', '--write-tree', 'main', q.branch).trim()
    const before = git(repo, 'rev-parse', 'main').trim()
    const squashed = await pk(['land', q.id, '--squash', '-m', 'The squashed work', '--prune'])
    expect(squashed.code, squashed.stderr).toBe(0)
    expect(treeOf('HEAD')).toBe(expectedSquash)
    expect(git(repo, 'rev-list', '--parents', '-n', '1', 'HEAD').trim().split(' ')).toEqual([git(repo, 'rev-parse', 'HEAD').trim(), before])
    expect(git(repo, 'log', '-1', '--format=%B')).toMatch(new RegExp(`^The squashed work\\n\\nPk-Session: ${q.id}\\nPk-Label: squashed`))
    // --prune: the record, the worktree and the squashed branch gone.
    expect(existsSync(q.path)).toBe(false)
    expect(git(repo, 'branch', '--list', q.branch)).toBe('')
    expect(existsSync(join(sb.stateDir, 'sessions', `${q.id}.json`))).toBe(false)
  })

  it('a conflict leaves both checkouts byte for byte as they were, lists the files and exits 1, whichever the strategy', async () => {
    const s = await landable('clash', {mainMoves: true, conflict: true})
    writeFileSync(join(s.path, 'scratch.txt'), 'uncommitted\n')
    for (const how of [[], ['--rebase'], ['--squash'], ['--commit', '-m', 'wip']]) {
      const before = snapshot(repo, s.path)
      const landed = await pk(['land', s.id, ...how, ...(how.includes('--commit') ? [] : ['--commit', '-m', 'wip'])])
      expect(landed.code, `${how.join(' ')}: ${landed.stderr}`).toBe(1)
      expect(landed.stderr).toMatch(/conflict.* in lib\.txt: nothing was changed/)
      expect(snapshot(repo, s.path)).toEqual(before)
    }
  })

  it('refuses a working agent, an idle one (unless --idle), a dirty main checkout, another branch there and uncommitted work: nothing changed', async () => {
    // A worktree session whose agent reported a prompt: working.
    const go = join(sb.root, 'go-live')
    const hook = join(ROOT, 'assets', 'pk-hook.sh')
    const working = await bg([
      '--worktree',
      '--name',
      'busy',
      '--',
      'sh',
      '-c',
      `while [ ! -e "${go}" ]; do sleep 0.1; done; printf %s '${claudePayload('UserPromptSubmit')}' | "${hook}" claude; exec sleep 100000`,
    ])
    // An agent that finished its turn and still runs: its hook said Stop.
    const row = await bg([
      '--worktree',
      '--name',
      'live',
      '--',
      'sh',
      '-c',
      `while [ ! -e "${go}" ]; do sleep 0.1; done; printf %s '${claudePayload('Stop')}' | "${hook}" claude; exec sleep 100000`,
    ])
    const s = {id: row.id, path: row.cwd!, branch: row.worktree!.branch}
    writeFileSync(go, '')
    await waitFor('it is idle', async () => (await sb.pkJson<LsJson>(['ls'], {env: gitEnv})).sessions.find((r) => r.id === s.id)?.state === 'idle', 15_000)
    writeFileSync(join(s.path, 'work.txt'), 'w\n')
    git(s.path, 'add', '-A')
    git(s.path, 'commit', '-q', '-m', 'work')
    const before = snapshot(repo, s.path)
    const idle = await pk(['land', s.id])
    expect(idle.code).toBe(5)
    expect(idle.stderr).toMatch(/is idle but still running .*pk stop .* or pass --idle/)
    expect((await pk(['land', s.id, '--idle', '--prune'])).code).toBe(5)
    writeFileSync(join(repo, 'README'), 'dirty\n')
    const dirty = await pk(['land', s.id, '--idle'])
    expect(dirty.code).toBe(5)
    expect(dirty.stderr).toMatch(/the main checkout .* has uncommitted changes \(README\)/)
    git(repo, 'checkout', '-q', '--', 'README')
    git(repo, 'switch', '-q', '-c', 'elsewhere')
    const other = await pk(['land', s.id, '--idle'])
    expect(other.code).toBe(5)
    expect(other.stderr).toMatch(/is on elsewhere, not main/)
    git(repo, 'switch', '-q', 'main')
    git(repo, 'branch', '-q', '-D', 'elsewhere')
    writeFileSync(join(s.path, 'more.txt'), 'uncommitted\n')
    const uncommitted = await pk(['land', s.id, '--idle'])
    expect(uncommitted.code).toBe(5)
    expect(uncommitted.stderr).toMatch(/uncommitted work \(more\.txt\): commit it there, or pass --commit -m MESSAGE/)
    const dry = await pk(['land', s.id, '--idle', '--commit', '-m', 'finish', '--dry-run', '--json'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(JSON.parse(dry.stdout)).toMatchObject({dryRun: true, landed: false, commits: 2})
    rmIn(s.path, 'more.txt')
    expect(snapshot(repo, s.path)).toEqual(before)
    // A working agent: refused as working, before anything else is looked at.
    const busy = await pk(['land', working.id])
    expect(busy.code).toBe(5)
    expect(busy.stderr).toMatch(new RegExp(`session ${working.id} is working: land it once it is done`))

    // --commit -m: the uncommitted work committed with the session named in its trailer, then landed.
    writeFileSync(join(s.path, 'more.txt'), 'uncommitted\n')
    const committed = await pk(['land', s.id, '--idle', '--commit', '-m', 'finish'])
    expect(committed.code, committed.stderr).toBe(0)
    expect(git(repo, 'log', '-1', '--format=%B', 'main')).toMatch(new RegExp(`^finish\\n\\nPk-Session: ${s.id}\\nPk-Label: live`))
    expect(readFileSync(join(repo, 'more.txt'), 'utf8')).toBe('uncommitted\n')
    expect(git(s.path, 'status', '--porcelain')).toBe('')
  })

  it('--pr pushes the branch and runs gh pr create (a stand-in on PATH records its words); without gh it says how', async () => {
    const origin = join(sb.root, 'origin.git')
    git(sb.root, 'init', '-q', '--bare', origin)
    git(repo, 'remote', 'add', 'origin', origin)
    git(repo, 'push', '-q', 'origin', 'main')
    const s = await landable('pulled', {mainMoves: false})
    const bin = join(sb.root, 'bin')
    mkdirSync(bin)
    const argsFile = join(sb.root, 'gh-args')
    writeFileSync(join(bin, 'gh'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\necho https://example.test/pr/7\n`)
    chmodSync(join(bin, 'gh'), 0o755)
    const main = git(repo, 'rev-parse', 'main').trim()
    const pr = await sb.pk(['land', s.id, '--pr', '--json'], {cwd: repo, env: {...gitEnv, PATH: `${bin}:${process.env.PATH}`}})
    expect(pr.code, pr.stderr).toBe(0)
    expect(JSON.parse(pr.stdout)).toMatchObject({strategy: 'pr', pushed: true, pr: 'https://example.test/pr/7', landed: true})
    expect(readFileSync(argsFile, 'utf8').split('\n').slice(0, 6)).toEqual(['pr', 'create', '--base', 'main', '--head', s.branch])
    expect(git(origin, 'rev-parse', s.branch).trim()).toBe(git(repo, 'rev-parse', s.branch).trim())
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(main) // nothing merged here

    const t = await landable('nogh', {mainMoves: false})
    const noGh = await sb.pk(['land', t.id, '--pr'], {cwd: repo, env: {...gitEnv, PATH: '/usr/bin:/bin'}})
    expect(noGh.code).toBe(1)
    expect(noGh.stderr).toMatch(/is pushed to origin; gh .* is not installed, so no pull request was opened: install it/)
  })
})

describe("pk land's edges (issue 63, item 5)", () => {
  it('a plain checkout is told there is nothing to land before anything else; a refusal is a JSON document under --json; dirty files named right', async () => {
    const plain = await bg(['--name', 'plain', '--', 'sleep', '100000'])
    const told = await pk(['land', plain.id, '--json'])
    expect(told.code).toBe(5)
    expect(told.stderr).toMatch(/did not run in a worktree pk made for it .*there is nothing to land/)
    expect(told.stderr).not.toMatch(/stop it first/)
    const doc = JSON.parse(told.stdout)
    expect(shape('land')(doc), JSON.stringify(shape('land').errors)).toBe(true)
    expect(doc).toMatchObject({id: plain.id, landed: false, error: {code: 'land-refused', exit: 5}})
    // An id that names nothing: a refusal document too.
    const none = await pk(['land', 'ffffffff', '--json'])
    expect(none.code).toBe(3)
    expect(JSON.parse(none.stdout)).toMatchObject({id: null, landed: false, error: {exit: 3}})

    const s = await worktreeSession('edges')
    writeFileSync(join(s.path, 'README'), 'app\nchanged\n')
    await stop(s.id)
    const dirty = await pk(['land', s.id])
    expect(dirty.code).toBe(5)
    expect(dirty.stderr).toMatch(/uncommitted work \(README\)/)
  })

  it("an untracked file in the main checkout where the work adds one: refused in pk's words before anything changes", async () => {
    const s = await worktreeSession('adds')
    writeFileSync(join(s.path, 'notes.md'), "the agent's\n")
    git(s.path, 'add', 'notes.md')
    git(s.path, 'commit', '-q', '-m', 'notes')
    await stop(s.id)
    writeFileSync(join(repo, 'notes.md'), 'mine, untracked\n')
    const before = snapshot(repo, s.path)
    for (const strategy of ['--merge', '--squash', '--rebase']) {
      const refused = await pk(['land', s.id, strategy])
      expect([strategy, refused.code]).toEqual([strategy, 5])
      expect(refused.stderr).toMatch(/has an untracked file where the session's work adds one \(notes\.md\).*nothing was changed/)
    }
    expect(snapshot(repo, s.path)).toEqual(before)
    expect(readFileSync(join(repo, 'notes.md'), 'utf8')).toBe('mine, untracked\n')
  })
})

describe('land and prune lose nothing (issue 62, items 4 and 5)', () => {
  it('pk land --rebase --commit --idle while the idle agent still writes: every line it wrote is in the worktree or the commit', async () => {
    // An agent that reported its turn's end and still writes a line every 20 ms, until told to stop.
    const go = join(sb.root, 'go-writer')
    const stopAt = join(sb.root, 'stop-writer')
    const hook = join(ROOT, 'assets', 'pk-hook.sh')
    const row = await bg([
      '--worktree',
      '--name',
      'writer',
      '--',
      'sh',
      '-c',
      `while [ ! -e "${go}" ]; do sleep 0.1; done; printf %s '${claudePayload('Stop')}' | "${hook}" claude; i=0; while [ ! -e "${stopAt}" ]; do i=$((i+1)); echo "$i" >> notes.txt; sleep 0.02; done; echo "$i" > '${join(sb.root, 'last')}'; exec sleep 100000`,
    ])
    writeFileSync(go, '')
    await waitFor('it is idle', async () => (await sb.pkJson<LsJson>(['ls'], {env: gitEnv})).sessions.find((r) => r.id === row.id)?.state === 'idle', 15_000)
    await waitFor('it wrote', () => existsSync(join(row.cwd!, 'notes.txt')))
    // main moved on meanwhile (another file): the rebase changes the worktree's files.
    writeFileSync(join(repo, 'lib.txt'), 'one\ntwo\nthree\nfrom main\n')
    git(repo, 'commit', '-q', '-am', 'main moves on')
    const landed = await pk(['land', row.id, '--rebase', '--commit', '-m', 'notes so far', '--idle'])
    expect(landed.code, landed.stderr).toBe(0)
    writeFileSync(stopAt, '')
    await waitFor('the writer stopped', () => existsSync(join(sb.root, 'last')))
    const last = Number(readFileSync(join(sb.root, 'last'), 'utf8'))
    // Every line, in order, in the worktree's file: none lost under a reset.
    const lines = readFileSync(join(row.cwd!, 'notes.txt'), 'utf8').trim().split('\n').map(Number)
    expect(lines).toEqual(Array.from({length: last}, (_, i) => i + 1))
    // What landed is a prefix of them, and the rebase's other change is in the worktree too.
    const committed = git(repo, 'show', 'main:notes.txt').trim().split('\n').map(Number)
    expect(committed).toEqual(lines.slice(0, committed.length))
    expect(readFileSync(join(row.cwd!, 'lib.txt'), 'utf8')).toBe('one\ntwo\nthree\nfrom main\n')
  })

  it('a worktree holding files git ignores (.env, a local database) is kept by pk land --squash --prune and pk prune --include-worktrees, with why', async () => {
    for (const how of ['land', 'prune'] as const) {
      const s = await worktreeSession(`ignored-${how}`)
      writeFileSync(join(s.path, '.gitignore'), '.env\nlocal.db\n')
      writeFileSync(join(s.path, `work-${how}.txt`), 'w\n')
      git(s.path, 'add', '.gitignore', `work-${how}.txt`)
      git(s.path, 'commit', '-q', '-m', 'work')
      writeFileSync(join(s.path, '.env'), 'SECRET=1\n')
      writeFileSync(join(s.path, 'local.db'), 'rows\n')
      await stop(s.id)
      const done =
        how === 'land' ? await pk(['land', s.id, '--squash', '--prune', '--json']) : await pk(['prune', s.id, '--include-worktrees', '--yes', '--json'])
      expect(done.code, done.stderr).toBe(0)
      expect(done.stdout).toMatch(/ignored files git would delete \(\.env, local\.db\)/)
      expect(readFileSync(join(s.path, '.env'), 'utf8')).toBe('SECRET=1\n')
      expect(readFileSync(join(s.path, 'local.db'), 'utf8')).toBe('rows\n')
    }
  })
})

describe('acting on the sessions named, and no others', () => {
  it('pk prune ID prunes only that session; pk ls ID lists only those', async () => {
    const a = await bg(['--', 'sleep', '100000'])
    const b = await bg(['--', 'sleep', '100000'])
    const c = await bg(['--', 'sleep', '100000'])
    await stop(a.id)
    await stop(b.id)
    const listed = await pk(['ls', '-q', a.id, c.id])
    expect(listed.stdout.split('\n').filter(Boolean).sort()).toEqual([a.id, c.id].sort())
    const pruned = await pk(['prune', a.id, c.id, '--yes', '--json'])
    expect(pruned.code, pruned.stderr).toBe(0)
    const doc = JSON.parse(pruned.stdout)
    expect(doc.removed.filter((r: {kind: string}) => r.kind === 'record').map((r: {id: string}) => r.id)).toEqual([a.id])
    expect(doc.kept).toContainEqual(expect.objectContaining({id: c.id, reason: 'live'}))
    await waitFor('b still recorded', () => existsSync(join(sb.stateDir, 'sessions', `${b.id}.json`)))
    expect(existsSync(join(sb.stateDir, 'sessions', `${a.id}.json`))).toBe(false)
  })
})

function rmIn(dir: string, name: string) {
  execFileSync('rm', ['-f', join(dir, name)])
}
