import {ChildProcess, execFileSync, spawn, spawnSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {TMUX_DEADLINE_MS} from '../../src/lib/tmux/exec.js'
import {GATE_GAVE_UP, GATE_SCRIPT} from '../../src/lib/tmux/session.js'
import {pkForUser} from '../helpers/others.js'
import {LsJson, PK_BIN, Sandbox, waitFor} from '../helpers/sandbox.js'

const asRoot = process.getuid!() === 0
const rootIt = it.skipIf(!asRoot)
if (!asRoot) console.warn('skipping the security tests that need root (other users, mounts)')

let sb: Sandbox
const stopped: number[] = []
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => {
  // A stopped server would make the sandbox's own kill-server hang.
  for (const pid of stopped.splice(0)) {
    try {
      process.kill(pid, 'SIGCONT')
    } catch {
      // gone
    }
  }
  sb.cleanup()
})

const serverPid = (socket: string) => Number(sb.tmux(socket, 'display-message', '-p', '#{pid}').trim())
const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m)

describe('no secret on any command line', () => {
  it('a poller reading every /proc/*/cmdline during 20 pk bg runs never sees a value from the environment', async () => {
    const sentinel = `sk-sentinel-${process.pid}-${Date.now()}`
    const found = join(sb.root, 'found')
    // As fast as it can, in its own process, until told to stop; it records any sighting.
    const poller = spawn(process.execPath, [
      '-e',
      `const fs = require('node:fs')
       let stop = false
       process.on('SIGTERM', () => { stop = true })
       const loop = () => {
         for (let i = 0; i < 50; i++) {
           for (const name of fs.readdirSync('/proc')) {
             if (!/^\\d+$/.test(name) || name === String(process.pid)) continue
             let text
             try { text = fs.readFileSync('/proc/' + name + '/cmdline', 'latin1') } catch { continue }
             if (text.includes(${JSON.stringify(sentinel)})) fs.appendFileSync(${JSON.stringify(found)}, text.replaceAll('\\0', ' ') + '\\n')
           }
         }
         if (stop) process.exit(0)
         setImmediate(loop)
       }
       loop()`,
    ])
    try {
      const out = join(sb.root, 'env-seen')
      // Four at a time: twenty one after another took over two minutes beside another suite on 2 cores.
      for (let i = 0; i < 20; i += 4) {
        const results = await Promise.all(
          [0, 1, 2, 3].map((j) =>
            sb.pk(['bg', '--', 'sh', '-c', 'printf %s "$PK_SECRET" > "$0"; exec sleep 1000', `${out}-${i + j}`], {
              env: {PK_SECRET: sentinel, ANTHROPIC_API_KEY: sentinel},
            }),
          ),
        )
        for (const result of results) expect(result.code, result.stderr).toBe(0)
      }
      // The panes got the value all the same.
      for (let i = 0; i < 20; i++) await waitFor(`pane ${i} env`, () => existsSync(`${out}-${i}`) && readFileSync(`${out}-${i}`, 'utf8') === sentinel)
    } finally {
      poller.kill('SIGTERM')
      await new Promise((resolve) => poller.once('exit', resolve))
    }
    expect(existsSync(found) ? readFileSync(found, 'utf8') : '').toBe('')
    // The server keeps the argv of the client that started it: a neutral one.
    const server = serverPid(sb.pkSocket)
    expect(readFileSync(`/proc/${server}/cmdline`, 'utf8').split('\0').filter(Boolean)).toEqual([
      'tmux',
      '-u',
      '-S',
      sb.pkSocket,
      'start-server',
      ';',
      'source-file',
      '-',
    ])
    // Nor does the value land in any file pk keeps.
    const grep = spawnSync('grep', ['-rl', sentinel, sb.stateDir, sb.tmuxTmpdir], {encoding: 'utf8'})
    expect(grep.stdout).toBe('')
  }, 240_000)

  it("gives the pane the caller's environment exactly: what only the server has is not passed on", async () => {
    sb.tmux(sb.pkSocket, 'new-session', '-d', '-s', 'first', '--', 'sleep', '1000')
    sb.tmux(sb.pkSocket, 'set-environment', '-g', 'SERVER_ONLY_SECRET', 'left-over')
    const out = join(sb.root, 'env.txt')
    const result = await sb.pk(['bg', '--', 'sh', '-c', 'env > "$0.tmp" && mv "$0.tmp" "$0"; exec sleep 1000', out], {
      env: {WEIRD: `it's "quoted" $HOME #{pane_id} %5 ;\nsecond line \\ é`},
    })
    expect(result.code, result.stderr).toBe(0)
    await waitFor('env file', () => existsSync(out))
    const env = readFileSync(out, 'utf8')
    expect(env).not.toMatch(/SERVER_ONLY_SECRET/)
    expect(env).not.toMatch(/PK_GATE_UNSET/)
    expect(env).toContain(`WEIRD=it's "quoted" $HOME #{pane_id} %5 ;\nsecond line \\ é\n`)
  })
})

