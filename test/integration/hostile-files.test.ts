import {execFileSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, utimesSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {SessionRow} from '../../src/lib/model/contract.js'
import {TMUX_DEADLINE_MS} from '../../src/lib/tmux/exec.js'
import {LsJson, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'

/** Issue #21, safe under attack: directories others can write, a project's config, links where directories should be. */
let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

const rootIt = process.getuid!() === 0 ? it : it.skip
const require = createRequire(import.meta.url)
const HOOK = join(ROOT, 'assets', 'pk-hook.sh')

describe('never a socket another user could swap', () => {
  it('a socket directory others may write is refused by bg, ls, attach and send (exit 5), and nothing starts there', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    // Another user (or a careless chmod) opened the socket directory: anyone could rename a socket in.
    chmodSync(sb.socketDir, 0o777)
    const before = sb.tmux(sb.pkSocket, 'list-panes', '-a', '-F', '#{pane_id}')
    for (const args of [['bg', '--', 'sleep', '1'], ['ls'], ['ls', '--json'], ['attach', row.id, '--print'], ['send', row.id, 'hello']]) {
      const result = await sb.pk(args)
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(5)
      expect(result.stderr).toMatch(/refusing the tmux socket .*writable by every user/)
    }
    expect(sb.tmux(sb.pkSocket, 'list-panes', '-a', '-F', '#{pane_id}')).toBe(before)
    // doctor explains it, and still runs.
    const doctor = await sb.pk(['doctor', '--json'])
    expect(JSON.parse(doctor.stdout).checks.find((c: {id: string}) => c.id === 'socket-dir')).toMatchObject({status: 'fail'})
    chmodSync(sb.socketDir, 0o700)
    expect((await sb.pk(['ls'])).code).toBe(0)
  })

  it('--socket in a directory others may write, or under one without the sticky bit, is refused before tmux connects', async () => {
    const open = join(sb.root, 'open')
    mkdirSync(join(open, 'mine'), {recursive: true})
    chmodSync(open, 0o777)
    chmodSync(join(open, 'mine'), 0o700)
    for (const socket of [join(open, 'pk.sock'), join(open, 'mine', 'pk.sock')]) {
      const result = await sb.pk(['bg', '--socket', socket, '--', 'sleep', '100000'])
      expect(result.code, socket).toBe(5)
      expect(result.stderr).toMatch(/another user could put their own server there/)
      expect(existsSync(socket)).toBe(false)
    }
    // The sticky bit (like /tmp): nobody can rename what is not theirs, so a private directory under it is fine.
    chmodSync(open, 0o1777)
    const ok = await sb.pk(['bg', '--socket', join(open, 'mine', 'pk.sock'), '--', 'sleep', '100000'])
    expect(ok.code, ok.stderr).toBe(0)
    sb.tmuxTry(join(open, 'mine', 'pk.sock'), 'kill-server')
  })

  rootIt("a socket directory made by another user is refused even as root: ls lists none of that user's panes", async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    chownSync(sb.socketDir, 65534, 65534)
    const result = await sb.pk(['ls', '--json'])
    expect(result.code).toBe(5)
    expect(result.stderr).toMatch(/belongs to uid 65534/)
    chownSync(sb.socketDir, 0, 0)
    expect((await sb.pkJson<LsJson>(['ls'])).sessions.map((s) => s.id)).toContain(row.id)
  })
})

