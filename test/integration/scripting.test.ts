import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LsJson, PK_BIN, Sandbox, waitFor} from '../helpers/sandbox.js'

/** Issue #22: what a script sees when it starts things. */
let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe('exit statuses', () => {
  it('a command that ends at once with status 0 did its job (exit 0); the table says exited 0, a failure says its status', async () => {
    const done = await sb.pk(['bg', '--', 'sh', '-c', 'echo hi'])
    expect(done.code, done.stderr).toBe(0)
    const id = done.stdout.trim()
    const row = await waitFor('listed', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id))
    expect(row).toMatchObject({state: 'exited', exitStatus: 0})
    expect((await sb.pk(['logs', id])).stdout).toMatch(/hi/)
    // One that fails a moment after it started (past the start window) shows its status in the table.
    const later = await sb.bgRow(['--', 'sh', '-c', 'sleep 1; exit 3'])
    await waitFor('exited 3', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === later.id && s.exitStatus === 3), 10_000)
    expect((await sb.pk(['ls'])).stdout).toMatch(new RegExp(`${later.id}.*exited 3`))
  })
})

describe('the server pk starts', () => {
  it('has what the agents ask for (extended keys, focus events), and a server of yours is left as it is', async () => {
    await sb.bgRow(['--', 'sleep', '100000'])
    expect(sb.tmux(sb.pkSocket, 'show-options', '-s', '-v', 'extended-keys').trim()).toBe('on')
    expect(sb.tmux(sb.pkSocket, 'show-options', '-g', '-v', 'focus-events').trim()).toBe('on')
    const mine = sb.socket('mine')
    sb.tmux(mine, 'new-session', '-d', '--', 'sleep', '100000')
    await sb.bgRow(['--socket', mine, '--', 'sleep', '100000'])
    expect(sb.tmux(mine, 'show-options', '-s', '-v', 'extended-keys').trim()).toBe('off')
    expect(sb.tmux(mine, 'show-options', '-g', '-v', 'focus-events').trim()).toBe('off')
  })
})

describe('pk bg --worktree BRANCH', () => {
  it('takes the word after --worktree as the branch (unless it names an agent); a refused bg leaves no worktree, branch or record', async () => {
    const repo = join(sb.root, 'app')
    mkdirSync(repo)
    const gitEnv = {GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_NOSYSTEM: '1'}
    const git = (...args: string[]) => execFileSync('git', args, {cwd: repo, env: {...sb.env, ...gitEnv}, encoding: 'utf8'})
    git('init', '-q', '-b', 'main')
    writeFileSync(join(repo, 'f'), 'x\n')
    git('add', 'f')
    git('commit', '-qm', 'x')
    const started = await sb.pk(['bg', '--json', '--worktree', 'feat1', '--', 'sleep', '100000'], {cwd: repo, env: gitEnv})
    expect(started.code, started.stderr).toBe(0)
    expect(JSON.parse(started.stdout).session.worktree).toMatchObject({branch: 'feat1', path: join(sb.root, 'app.worktrees', 'feat1')})
    // An unknown agent: refused before anything is made.
    const refused = await sb.pk(['bg', '--worktree=feat2', 'no-such-agent'], {cwd: repo, env: gitEnv})
    expect(refused.code).toBe(2)
    // A command that dies at once: what was made for it goes again.
    const died = await sb.pk(['bg', '--worktree', 'feat3', '--', 'sh', '-c', 'exit 9'], {cwd: repo, env: gitEnv})
    expect(died.code).toBe(1)
    for (const branch of ['feat2', 'feat3']) {
      expect(git('branch', '--list', branch).trim()).toBe('')
      expect(existsSync(join(sb.root, 'app.worktrees', branch))).toBe(false)
    }
    expect((await sb.pkJson<LsJson>(['ls', '--all'])).sessions.filter((s) => s.worktree?.branch === 'feat3')).toEqual([])
  })
})