describe('a path is never code', () => {
  it('a working directory named like a tmux format runs nothing and is where the command runs', async () => {
    // tmux runs #() with the server's or the client's directory: both are inside the sandbox.
    const dir = join(sb.root, 'w #(touch format-ran) #{pane_id} %5')
    mkdirSync(dir)
    const out = join(sb.root, 'pwd.txt')
    const result = await sb.pk(['bg', '--cwd', dir, '--', 'sh', '-c', 'pwd > "$0"; exec sleep 1000', out])
    expect(result.code, result.stderr).toBe(0)
    await waitFor('pwd', () => existsSync(out))
    expect(readFileSync(out, 'utf8').trim()).toBe(dir)
    // The moment a job would have run: tmux runs a #() job it finds in a window's -c as it makes the window
    // (this is how a directory name could have run one), so a control job given that way after pk's calls,
    // seen done, comes after any job of theirs had started.
    const control = join(sb.root, 'control-ran')
    sb.tmux(sb.pkSocket, 'new-window', '-d', '-c', `${sb.root}/#(touch '${control}')`, '--', 'true')
    // (tmux may run it only at its next status update, every 15 s: on a loaded machine that came later than 15 s)
    await waitFor('the control job', () => existsSync(control), 45_000)
    expect(spawnSync('find', [sb.root, '-name', 'format-ran'], {encoding: 'utf8'}).stdout).toBe('')
  }, 90_000)
})

describe("a terminal's controls in what another program wrote reach it as text", () => {
  it('a label with 8-bit controls (U+009D, an OSC): pk ls --json escapes them, as every --json document does (issue 62, item 9)', async () => {
    const osc = '\u009d52;c;aGk=\u009c'
    const row = await sb.bgRow(['--name', `evil${osc}`, '--', 'sleep', '100000'])
    const listed = await sb.pk(['ls', '--json'])
    expect(/[\u0080-\u009f]/.test(listed.stdout)).toBe(false)
    expect((JSON.parse(listed.stdout) as LsJson).sessions.find((r) => r.id === row.id)?.label).toBe(`evil${osc}`)
  })
})