describe("a project's config is data about the project", () => {
  const project = () => {
    const dir = join(sb.home, 'checkout')
    mkdirSync(dir, {recursive: true})
    return dir
  }
  it('may not choose the socket, where worktrees go, or pane rules (exit 2, naming the key)', async () => {
    const dir = project()
    const cases: [object, string][] = [
      [{socket: join(sb.root, 'elsewhere.sock')}, 'socket'],
      [{worktrees: {dir: join(sb.home, '.config', 'pk')}}, 'worktrees.dir'],
      [{agents: {claude: {paneRules: [{state: 'idle', pattern: String.raw`^(\w+\s?)*$`}]}}}, 'agents.claude.paneRules'],
    ]
    for (const [config, key] of cases) {
      writeFileSync(join(dir, '.pkrc.json'), JSON.stringify(config))
      for (const args of [['ls'], ['bg', '--', 'sleep', '1']]) {
        const result = await sb.pk(args, {cwd: dir})
        expect(result.code, `${key} ${args[0]}`).toBe(2)
        expect(result.stderr).toContain(`${key}: a project's config cannot set`)
      }
    }
    expect(existsSync(join(sb.stateDir, 'sessions')) ? readdirSync(join(sb.stateDir, 'sessions')) : []).toEqual([])
  })

  it("never checks a repository out into pk's own config or state directory, whoever's config says so", async () => {
    const repo = project()
    const gitEnv = {GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_NOSYSTEM: '1'}
    execFileSync('sh', ['-c', 'git init -q -b main && echo x > f && git add f && git commit -qm x'], {cwd: repo, env: {...sb.env, ...gitEnv}})
    mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
    for (const dir of [join(sb.home, '.config', 'pk'), join(sb.stateDir, 'wt')]) {
      writeFileSync(join(sb.home, '.config', 'pk', 'config.json'), JSON.stringify({worktrees: {dir}}))
      const result = await sb.pk(['bg', '--worktree=evil', '--', 'sleep', '1'], {cwd: repo, env: gitEnv})
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toMatch(/pk's own directory; a worktree never goes there/)
    }
    expect(existsSync(join(sb.home, '.config', 'pk', 'f'))).toBe(false)
  })
})

describe('no directory pk reads or sweeps may be a link', () => {
  it('spool/ as a link: nothing in its target is read as an event or deleted; doctor reports it', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    const target = join(sb.root, 'precious')
    mkdirSync(target)
    writeFileSync(join(target, '100-1'), `pk-spool 2 claude 1.00 ${row.pid}:1\n{"hook_event_name":"Stop"}`)
    writeFileSync(join(target, 'keep.txt'), 'mine\n')
    symlinkSync(target, join(sb.stateDir, 'spool'))
    expect((await sb.pk(['ls'])).code).toBe(0)
    expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
    expect(readdirSync(target).sort()).toEqual(['100-1', 'keep.txt'])
    const doctor = JSON.parse((await sb.pk(['doctor', '--json'])).stdout)
    expect(JSON.stringify(doctor.checks)).toMatch(/spool.*link/)
  })

  it('notified/ as a link: no marker is written into its target, and the weekly sweep deletes nothing there', async () => {
    const target = join(sb.root, 'elsewhere')
    mkdirSync(target)
    const old = join(target, 'old-file')
    writeFileSync(old, 'keep\n')
    utimesSync(old, new Date(2020, 1, 1), new Date(2020, 1, 1))
    mkdirSync(sb.stateDir, {recursive: true, mode: 0o700})
    symlinkSync(target, join(sb.stateDir, 'notified'))
    const row = await sb.bgRow(['--', 'sh', '-c', `printf %s '{"hook_event_name":"Stop"}' | '${HOOK}' claude; exec sleep 100000`])
    await waitFor('pending', () => existsSync(join(sb.stateDir, 'spool')) && readdirSync(join(sb.stateDir, 'spool')).length > 0)
    await sb.pk(['notify', '--fold'])
    await sb.pk(['notify'])
    expect(readdirSync(target)).toEqual(['old-file'])
    void row
  })

  it('owner.json as a FIFO, a link, garbage or missing: the sh hook writes nothing, whichever namespace it is in', async () => {
    mkdirSync(sb.stateDir, {recursive: true, mode: 0o700})
    const owner = join(sb.stateDir, 'owner.json')
    const run = () => execFileSync('sh', ['-c', `printf %s '{"hook_event_name":"Stop"}' | '${HOOK}' claude; echo $?`], {env: sb.env, encoding: 'utf8'}).trim()
    expect(run()).toBe('0') // missing
    writeFileSync(owner, 'garbage')
    expect(run()).toBe('0')
    execFileSync('rm', [owner])
    symlinkSync(join(sb.root, 'nowhere'), owner)
    expect(run()).toBe('0')
    execFileSync('rm', [owner])
    execFileSync('mkfifo', [owner])
    expect(run()).toBe('0')
    expect(existsSync(join(sb.stateDir, 'spool'))).toBe(false)
  })
})

