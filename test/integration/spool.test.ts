import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseSpoolText} from '../../src/lib/events/spool.js'
import {processSource} from '../../src/lib/proc/source.js'
import {LsJson, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'
import {spooled as spooledIn} from '../helpers/reporting-session.js'

const HOOK = join(ROOT, 'assets', 'pk-hook.sh')
let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

const spool = () => join(sb.stateDir, 'spool')
const spooled = () => spooledIn(sb)
const claude = (event: string, extra = '') => `{"hook_event_name":"${event}","session_id":"conv-s"${extra}}`

describe('the sh hook and its spool', () => {
  it('takes an event from inside a pane without node; readers show it, and only the writer applies it', async () => {
    // The pane's process reports once it has been told to go (after its record exists), then stays.
    const go = join(sb.root, 'go')
    const row = await sb.bgRow([
      '--',
      'sh',
      '-c',
      `while [ ! -e "${go}" ]; do sleep 0.1; done; printf %s '${claude('Notification', ',"notification_type":"permission_prompt"')}' | "${HOOK}" claude; exec sleep 100000`,
    ])
    writeFileSync(go, '')
    await waitFor('spooled', () => spooled().length === 1)
    const text = readFileSync(join(spool(), spooled()[0]!), 'utf8')
    const event = parseSpoolText('f', text)!
    expect(event).toMatchObject({agent: 'claude', payload: claude('Notification', ',"notification_type":"permission_prompt"')})
    // The sender's whole ancestry, nearest first: the pane's shell, then tmux above it.
    expect(event.chain[0]!.pid).toBe(row.pid)
    expect(event.chain.length).toBeGreaterThan(1)
    const recordFile = join(sb.stateDir, 'sessions', `${row.id}.json`)
    const before = readFileSync(recordFile, 'utf8')
    const listed = (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id)!
    expect(listed).toMatchObject({state: 'waiting', stateSource: 'hook', resume: ['claude', '--resume', 'conv-s']})
    // A reader never writes: the event is still pending and the record as it was.
    expect(spooled()).toHaveLength(1)
    expect(readFileSync(recordFile, 'utf8')).toBe(before)
    expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
    expect(spooled()).toEqual([])
    const record = JSON.parse(readFileSync(recordFile, 'utf8'))
    expect(record).toMatchObject({conversationId: 'conv-s', status: {state: 'waiting', event: 'Notification:permission_prompt'}})
  })

  it('keeps every event until it is applied, never torn by writers at once; the writer applies them in order', async () => {
    const go = join(sb.root, 'go')
    const script = `while [ ! -e "${go}" ]; do sleep 0.1; done; for i in $(seq 40); do printf '{"hook_event_name":"PreToolUse","n":%s}' $i | "${HOOK}" claude & done; wait; sleep 0.05; printf '{"hook_event_name":"Stop"}' | "${HOOK}" claude; exec sleep 100000`
    // Sent from inside the session's process tree, through a shell each time.
    const row = await sb.bgRow(['--', 'sh', '-c', script])
    writeFileSync(go, '')
    await waitFor('all 41 pending', () => spooled().length === 41, 15_000)
    for (const name of spooled()) expect(parseSpoolText(name, readFileSync(join(spool(), name), 'utf8'))).not.toBeNull()
    expect(readdirSync(spool()).filter((n) => n.startsWith('.'))).toEqual([])
    await sb.pk(['notify', '--fold'])
    expect(spooled()).toEqual([])
    // The last one sent stands: the turn ended.
    expect(JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8')).status).toMatchObject({
      state: 'idle',
      event: 'Stop',
      turnEnded: true,
    })
  })

  it('dates an event when it is written, not when its hook started: a payload slow to arrive is not dated before the events that showed first', async () => {
    const go = join(sb.root, 'go')
    const started = join(sb.root, 'started')
    // The agent hands the payload 1.5 s after it started the hook (a loaded machine does the same to the hook's own steps).
    await sb.bgRow([
      '--',
      'sh',
      '-c',
      `while [ ! -e "${go}" ]; do sleep 0.1; done; cat /proc/uptime > "${started}"; (sleep 1.5; printf %s '${claude('Stop')}') | "${HOOK}" claude; exec sleep 100000`,
    ])
    writeFileSync(go, '')
    await waitFor('spooled', () => spooled().length === 1)
    const event = parseSpoolText(spooled()[0]!, readFileSync(join(spool(), spooled()[0]!), 'utf8'))!
    const start = Number(readFileSync(started, 'utf8').split(' ')[0])
    expect(event.uptime - start).toBeGreaterThanOrEqual(1.4)
  })

  it("an event whose sender is nobody's session is logged and removed by the writer, never attributed to another process", async () => {
    mkdirSync(spool(), {recursive: true, mode: 0o700})
    await sb.bgRow(['--', 'sleep', '100000'])
    // An event from a process that is gone (pid 1 with a start time that is not its own).
    writeFileSync(join(spool(), '100-1'), `pk-spool 2 claude 1.00 999999:1\n${claude('Stop')}`, {mode: 0o600})
    writeFileSync(join(spool(), '101-1'), 'garbage', {mode: 0o600})
    const listing = await sb.pkJson<LsJson>(['ls'])
    expect(listing.sessions.every((s) => s.stateSource !== 'hook')).toBe(true)
    expect(spooled()).toHaveLength(2)
    await sb.pk(['notify', '--fold'])
    expect(spooled()).toEqual([])
    const log = readFileSync(join(sb.stateDir, 'hook.log'), 'utf8')
    expect(log).toMatch(/claude event 100-1: nobody's/)
    // Not an event: kept for a person to look at, never deleted.
    expect(log).toMatch(/spool 101-1: not an event \(not a pk spool event \(its first line\)\); moved to quarantine\//)
    expect(readdirSync(join(sb.stateDir, 'quarantine')).map((n) => readFileSync(join(sb.stateDir, 'quarantine', n), 'utf8'))).toEqual(['garbage'])
  })

  it('an event its hook is still writing (stopped mid-write) is not read yet, by readers or the writer; taken once whole; quarantined when its hook died', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    const clock = processSource().clock()!
    const pane = `${row.pid}:${processSource().stat(row.pid!)!.startTime}`
    // Two hooks that stopped in the middle of their write: one stays stopped, one is killed there.
    const stopped = spawn('sleep', ['100000'], {stdio: 'ignore'})
    const killed = spawn('sleep', ['100000'], {stdio: 'ignore'})
    try {
      await waitFor('both started', () => processSource().stat(stopped.pid!) !== null && processSource().stat(killed.pid!) !== null)
      stopped.kill('SIGSTOP')
      const now = processSource().clock()!.seconds
      const stamp = Math.floor(now * 100)
      const bucket = join(spool(), String(Math.floor(now)))
      mkdirSync(bucket, {recursive: true, mode: 0o700})
      const payload = claude('Notification', ',"notification_type":"permission_prompt"')
      const whole = `pk-spool ${clock.kind === 'epoch' ? 3 : 2} claude ${(stamp / 100).toFixed(2)} ${pane} ${payload.length}\n${payload}`
      const half = whole.slice(0, whole.length - 10)
      writeFileSync(join(bucket, `${stamp}-${stopped.pid}`), half, {mode: 0o600})
      writeFileSync(join(bucket, `${stamp}-${killed.pid}`), half, {mode: 0o600})
      killed.kill('SIGKILL')
      await waitFor('the killed one gone', () => processSource().stat(killed.pid!) === null || processSource().stat(killed.pid!)!.state.startsWith('Z'))
      const listed = async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id)!
      expect(await listed()).not.toMatchObject({stateSource: 'hook'})
      expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
      // The stopped one's file stays as it is, unread and unjudged; the dead one's is cut short: kept aside, with why.
      expect(spooled()).toEqual([])
      expect(spooledIn(sb, {all: true})).toEqual([`${Math.floor(now)}/${stamp}-${stopped.pid}`])
      const log = readFileSync(join(sb.stateDir, 'hook.log'), 'utf8')
      expect(log).toMatch(new RegExp(`spool ${Math.floor(now)}/${stamp}-${killed.pid}: not an event \\(cut short: \\d+ of its \\d+ bytes`))
      expect(log).not.toMatch(new RegExp(`${stamp}-${stopped.pid}`))
      expect(readdirSync(join(sb.stateDir, 'quarantine'))).toHaveLength(1)
      // It goes on and finishes its write: an event like any other.
      writeFileSync(join(bucket, `${stamp}-${stopped.pid}`), whole.slice(half.length), {flag: 'a'})
      stopped.kill('SIGCONT')
      expect(await listed()).toMatchObject({state: 'waiting', stateSource: 'hook'})
      expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
      expect(spooled()).toEqual([])
      expect(JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8')).status).toMatchObject({state: 'waiting'})
    } finally {
      stopped.kill('SIGKILL')
      killed.kill('SIGKILL')
    }
  })

  it('writes nothing, and exits 0, where it may not: no state directory, another namespace owns it, a bad agent name', async () => {
    const run = (args: string[], env: NodeJS.ProcessEnv = sb.env) => spawnSync(HOOK, args, {env, input: claude('Stop'), encoding: 'utf8'})
    expect(run(['claude']).status).toBe(0)
    expect(existsSync(sb.stateDir)).toBe(false)
    await sb.bgRow(['--', 'sleep', '100000'])
    const owner = join(sb.stateDir, 'owner.json')
    const real = readFileSync(owner, 'utf8')
    writeFileSync(owner, real.replace(/"pidNs": "(ps:)?\d+"/, '"pidNs": "$14026531000"'))
    expect(run(['claude']).status).toBe(0)
    expect(spooled()).toEqual([])
    writeFileSync(owner, real)
    expect(run(['../evil']).status).toBe(0)
    expect(run([]).status).toBe(0)
    expect(spooled()).toEqual([])
    expect(run(['claude']).status).toBe(0)
    expect(spooled()).toHaveLength(1)
  })

  it('starts no node on the hot events; has pk look at once (in the background) on those that may need you', async () => {
    await sb.bgRow(['--', 'sleep', '100000'])
    const shim = join(sb.root, 'node-shim')
    const calls = join(sb.root, 'node-calls')
    writeFileSync(shim, `#!/bin/sh\necho "$*" >> "${calls}"\n`, {mode: 0o755})
    for (const event of ['PreToolUse', 'PostToolUse', 'UserPromptSubmit']) spawnSync(HOOK, ['claude', shim], {env: sb.env, input: claude(event)})
    spawnSync(HOOK, ['claude', shim], {env: sb.env, input: claude('Stop')})
    // (the shim's file exists a moment before its line is in it) Once the Stop's node ran, one a hot event
    // had started before it would have written its line too: there is one line, the Stop's.
    await waitFor('pk notify ran', () => existsSync(calls) && /\n/.test(readFileSync(calls, 'utf8')))
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toHaveLength(1)
    expect(readFileSync(calls, 'utf8')).toMatch(/bin\/run\.js notify --fold/)
    // Codex passes its payload as the last argument.
    spawnSync(HOOK, ['codex', shim, '{"type":"agent-turn-complete","thread-id":"t1"}'], {env: sb.env})
    await waitFor('again for codex', () => readFileSync(calls, 'utf8').trim().split('\n').length === 2)
  })

  it('starts one writer at a time: while the one it started runs, a storm of events starts no other', async () => {
    await sb.bgRow(['--', 'sleep', '100000'])
    const shim = join(sb.root, 'slow-writer')
    const calls = join(sb.root, 'writer-calls')
    const gone = join(sb.root, 'writer-may-go')
    // (bounded: a test that fails leaves no process behind for long)
    writeFileSync(shim, `#!/bin/sh\necho "$*" >> "${calls}"\nn=0\nwhile [ ! -e "${gone}" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done\n`, {
      mode: 0o755,
    })
    const hooks = Array.from(
      {length: 20},
      () =>
        new Promise((resolve) =>
          spawn(HOOK, ['claude', shim], {env: sb.env, stdio: ['pipe', 'ignore', 'ignore']})
            .on('exit', resolve)
            .stdin!.end(claude('Stop')),
        ),
    )
    await Promise.all(hooks)
    await waitFor('the writer started', () => existsSync(calls) && /\n/.test(readFileSync(calls, 'utf8')))
    expect(readFileSync(join(sb.stateDir, 'writer'), 'utf8')).toMatch(/^\d+ \d+\n$/)
    for (let i = 0; i < 5; i++) spawnSync(HOOK, ['claude', shim], {env: sb.env, input: claude('Stop')})
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toHaveLength(1)
    expect(spooled()).toHaveLength(25)
    // Once it is gone (without taking its name away: killed), the next event starts another.
    writeFileSync(gone, '')
    await waitFor('the writer gone', () => {
      const pid = Number(readFileSync(join(sb.stateDir, 'writer'), 'utf8').split(' ')[0])
      return !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z')
    })
    spawnSync(HOOK, ['claude', shim], {env: sb.env, input: claude('Stop')})
    await waitFor('a second writer', () => readFileSync(calls, 'utf8').trim().split('\n').length === 2)
  })

  it("a writer name that is no writer's (a FIFO, a dangling link, a file naming pid 1) keeps no writer from starting; a directory starts none per event, and doctor names each", async () => {
    await sb.bgRow(['--', 'sleep', '100000'])
    const shim = join(sb.root, 'quick-writer')
    const calls = join(sb.root, 'writer-calls')
    writeFileSync(shim, `#!/bin/sh\necho "$*" >> "${calls}"\n`, {mode: 0o755})
    const mark = join(sb.stateDir, 'writer')
    const count = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n').length : 0)
    const init = processSource().stat(1)!.startTime
    const odd: [string, () => void][] = [
      ['a FIFO', () => spawnSync('mkfifo', [mark])],
      ['a dangling link', () => symlinkSync(join(sb.root, 'nowhere'), mark)],
      ['a file naming pid 1', () => writeFileSync(mark, `1 ${init}\n`)],
    ]
    for (const [what, make] of odd) {
      rmSync(mark, {force: true, recursive: true})
      make()
      const doctor = JSON.parse((await sb.pk(['doctor', '--json'])).stdout) as {checks: {id: string; status: string; message: string}[]}
      expect(
        doctor.checks.find((c) => c.id === 'state-lock'),
        what,
      ).toMatchObject({status: 'fail', message: expect.stringMatching(/^writer /)})
      const before = count()
      spawnSync(HOOK, ['claude', shim], {env: sb.env, input: claude('Stop')})
      await waitFor(`a writer started beside ${what}`, () => count() === before + 1)
    }
    // A directory there: no writer per event (it multiplied them), and doctor names it; --fix moves it aside.
    rmSync(mark, {force: true, recursive: true})
    mkdirSync(mark)
    const before = count()
    for (let i = 0; i < 3; i++) spawnSync(HOOK, ['claude', shim], {env: sb.env, input: claude('Stop')})
    expect(count()).toBe(before)
    expect(readdirSync(mark)).toEqual([])
    const fixed = JSON.parse((await sb.pk(['doctor', '--json', '--fix'])).stdout) as {fixes: string[]; checks: {id: string; status: string}[]}
    expect(fixed.fixes).toContainEqual(expect.stringMatching(/moved the directory .*writer to .*quarantine/))
    expect(fixed.checks.find((c) => c.id === 'state-lock')!.status).toBe('pass')
  })

  it('a lock entry that never dies (naming pid 1; of another pid namespace) is named by doctor; --fix removes the first, and the second only with a yes on a terminal', async () => {
    await sb.bgRow(['--', 'sleep', '100000'])
    const lock = join(sb.stateDir, 'registry.lock')
    mkdirSync(lock, {recursive: true})
    const view = JSON.parse(readFileSync(join(sb.stateDir, 'owner.json'), 'utf8')) as {bootId: string; pidNs: string}
    const init = processSource().stat(1)!.startTime
    const pid1 = `H_${view.bootId}_${view.pidNs}_1_${init}_ab`
    const foreign = `H_${view.bootId}_4026599999_7_123_cd`
    writeFileSync(join(lock, pid1), '')
    writeFileSync(join(lock, foreign), '')
    const doctor = JSON.parse((await sb.pk(['doctor', '--json'])).stdout) as {checks: {id: string; status: string; message: string}[]}
    const check = doctor.checks.find((c) => c.id === 'state-lock')!
    expect(check.status).toBe('fail')
    expect(check.message).toMatch(/names pid 1, alive but no pk/)
    expect(check.message).toMatch(/claims pid 7 of another pid namespace \(4026599999\)/)
    const fixed = JSON.parse((await sb.pk(['doctor', '--json', '--fix'])).stdout) as {fixes: string[]}
    expect(fixed.fixes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/removed registry.lock\/H_.*_1_.*pid 1 is no pk/),
        expect.stringMatching(/left registry.lock\/H_.*4026599999/),
      ]),
    )
    expect(readdirSync(lock)).toEqual([foreign])
  })

  it('pk setup installs it for claude, codex and pi', async () => {
    await sb.pk(['setup', 'claude'])
    const settings = JSON.parse(readFileSync(join(sb.home, '.claude', 'settings.json'), 'utf8'))
    expect(settings.hooks.PreToolUse[0].hooks[0]).toMatchObject({command: HOOK, args: ['claude', process.execPath], async: true})
    await sb.pk(['setup', 'pi'])
    expect(readFileSync(join(sb.home, '.pi', 'agent', 'extensions', 'pk.js'), 'utf8')).toContain(JSON.stringify([HOOK, 'pi', process.execPath]))
    const child = spawn(HOOK, ['pi', process.execPath, '{"event":"agent_start","sessionId":"p1","at":1}'], {env: sb.env})
    expect(await new Promise((r) => child.on('exit', r))).toBe(0)
  })
})