describe('--socket never destroys a file', () => {
  it('refuses a path that is a file, a directory, a FIFO or a link with exit 2, and leaves it untouched', async () => {
    const notes = join(sb.root, 'notes.txt')
    writeFileSync(notes, 'my notes\n')
    const dir = join(sb.root, 'a-dir')
    mkdirSync(dir)
    const fifo = join(sb.root, 'a-fifo')
    execFileSync('mkfifo', [fifo])
    const link = join(sb.root, 'a-link')
    execFileSync('ln', ['-s', notes, link])
    for (const path of [notes, dir, fifo, link]) {
      const result = await sb.pk(['bg', '--socket', path, '--', 'sleep', '1'])
      expect(result.code, path).toBe(2)
      expect(result.stderr).toMatch(/not a tmux socket; pk leaves it alone/)
    }
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n')
    expect(statSync(dir).isDirectory()).toBe(true)
    expect(statSync(fifo).isFIFO()).toBe(true)
    expect(existsSync(join(sb.stateDir, 'sessions')) ? readdirSync(join(sb.stateDir, 'sessions')) : []).toEqual([])
  })

  rootIt('refuses a socket that belongs to another user with exit 5, even as root', async () => {
    const theirs = join(sb.root, 'theirs.sock')
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(theirs, resolve))
    try {
      chownSync(theirs, 65534, 65534)
      const result = await sb.pk(['bg', '--socket', theirs, '--', 'sleep', '1000'])
      expect(result.code).toBe(5)
      expect(result.stderr).toMatch(/belongs to uid 65534, not to you/)
      expect(statSync(theirs).isSocket()).toBe(true)
    } finally {
      server.close()
    }
  })
})

describe('every outside call is bounded', () => {
  it('a stopped tmux server hangs nothing: it becomes a problem and every other server is still listed', async () => {
    const good = await sb.bgRow(['--', 'sleep', '1000'])
    const frozen = sb.socket('frozen')
    sb.tmux(frozen, 'new-session', '-d', '--', 'sleep', '1000')
    const pid = serverPid(frozen)
    // What the hook takes on this machine right now, with every server answering: the bound below is
    // relative to it and to tmux's deadline, not a wall-clock ceiling a loaded machine would break.
    const hookRun = () => {
      const started = Date.now()
      const hook = spawnSync(process.execPath, [PK_BIN, 'hook', 'claude'], {input: '{"hook_event_name":"Stop"}', env: sb.env, timeout: 30_000})
      return {status: hook.status, ms: Date.now() - started}
    }
    const baseline = hookRun()
    expect(baseline.status).toBe(0)
    stopped.push(pid)
    process.kill(pid, 'SIGSTOP')

    const ls = await sb.pk(['ls', '--json'])
    expect(ls.code, ls.stderr).toBe(0)
    const json = JSON.parse(ls.stdout) as LsJson
    expect(json.sessions.map((s) => s.id)).toContain(good.id)
    expect(json.problems).toContainEqual(expect.objectContaining({code: 'server-unresponsive', socket: frozen}))
    expect((await sb.pk(['ls', '--format', 'short'])).code).toBe(0)
    const attach = await sb.pk(['attach', good.id, '--print'])
    expect(attach.code, attach.stderr).toBe(0)
    const doctor = await sb.pk(['doctor', '--json'])
    const servers = (JSON.parse(doctor.stdout) as {checks: {id: string; status: string; message: string}[]}).checks.find((c) => c.id === 'servers')
    expect(servers).toMatchObject({status: 'warn', message: expect.stringMatching(/frozen does not answer/)})

    // The hook runs inside the agent: it returns, and quickly, whatever the servers do.
    // At most one tmux deadline more than when every server answers (doubled for a noisy machine).
    const hook = hookRun()
    expect(hook.status).toBe(0)
    expect(hook.ms).toBeLessThan(2 * (baseline.ms + TMUX_DEADLINE_MS))
  })

  it('a FIFO where owner.json or hook.log should be hangs nothing', async () => {
    await sb.bgRow(['--', 'sleep', '1000'])
    rmSync(join(sb.stateDir, 'owner.json'))
    execFileSync('mkfifo', [join(sb.stateDir, 'owner.json'), join(sb.stateDir, 'hook.log')])
    const ls = await sb.pk(['ls', '--json'])
    expect(ls.code).toBe(0)
    expect(JSON.parse(ls.stdout).problems).toContainEqual(expect.objectContaining({code: 'bad-owner', message: expect.stringMatching(/FIFO/)}))
    const bg = await sb.pk(['bg', '--', 'sleep', '1000'])
    expect(bg.code).toBe(5)
    expect(bg.stderr).toMatch(/owner\.json is a FIFO/)
    const doctor = await sb.pk(['doctor', '--json'])
    expect(doctor.code).toBe(1)
    const hook = spawnSync(process.execPath, [PK_BIN, 'hook', 'claude', 'not json'], {env: sb.env, timeout: 20_000})
    expect(hook.status).toBe(0)
    expect(statSync(join(sb.stateDir, 'hook.log')).isFIFO()).toBe(true)
  })
})