describe('agents that outlive their server', () => {
  it('a recorded agent left in no pane is named by doctor and stopped by pk stop (pid and start time checked)', async () => {
    // Like the Gemini processes that survived tmux kill-server and ignored SIGTERM.
    const row = await sb.bgRow(['--', 'sh', '-c', 'trap "" HUP TERM; exec sleep 100000'])
    sb.tmux(sb.pkSocket, 'kill-server')
    const left = await waitFor('paneless', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id && s.tmux === null))
    expect(left.state).not.toBe('exited')
    const doctor = JSON.parse((await sb.pk(['doctor', '--json'])).stdout)
    expect(JSON.stringify(doctor)).toContain(`pk stop ${row.id}`)
    const stopped = await sb.pk(['stop', row.id, '--timeout', '1', '--json'])
    expect(stopped.code, stopped.stderr).toBe(0)
    expect(JSON.parse(stopped.stdout).stopped[0]).toMatchObject({id: row.id, signal: 'SIGKILL'})
    expect(existsSync(`/proc/${row.pid}/cmdline`) && !readFileSync(`/proc/${row.pid}/stat`, 'utf8').includes(') Z')).toBe(false)
  })

  it('pk stop signals nothing when it could not write down the stop', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    // The lock is a plain file where its directory should be: the record cannot be updated.
    rmSync(join(sb.stateDir, 'registry.lock'), {recursive: true, force: true})
    writeFileSync(join(sb.stateDir, 'registry.lock'), 'not a lock')
    const result = await sb.pk(['stop', row.id])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/lock/)
    expect(existsSync(`/proc/${row.pid}`)).toBe(true)
  })
})

describe('safe to mistype', () => {
  it('pk start ID on a terminal, then Enter: nothing runs, the session lives on, the suggestion is printed', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    // A real pseudo-terminal: a tmux pane of a server of the test's own, running pk as a user would.
    const term = sb.socket('term')
    const out = `${sb.root}/typo-out`
    sb.tmux(
      term,
      'new-session',
      '-d',
      '-s',
      'term',
      '-x',
      '120',
      '-y',
      '20',
      '--',
      'sh',
      '-c',
      `env -u TMUX "${process.execPath}" "${PK_BIN}" start ${row.id}; echo "rc=$?" > "${out}"; sleep 100000`,
    )
    // Enter, as someone who took a prompt for one would press.
    for (let i = 0; i < 5; i++) sb.tmuxTry(term, 'send-keys', '-t', 'term', 'Enter')
    await waitFor('exited', () => existsSync(out), 10_000)
    expect(readFileSync(out, 'utf8').trim()).toBe('rc=2')
    expect(sb.tmux(term, 'capture-pane', '-p')).toMatch(/start is not a pk command\. Did you mean: pk stop\?/)
    expect(existsSync(`/proc/${row.pid}`)).toBe(true)
    expect((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id)).toMatchObject({state: 'unknown', verified: true})
  })
})

describe('one error style', () => {
  it('a wrong word is one line saying what happened and what helps, exit 2, no usage dump', async () => {
    for (const [args, says] of [
      [['bg', 'claude', '--model', 'x'], /^pk: unknown flag --model; the agent's own words, or a command, go after --/],
      [['bg', 'python3', '-m', 'http.server'], /go after --: pk bg claude -- --model opus, pk bg -- python3 -m http.server/],
      [['logs'], /^pk: Missing 1 required arg: id \(pk logs --help\)$/],
      [['wait'], /^pk: pk wait needs session ids, or --all-sessions/],
      [['ls', '--jsno'], /^pk: unknown flag --jsno; did you mean --json\? \(pk ls --help\)$/],
      [['wait', 'abcd', '--timeout', 'soon'], /^pk: --timeout takes a whole number, not "soon" \(pk wait --help\)$/],
      [['wait', 'abcd', '--all', '--any'], /^pk: --all and --any do not go together \(pk wait --help\)$/],
      [['bg', 'cluade'], /^pk: unknown agent "cluade" \(did you mean claude\?\); presets: /],
      [['ls', '--format', 'long'], /^pk: Expected --format=long to be one of: table, short \(pk ls --help\)$/],
    ] as [string[], RegExp][]) {
      const result = await sb.pk(args)
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1)
      expect(result.stderr.trim()).toMatch(says)
    }
  })
})