describe('a reader beside a huge backlog', () => {
  /** An event file as a hook of an earlier pk left it (loose, in the spool itself) or as hooks now do (in its second's bucket). */
  const event = (stamp: number, body = '{"hook_event_name":"PostToolUse","session_id":"conv-x"}') =>
    `pk-spool 2 claude ${(stamp / 100).toFixed(2)} 99:5\n${body}`

  // (about the spool's layout at a scale that is the file system's, not how processes are read nor which
  // node runs pk: once, with the machine's own source, on the suite's first node: scripts/test.sh)
  it.skipIf(process.env.PK_PROCESS_SOURCE === 'ps' || process.env.PK_TEST_SECOND_NODE === '1')(
    '200,000 loose files of an earlier pk and 200,000 in buckets: pk ls --json answers (no list spread into a call), says a backlog waits; the writer drains them all',
    async () => {
      const row = await sb.bgRow(['--', 'sleep', '100000'])
      mkdirSync(spool(), {recursive: true, mode: 0o700})
      const uptime = Math.floor(processSource().clock()!.seconds)
      for (let i = 0; i < 200_000; i++) writeFileSync(join(spool(), `${(uptime - 5000) * 100 + i}-${1000 + (i % 50)}`), event((uptime - 5000) * 100 + i))
      for (let b = 0; b < 100; b++) {
        const bucket = uptime - 200 + b
        mkdirSync(join(spool(), String(bucket)), {mode: 0o700})
        for (let i = 0; i < 2000; i++) writeFileSync(join(spool(), String(bucket), `${bucket * 100 + (i % 100)}-${2000 + i}`), event(bucket * 100 + (i % 100)))
      }
      const listed = await sb.pkJson<LsJson>(['ls'])
      expect(listed.sessions.map((s) => s.id)).toContain(row.id)
      expect(listed.problems.map((p) => p.code)).toContain('events-pending')
      const fold = await sb.pk(['notify', '--fold'])
      expect(fold.code, fold.stderr).toBe(0)
      expect(readdirSync(spool())).toEqual([])
      // Drained, the folder is made small again (ext4 never shrinks one): readers list it again, and all is said.
      expect((await sb.pkJson<LsJson>(['ls'])).problems.map((p) => p.code)).not.toContain('events-pending')
    },
    300_000,
  )

  // (about which events a reader reads: once, with the machine's own source)
  it.skipIf(process.env.PK_PROCESS_SOURCE === 'ps')(
    "pk wait takes no turn end from a session whose newest event waits beyond what a reader reads (its new turn's start pushed out by others' events)",
    async () => {
      const row = await sb.bgRow(['--', 'sleep', '100000'])
      const quiet = await sb.bgRow(['--', 'sleep', '100001'])
      const link = `${row.pid}:${processSource().stat(row.pid!)!.startTime}`
      const quietLink = `${quiet.pid}:${processSource().stat(quiet.pid!)!.startTime}`
      mkdirSync(spool(), {recursive: true, mode: 0o700})
      const uptime = Math.floor(processSource().clock()!.seconds)
      const put = (second: number, i: number, chain: string, body: string) => {
        mkdirSync(join(spool(), String(second)), {recursive: true, mode: 0o700})
        writeFileSync(
          join(spool(), String(second), `${second * 100 + i}-${4000 + i}`),
          `pk-spool 2 claude ${second}.${String(i).padStart(2, '0')} ${chain}\n${body}`,
        )
      }
      // Its last turn ended, and the writer applied that.
      put(uptime - 30, 0, link, '{"hook_event_name":"Stop","session_id":"conv-w"}')
      put(uptime - 30, 1, quietLink, '{"hook_event_name":"Stop","session_id":"conv-q"}')
      expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
      expect((await sb.pkJson<LsJson>(['ls'])).sessions.find((r) => r.id === row.id)).toMatchObject({state: 'idle'})
      // Its next turn began; then 300 events of nobody's, newer, before any writer ran.
      put(uptime - 20, 0, link, '{"hook_event_name":"UserPromptSubmit","session_id":"conv-w"}')
      for (let i = 0; i < 300; i++) put(uptime - 10 + Math.floor(i / 100), i % 100, '99:5', '{"hook_event_name":"PostToolUse","session_id":"conv-x"}')
      const listed = await sb.pkJson<LsJson>(['ls'])
      expect(listed.problems.map((p) => p.code)).toContain('events-pending')
      const waited = await sb.pk(['wait', row.id, '--for', 'idle', '--timeout', '2'])
      expect([waited.code, waited.stderr]).toEqual([124, expect.stringMatching(/its newest hook events wait behind a backlog/)])
      // A session no pending event names is told as it is, backlog or not.
      expect((await sb.pk(['wait', quiet.id, '--for', 'idle', '--timeout', '10'])).code).toBe(0)
      // Applied, the turn shows: still no idle.
      expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
      expect((await sb.pkJson<LsJson>(['ls'])).sessions.find((r) => r.id === row.id)).toMatchObject({state: 'working'})
      const after = await sb.pk(['wait', row.id, '--for', 'idle', '--timeout', '1'])
      expect([after.code, after.stderr]).toEqual([124, expect.stringMatching(/still working/)])
    },
    120_000,
  )

  it('reads of each pending payload only what identifies the event: 8 MiB tool outputs are not read by a reader', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    mkdirSync(spool(), {recursive: true, mode: 0o700})
    const uptime = Math.floor(processSource().clock()!.seconds)
    mkdirSync(join(spool(), String(uptime)), {mode: 0o700})
    const big = `{"hook_event_name":"PostToolUse","session_id":"conv-big","tool_response":"${'x'.repeat(8 * 1024 * 1024 - 100)}"}`
    for (let i = 0; i < 32; i++) writeFileSync(join(spool(), String(uptime), `${uptime * 100 + i}-${3000 + i}`), event(uptime * 100 + i, big))
    // Memory: with a heap of 64 MB a reader that kept each payload (32 x 8 MiB) could not list at all.
    const listed = spawnSync(process.execPath, ['--max-old-space-size=64', join(ROOT, 'bin', 'run.js'), 'ls', '--json'], {env: sb.env, encoding: 'utf8'})
    expect(listed.status, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).sessions.map((s: {id: string}) => s.id)).toContain(row.id)
  }, 120_000)
})