describe('no agent runs without a record', () => {
  it('a pk bg killed at any moment leaves no running command that nobody knows about', async () => {
    const marker = String(100_000 + (process.pid % 50_000))
    const running = () =>
      readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .filter((name) => {
          try {
            return readFileSync(`/proc/${name}/cmdline`, 'utf8') === `sleep\0${marker}\0`
          } catch {
            return false
          }
        })
        .map(Number)
    for (let i = 0; i < 20; i++) {
      // Each in its own process group, killed like Ctrl-C (SIGINT to the group) or outright (SIGKILL).
      const child: ChildProcess = spawn(process.execPath, [PK_BIN, 'bg', '--', 'sleep', marker], {env: sb.env, detached: true, stdio: 'ignore'})
      await new Promise((r) => setTimeout(r, 40 + i * 15))
      try {
        process.kill(-child.pid!, i % 2 === 0 ? 'SIGKILL' : 'SIGINT')
      } catch {
        // already done
      }
      await new Promise((r) => child.once('exit', r))
    }
    // One let through: the check below must have something to look at (a loop over nothing checks nothing).
    expect((await sb.pk(['bg', '--', 'sleep', marker])).code).toBe(0)
    const sessions = join(sb.stateDir, 'sessions')
    const recorded = new Set(
      (existsSync(sessions) ? readdirSync(sessions) : [])
        .filter((f) => f.endsWith('.json'))
        .map((f) => (JSON.parse(readFileSync(join(sessions, f), 'utf8')) as {identity: {pid: number}}).identity.pid),
    )
    const found = running()
    expect(found.length).toBeGreaterThan(0)
    for (const pid of found) expect(recorded.has(pid), `sleep ${marker} as pid ${pid} runs without a record`).toBe(true)
  }, 120_000)

  it("the gate runs nothing when pk's go never comes, and execs the command in place when it does", async () => {
    const sleep = existsSync('/usr/bin/sleep') ? '/usr/bin/sleep' : '/bin/sleep'
    const ran = join(sb.root, 'ran')
    const gaveUp = spawnSync('/bin/sh', ['-c', GATE_SCRIPT, 'pk-gate', sleep, '1', 'touch', ran], {encoding: 'utf8', timeout: 10_000})
    expect(gaveUp.status).toBe(GATE_GAVE_UP)
    expect(gaveUp.stderr).toMatch(/the command was not started/)
    expect(existsSync(ran)).toBe(false)

    const gate = spawn('/bin/sh', ['-c', GATE_SCRIPT, 'pk-gate', sleep, '30', 'sh', '-c', 'echo $$ > "$0"', ran], {stdio: 'ignore'})
    await waitFor('trap in place', () => (BigInt(`0x${/^SigCgt:\s*(\w+)/m.exec(readFileSync(`/proc/${gate.pid}/status`, 'utf8'))![1]}`) >> 9n) & 1n)
    process.kill(gate.pid!, 'SIGUSR1')
    await new Promise((r) => gate.once('exit', r))
    expect(Number(readFileSync(ran, 'utf8'))).toBe(gate.pid)
  })
})