describe('prune destroys nothing', () => {
  it('keeps a merged worktree that holds ignored files (.env, a local database), and says why', async () => {
    const repo = join(sb.root, 'app')
    mkdirSync(repo)
    const gitEnv = {GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_NOSYSTEM: '1'}
    execFileSync('sh', ['-c', 'git init -q -b main && printf ".env\\n*.sqlite\\n" > .gitignore && git add .gitignore && git commit -qm x'], {
      cwd: repo,
      env: {...sb.env, ...gitEnv},
    })
    const started = await sb.pk(['bg', '--json', '--worktree=merged', '--', 'sleep', '100000'], {cwd: repo, env: gitEnv})
    const row = (JSON.parse(started.stdout) as {session: SessionRow}).session
    writeFileSync(join(row.cwd!, '.env'), 'SECRET=1\n')
    writeFileSync(join(row.cwd!, 'app.sqlite'), 'data')
    await sb.pk(['stop', row.id])
    const result = await sb.pk(['prune', '--yes', '--json'], {env: gitEnv})
    const {worktrees} = JSON.parse(result.stdout) as {worktrees: {action: string; reason: string}[]}
    expect(worktrees[0]).toMatchObject({action: 'keep', reason: expect.stringMatching(/ignored files git would delete \(.*\.env/)})
    expect(readFileSync(join(row.cwd!, '.env'), 'utf8')).toBe('SECRET=1\n')
  })
})

describe('say what is true, destroy nothing, bound everything (the low ones)', () => {
  it('names with escape sequences never reach the terminal raw: ls problems, doctor, prune --dry-run', async () => {
    await sb.bgRow(['--', 'sleep', '100000'])
    // A socket whose name carries an escape sequence (a terminal title change, a bell), left stale.
    const evil = join(sb.socketDir, 'x\u001b]0;pwned\u0007')
    const holder = (await import('node:child_process')).spawn(
      process.execPath,
      ['-e', `require('node:net').createServer().listen(${JSON.stringify(evil)}, () => console.log('ready'))`],
      {stdio: ['ignore', 'pipe', 'ignore']},
    )
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()))
    holder.kill('SIGKILL') // gone without unlinking: a stale socket with that name
    await new Promise((r) => holder.once('exit', r))
    for (const args of [['doctor'], ['prune', '--dry-run'], ['ls'], ['attach', 'zzzz']]) {
      const result = await sb.pk(args)
      expect(result.stdout + result.stderr, args.join(' ')).not.toContain('\u001b')
      expect(result.stdout + result.stderr, args.join(' ')).not.toContain('\u0007')
    }
  })

  it('standard output on a full device: one plain line, exit 1, and bg still gives its id', async () => {
    const run = (await import('node:child_process')).spawnSync(
      'sh',
      ['-c', `"${process.execPath}" "${join(ROOT, 'bin', 'run.js')}" bg -- sleep 100000 > /dev/full`],
      {env: sb.env, encoding: 'utf8'},
    )
    expect(run.status).toBe(1)
    expect(run.stderr).toMatch(/cannot write to standard output \(ENOSPC\)/)
    expect(run.stderr).toMatch(/session [0-9a-f]{8} was started and recorded/)
    expect(run.stderr).not.toMatch(/\n\s+at /)
    // --version writes its line itself (no stream of node's): the same endings, on a full device and a closed pipe.
    const cp = await import('node:child_process')
    const pk = `"${process.execPath}" "${join(ROOT, 'bin', 'run.js')}"`
    const full = cp.spawnSync('sh', ['-c', `${pk} --version > /dev/full`], {env: sb.env, encoding: 'utf8'})
    expect([full.status, full.stderr]).toEqual([1, 'pk: cannot write to standard output (ENOSPC)\n'])
    const closed = cp.spawnSync('sh', ['-c', `exec 3>&1; { ${pk} --version; echo "exit $?" >&3; } | :`], {env: sb.env, encoding: 'utf8'})
    expect([closed.stdout, closed.stderr]).toEqual(['exit 0\n', ''])
  })

  it('logs --follow and the watch stream end soon after their reader went away, though the pane is quiet', async () => {
    const row = await sb.bgRow(['--', 'sh', '-c', 'echo hello; exec sleep 100000'])
    await waitFor('printed', async () => (await sb.pk(['logs', row.id])).stdout.includes('hello'))
    const pk = `"${process.execPath}" "${join(ROOT, 'bin', 'run.js')}"`
    for (const args of [`logs ${row.id} --follow`, 'ls --watch --json']) {
      const started = Date.now()
      const run = (await import('node:child_process')).spawnSync('sh', ['-c', `${pk} ${args} | head -1`], {env: sb.env, encoding: 'utf8', timeout: 20_000})
      expect(run.status, args).toBe(0)
      expect(Date.now() - started, args).toBeLessThan(10_000)
    }
  }, 60_000)

  it('pk wait --timeout 3 against a stopped server says 124 near its deadline, not seconds after', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    // What one pk takes to start and look on this machine now, while the server answers.
    let started = Date.now()
    await sb.pk(['ls', '--json'])
    const startup = Date.now() - started
    const serverPid = Number(sb.tmux(sb.pkSocket, 'display-message', '-p', '#{pid}').trim())
    process.kill(serverPid, 'SIGSTOP')
    try {
      started = Date.now()
      const result = await sb.pk(['wait', row.id, '--for', 'idle', '--timeout', '3'])
      expect(result.code).toBe(124)
      // It ends, and near its deadline: within a tmux deadline more than startup and the wait (loaded
      // machines stretch both). That no look runs past the wait's own deadline (a 2 s tmux deadline on
      // top of it made this 7-8 s on a quiet machine) is held exactly, on a clock, in test/unit/listing/watch.test.ts.
      expect(Date.now() - started).toBeLessThan(3000 + 2 * TMUX_DEADLINE_MS + 3 * startup)
    } finally {
      process.kill(serverPid, 'SIGCONT')
    }
  })

  it('a deleted current directory: ls just works, bg says so (exit 2)', async () => {
    const gone = join(sb.root, 'gone')
    mkdirSync(gone)
    const run = (args: string) =>
      require('node:child_process').spawnSync(
        'sh',
        [
          '-c',
          `cd "${gone}" && rmdir "${gone}" 2>/dev/null; mkdir -p "${gone}" && cd "${gone}" && rmdir "${gone}" && "${process.execPath}" "${join(ROOT, 'bin', 'run.js')}" ${args}`,
        ],
        {env: sb.env, encoding: 'utf8'},
      )
    expect(run('ls').status).toBe(0)
    const bg = run('bg -- sleep 1')
    expect(bg.status).toBe(2)
    expect(bg.stderr).toMatch(/current directory no longer exists/)
  })

  it('bytes that are not UTF-8 reach the pane exactly: in argv, in the environment, in --cwd', async () => {
    const dir = Buffer.concat([Buffer.from(sb.root + '/caf'), Buffer.from([0xe9])])
    mkdirSync(dir)
    const out = join(sb.root, 'out')
    mkdirSync(out)
    // The shell passes the bytes on; pk (node) sees them as U+FFFD and must not keep that.
    const script = `printf '%s' "$1" > "${out}/arg"; printf '%s' "$ODD" > "${out}/env"; pwd > "${out}/pwd"; exec sleep 100000`
    const run = require('node:child_process').spawnSync(
      'sh',
      [
        '-c',
        `ODD="$(printf 'v\\377\\376')" "${process.execPath}" "${join(ROOT, 'bin', 'run.js')}" bg --cwd "$(printf '%s/caf\\351' "${sb.root}")" -- sh -c '${script}' x "$(printf 'a\\377b')"`,
      ],
      {env: sb.env, encoding: 'utf8'},
    )
    expect(run.status, run.stderr).toBe(0)
    await waitFor('written', () => existsSync(join(out, 'pwd')))
    expect(readFileSync(join(out, 'arg')).equals(Buffer.from([0x61, 0xff, 0x62]))).toBe(true)
    expect(readFileSync(join(out, 'env')).equals(Buffer.from([0x76, 0xff, 0xfe]))).toBe(true)
    expect(readFileSync(join(out, 'pwd')).equals(Buffer.concat([dir, Buffer.from('\n')]))).toBe(true)
  })

  it('pk setup claude writes through a settings.json that links into a dotfiles repository, and backs it up', async () => {
    const dotfiles = join(sb.root, 'dotfiles')
    mkdirSync(dotfiles)
    writeFileSync(join(dotfiles, 'settings.json'), '{"theme": "dark"}')
    mkdirSync(join(sb.home, '.claude'))
    symlinkSync(join(dotfiles, 'settings.json'), join(sb.home, '.claude', 'settings.json'))
    expect((await sb.pk(['setup', 'claude'])).code).toBe(0)
    expect(lstatSync(join(sb.home, '.claude', 'settings.json')).isSymbolicLink()).toBe(true)
    expect(JSON.parse(readFileSync(join(dotfiles, 'settings.json'), 'utf8'))).toMatchObject({theme: 'dark', hooks: expect.any(Object)})
    expect(readdirSync(join(sb.home, '.claude')).some((f) => f.includes('pk-backup'))).toBe(true)
  })

  it('doctor --fix never signals a process that holds a deleted socket but is not tmux', async () => {
    const child = (await import('node:child_process')).spawn(
      process.execPath,
      [
        '-e',
        `const s = require('node:net').createServer(); s.listen(${JSON.stringify(join(sb.socketDir, 'notmux'))}, () => { require('node:fs').unlinkSync(${JSON.stringify(join(sb.socketDir, 'notmux'))}); console.log('ready') }); process.on('SIGUSR1', () => process.exit(7))`,
      ],
      {stdio: ['ignore', 'pipe', 'ignore']},
    )
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
    try {
      await sb.pk(['doctor', '--fix'])
      expect(child.exitCode).toBeNull()
      expect(existsSync(`/proc/${child.pid}`)).toBe(true)
    } finally {
      child.kill('SIGKILL')
    }
  })
})