describe('counts and columns without jq (issue 39)', () => {
  it('pk ls --count counts per state with the filters; -o prints chosen columns, tab-separated; both paths alike', async () => {
    const a = await sb.bgRow(['--name', 'first one', '--', 'sleep', '100000'])
    const b = await sb.bgRow(['--', 'sh', '-c', 'sleep 1; exit 2'])
    await waitFor('exited', async () => ((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === b.id)?.state === 'exited' ? true : null), 10_000)
    for (const fast of [true, false]) {
      const env = fast ? {} : {PK_FAST_PATH: '0'}
      const count = await sb.pk(['ls', '--count'], {env})
      expect(count.code, count.stderr).toBe(0)
      expect(count.stdout).toBe('working 0\nwaiting 0\nlimited 0\nidle 0\nexited 1\nunknown 1\nattention 0\ntotal 2\n')
      expect((await sb.pk(['ls', '--count', '--state', 'exited'], {env})).stdout).toMatch(/^exited 1$[\s\S]*^total 1$/m)
      const columns = await sb.pk(['ls', '-o', 'id,state,exit,label'], {env})
      expect(columns.code, columns.stderr).toBe(0)
      const lines = columns.stdout.trimEnd().split('\n')
      expect(lines[0]).toBe('ID\tSTATE\tEXIT\tLABEL')
      expect(lines.slice(1).sort()).toEqual([`${a.id}\tunknown\t-\tfirst one`, `${b.id}\texited\t2\t-`].sort())
      expect((await sb.pk(['ls', '-o', 'id', '--no-headers'], {env})).stdout.split('\n').filter(Boolean).sort()).toEqual([a.id, b.id].sort())
      const bad = await sb.pk(['ls', '-o', 'id,colour'], {env})
      expect([bad.code, bad.stderr.trim()]).toEqual([2, expect.stringMatching(/^pk: -o "id,colour": no column "colour"; the columns are id, state, /)])
      expect((await sb.pk(['ls', '--count', '--json'], {env})).code).toBe(2)
    }
  }, 60_000)
})

describe('help that says what a command takes', () => {
  it('pk send --help shows one id and the text, not ID...', async () => {
    const help = await sb.pk(['send', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/\$ pk send ID TEXT\.\.\. \[--stdin\] \[--no-enter\]/)
  })
})

describe("the scripting reference's fan-out script (issue 39)", () => {
  it('runs as written, with no || true, no tee and no jq: each job keeps its output and status until pruned', async () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'scripting.md'), 'utf8')
    const script = /## Fan out, then collect[\s\S]*?```sh\n([\s\S]+?)```/.exec(readme)![1]!
    expect(script).not.toMatch(/\|\| true|\btee\b|\bjq\b/)
    const bin = join(sb.root, 'bin')
    mkdirSync(bin)
    // `make test`: some lines, then a status of its own (web fails with 2).
    writeFileSync(
      join(bin, 'make'),
      '#!/bin/sh\nfor i in 1 2 3 4; do echo "$(basename "$PWD") line $i"; done\nsleep 1\n[ "$(basename "$PWD")" = web ] && exit 2\nexit 0\n',
      {mode: 0o755},
    )
    for (const dir of ['api', 'web', 'docs']) mkdirSync(join(sb.root, 'work', dir), {recursive: true})
    mkdirSync(join(sb.root, 'pkbin'))
    writeFileSync(join(sb.root, 'pkbin', 'pk'), `#!/bin/sh\nexec '${process.execPath}' '${PK_BIN}' "$@"\n`, {mode: 0o755})
    writeFileSync(join(sb.root, 'fan-out.sh'), script)
    // Someone else's session on the machine, and one that exited: the script never touches them (issue 54).
    const bystander = await sb.bgRow(['--', 'sleep', '100000'])
    const ended = await sb.bgRow(['--', 'sleep', '100000'])
    expect((await sb.pk(['stop', ended.id])).code).toBe(0)
    const result = execFileSync('sh', [join(sb.root, 'fan-out.sh')], {
      cwd: join(sb.root, 'work'),
      env: {...sb.env, PATH: `${join(sb.root, 'pkbin')}:${bin}:${process.env.PATH}`},
      encoding: 'utf8',
      timeout: 120_000,
    })
    const logs = result.trim().split('\n')
    const statuses = result.split('\n').filter((l) => /^test-\w+\t/.test(l))
    expect(statuses.sort()).toEqual(['test-api\t0', 'test-docs\t0', 'test-web\t2'])
    for (const dir of ['api', 'web', 'docs']) expect(logs.join('\n')).toContain(`${dir} line 2\n${dir} line 3\n${dir} line 4`)
    expect((await sb.pkJson<LsJson>(['ls', '--all'])).sessions.map((r) => [r.id, r.state])).toEqual([
      [bystander.id, 'unknown'],
      [ended.id, 'exited'],
    ])
  }, 180_000)
})