describe('a live server never loses its socket', () => {
  it('a server that starts between the stale check and the unlink gets its socket back', async () => {
    const {removeStaleSocket} = await import('../../src/lib/tmux/stale-sockets.js')
    const socket = sb.socket('racy')
    sb.tmux(socket, 'new-session', '-d', '--', 'sleep', '1000')
    process.kill(serverPid(socket), 'SIGKILL')
    await waitFor('stale', () => sb.tmuxTry(socket, 'list-sessions').code !== 0)
    const outcome = await removeStaleSocket(socket, () => {
      sb.tmux(socket, 'new-session', '-d', '-s', 'newcomer', '--', 'sleep', '1000')
    })
    expect(outcome).toBe('recovered')
    expect(sb.tmux(socket, 'list-sessions', '-F', '#{session_name}').trim()).toBe('newcomer')
    // And a stale one is simply removed.
    process.kill(serverPid(socket), 'SIGKILL')
    await waitFor('stale again', () => sb.tmuxTry(socket, 'list-sessions').code !== 0)
    expect(await removeStaleSocket(socket)).toBe('removed')
    expect(existsSync(socket)).toBe(false)
  })
})

describe('failures are plain words and leave nothing behind', () => {
  rootIt('a full disk: a plain message, exit 1, no temp file and no session left', async () => {
    const disk = mkdtempSync(join(sb.root, 'disk-'))
    const script = String.raw`
mount -t tmpfs -o size=256k tmpfs "$DISK"
mkdir -m 700 "$DISK/state" "$DISK/state/sessions"
dd if=/dev/zero of="$DISK/fill" bs=4k count=1000 2>/dev/null || true
set +e
"$NODE" "$PK_BIN" bg -- sleep 1000 > "$OUT/out" 2> "$OUT/err"
echo $? > "$OUT/rc"
ls -A "$DISK/state/sessions" > "$OUT/left"
`
    const result = spawnSync('unshare', ['--mount', 'bash', '-euc', script], {
      env: {...sb.env, DISK: disk, NODE: process.execPath, PK_BIN, OUT: sb.root, PK_STATE_DIR: join(disk, 'state')},
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(result.status, result.stderr).toBe(0)
    const read = (name: string) => readFileSync(join(sb.root, name), 'utf8')
    expect(read('rc').trim()).toBe('1')
    expect(read('err')).toMatch(/no space left on the device/)
    noStackTrace(read('err'))
    expect(read('left')).toBe('')
    expect(sb.tmuxTry(sb.pkSocket, 'list-sessions').stdout).toBe('')
  })

  rootIt('an unreadable boot id: a plain message and exit 1, no stack trace', () => {
    const script = String.raw`
mount --bind /dev/null /proc/sys/kernel/random/boot_id
set +e
"$NODE" "$PK_BIN" ls > "$OUT/out" 2> "$OUT/err"; echo $? > "$OUT/rc"
"$NODE" "$PK_BIN" ls --json > /dev/null 2> "$OUT/err-json"; echo $? > "$OUT/rc-json"
`
    const result = spawnSync('unshare', ['--mount', 'bash', '-euc', script], {
      env: {...sb.env, NODE: process.execPath, PK_BIN, OUT: sb.root},
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(result.status, result.stderr).toBe(0)
    const read = (name: string) => readFileSync(join(sb.root, name), 'utf8')
    for (const [rc, err] of [
      ['rc', 'err'],
      ['rc-json', 'err-json'],
    ]) {
      expect(read(rc!).trim()).toBe('1')
      expect(read(err!)).toMatch(/cannot read \/proc\/sys\/kernel\/random\/boot_id/)
      noStackTrace(read(err!))
    }
  })

  it('doctor --fix with a file named quarantine: a plain message, and the record stays', async () => {
    await sb.bgRow(['--', 'sleep', '1000'])
    writeFileSync(join(sb.stateDir, 'sessions', 'broken.json'), '{')
    writeFileSync(join(sb.stateDir, 'quarantine'), 'not a directory')
    const result = await sb.pk(['doctor', '--fix'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/quarantine is not a directory.*move it away/)
    noStackTrace(result.stderr)
    expect(existsSync(join(sb.stateDir, 'sessions', 'broken.json'))).toBe(true)
  })

  it("doctor --fix leaves a newer pk's records alone and says so", async () => {
    const row = await sb.bgRow(['--', 'sleep', '1000'])
    const file = join(sb.stateDir, 'sessions', `${row.id}.json`)
    const future = join(sb.stateDir, 'sessions', 'future.json')
    writeFileSync(future, JSON.stringify({...JSON.parse(readFileSync(file, 'utf8')), version: 2}))
    const result = await sb.pk(['doctor', '--fix', '--json'])
    const stateDir = (JSON.parse(result.stdout) as {checks: {id: string; status: string; message: string}[]}).checks.find((c) => c.id === 'state-dir')
    expect(stateDir).toMatchObject({status: 'warn', message: expect.stringMatching(/written by a newer pk, left alone: future\.json/)})
    expect(existsSync(future)).toBe(true)
  })
})

describe('what pk refuses', () => {
  it('pk wait on an id that two records claim exits 4 at once', async () => {
    const row = await sb.bgRow(['--', 'sleep', '1000'])
    const file = join(sb.stateDir, 'sessions', `${row.id}.json`)
    writeFileSync(join(sb.stateDir, 'sessions', 'copy.json'), readFileSync(file))
    const started = Date.now()
    const result = await sb.pk(['wait', row.id, '--for', 'idle', '--timeout', '30'])
    expect(result.code).toBe(4)
    expect(Date.now() - started).toBeLessThan(15_000)
  })

  it('attach with tmux missing says that tmux is missing', async () => {
    const row = await sb.bgRow(['--', 'sleep', '1000'])
    const result = await sb.pk(['attach', row.id, '--print'], {env: {PATH: '/nonexistent'}})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/tmux is not installed or not on PATH/)
  })

  rootIt('another user: a --cwd they cannot enter is refused (exit 2), and a server that refuses them is said to', async () => {
    const pk = pkForUser('nobody', sb.root)
    const world = mkdtempSync('/tmp/pk-nobody-')
    chmodSync(world, 0o755)
    chownSync(world, 65534, 65534)
    const closed = join(sb.root, 'closed')
    mkdirSync(closed, {mode: 0o700})
    const env = ['env', '-i', `HOME=${world}`, `PATH=${process.env.PATH}`, 'LANG=C.UTF-8', `TMUX_TMPDIR=${world}`, `PK_STATE_DIR=${join(world, 'state')}`]
    const asNobody = (args: string[]) =>
      spawnSync('runuser', ['-u', 'nobody', '--', ...env, process.execPath, pk, ...args], {encoding: 'utf8', cwd: world, timeout: 30_000})
    try {
      const cwd = asNobody(['bg', '--cwd', closed, '--', 'sleep', '1000'])
      expect(cwd.status, cwd.stderr).toBe(2)
      expect(cwd.stderr).toMatch(/cannot be entered/)
      const mode000 = join(world, 'mode000')
      mkdirSync(mode000, {mode: 0o000})
      chownSync(mode000, 65534, 65534)
      expect(asNobody(['bg', '--cwd', mode000, '--', 'sleep', '1000']).status).toBe(2)

      // A root server whose socket sits in nobody's socket directory, open to all: tmux says "access
      // not allowed", which pk must call by its name rather than "no panes".
      const dir = join(world, 'tmux-65534')
      mkdirSync(dir, {mode: 0o700})
      chownSync(dir, 65534, 65534)
      const rootSocket = join(dir, 'roots')
      execFileSync('tmux', ['-S', rootSocket, 'new-session', '-d', '--', 'sleep', '1000'])
      chmodSync(rootSocket, 0o777)
      const ls = asNobody(['ls', '--json', '--all'])
      expect(ls.status, ls.stderr).toBe(0)
      expect(JSON.parse(ls.stdout).problems).toContainEqual(expect.objectContaining({code: 'server-access-denied', socket: rootSocket}))
      execFileSync('tmux', ['-S', rootSocket, 'kill-server'])
    } finally {
      spawnSync('pkill', ['-KILL', '-u', 'nobody', '-f', world])
      rmSync(world, {recursive: true, force: true})
    }
  })
})
