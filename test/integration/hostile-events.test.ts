import {spawnSync} from 'node:child_process'
import {chmodSync, chownSync, openSync, rmSync, symlinkSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LsJson, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'
import {spooled} from '../helpers/reporting-session.js'

/** Issue 36, safe under attack round three: events that break pk, forged Codex turns, big events, other users' spool files. */
const HOOK = join(ROOT, 'assets', 'pk-hook.sh')
let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

const rootIt = process.getuid!() === 0 ? it : it.skip
const hookLog = () => (existsSync(join(sb.stateDir, 'hook.log')) ? readFileSync(join(sb.stateDir, 'hook.log'), 'utf8') : '')
const record = (id: string) => JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${id}.json`), 'utf8'))

/** A session whose own process sends the given hook calls (argv of pk-hook.sh, after the script) once told to go, then stays. */
async function sender(calls: string[][]): Promise<{id: string; go: () => void}> {
  const go = join(sb.root, `go-${Math.random().toString(36).slice(2)}`)
  const lines = calls.map((argv) => `'${HOOK}' ${argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')}`).join('\n')
  const script = join(sb.root, `send-${Math.random().toString(36).slice(2)}.sh`)
  writeFileSync(script, `while [ ! -e '${go}' ]; do sleep 0.05; done\n${lines}\nexec sleep 100000\n`)
  const row = await sb.bgRow(['--', 'sh', script])
  return {id: row.id, go: () => writeFileSync(go, '')}
}

describe('one badly dated event stops nothing', () => {
  it("Pi's at: 1e300 and an observation of 9e15: every ls format works, the writer ignores them (logged once) and applies the rest", async () => {
    const s = await sender([
      ['pi', '', '{"event":"agent_start","sessionId":"p1","at":1000}'],
      ['pi', '', '{"event":"agent_end","sessionId":"p1","at":1e300}'],
      ['pi', '', `{"event":"agent_end","sessionId":"p1","at":${Date.now()}}`],
    ])
    s.go()
    await waitFor('three pending', () => spooled(sb).length === 3, 15_000)
    for (const args of [['ls'], ['ls', '--json'], ['ls', '--format', 'short'], ['ls', '--format', 'short', '--color']]) {
      const result = await sb.pk(args)
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
    }
    expect((await sb.pk(['notify', '--observe', JSON.stringify({pid: 1, startTime: 1, state: 'idle', firstSeen: 9_000_000_000_000_000})])).code).toBe(2)
    expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
    expect(spooled(sb)).toEqual([])
    expect(record(s.id).status).toMatchObject({state: 'idle', event: 'agent_end'})
    expect(hookLog().match(/out of range/g)).toHaveLength(1)
  })
})

describe('a forged Codex turn', () => {
  it("from a process outside every session, naming a pk Codex session's directory and a thread: nobody's, the conversation and resume untouched", async () => {
    const bin = join(sb.root, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'codex'), `#!/bin/sh\nprintf '› Ask Codex to do anything\\n  gpt-5 default · ~/w\\n  ? for shortcuts\\n'\nexec sleep 100000\n`, {
      mode: 0o755,
    })
    const dir = join(sb.root, 'project')
    mkdirSync(dir)
    const row = await sb.bgRow(['codex', '--cwd', dir], {env: {PATH: `${bin}:${process.env.PATH}`}})
    // The test process is in no session: as a codex run by hand in a plain terminal, or a cron job.
    const forged = spawnSync(
      HOOK,
      ['codex', '', JSON.stringify({type: 'agent-turn-complete', cwd: dir, 'thread-id': '0199aaaa-bbbb-7ccc-8ddd-000000000000'})],
      {env: sb.env},
    )
    expect(forged.status).toBe(0)
    expect(spooled(sb)).toHaveLength(1)
    const listed = (await sb.pkJson<LsJson>(['ls'])).sessions.find((r) => r.id === row.id)!
    expect(listed.resume).toBeNull()
    expect(listed.stateSource).not.toBe('hook')
    expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
    expect(record(row.id)).toMatchObject({conversationId: null, status: null})
    expect(hookLog()).toMatch(/codex event .*: nobody's \(a codex event from outside every session/)
  })
})

describe("another user's files in the spool", () => {
  rootIt('are never applied, whatever they say: quarantined with why', async () => {
    const s = await sender([])
    const dir = join(sb.stateDir, 'spool', '7')
    mkdirSync(dir, {recursive: true, mode: 0o700})
    const stat = readFileSync(`/proc/${record(s.id).identity.pid}/stat`, 'utf8')
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
    const file = join(dir, '700-1')
    writeFileSync(
      file,
      `pk-spool 2 claude 7.00 ${record(s.id).identity.pid}:${start}\n{"hook_event_name":"Stop","session_id":"theirs","transcript_path":"/tmp/theirs.jsonl"}`,
    )
    chownSync(file, 65534, 65534)
    const listed = (await sb.pkJson<LsJson>(['ls'])).sessions.find((r) => r.id === s.id)!
    expect(listed.stateSource).not.toBe('hook')
    expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
    expect(record(s.id).conversationId).toBeNull()
    expect(hookLog()).toMatch(/spool 7\/700-1: not an event \(owned by uid 65534, not by you\); moved to quarantine/)
    expect(readdirSync(join(sb.stateDir, 'quarantine'))).toHaveLength(1)
  })
})

describe('a spool others may write, and what killed hooks leave', () => {
  it("spool/ at 0777 is read by no one (the event waits, unapplied); doctor says so and --fix tightens it; a killed hook's temp file is named and swept", async () => {
    const s = await sender([['claude', '', '{"hook_event_name":"Stop","session_id":"conv-x"}']])
    s.go()
    await waitFor('pending', () => spooled(sb).length === 1, 15_000)
    const spool = join(sb.stateDir, 'spool')
    chmodSync(spool, 0o777)
    // A hook killed between writing and renaming (its pid is no process now).
    writeFileSync(join(spool, '.tmp-999999999-1234'), 'pk-spool 2 claude 12.34 1:1\n{}')
    expect((await sb.pkJson<LsJson>(['ls'])).sessions.find((r) => r.id === s.id)!.stateSource).not.toBe('hook')
    expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
    expect(record(s.id).status).toBeNull()
    const doctor = JSON.parse((await sb.pk(['doctor', '--json'])).stdout) as {checks: {id: string; status: string; message: string}[]}
    const check = doctor.checks.find((c) => c.id === 'state-dir')!
    expect(check).toMatchObject({status: 'fail', message: expect.stringMatching(/spool is writable by group or others/)})
    expect(check.message).toMatch(/1 temporary file\(s\) in spool\/ left by a hook or writer that was killed mid-write: \.tmp-999999999-1234/)
    const fixed = await sb.pk(['doctor', '--fix'])
    expect(fixed.stdout + fixed.stderr).toMatch(/chmod 700 .*spool/)
    expect(existsSync(join(spool, '.tmp-999999999-1234'))).toBe(false)
    expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
    expect(record(s.id).status).toMatchObject({state: 'idle', event: 'Stop'})
  })
})

describe('an unreadable owner.json', () => {
  it('garbage, a FIFO or a link: a live session shows once, as ownership unknown, never as a conflict', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    const owner = join(sb.stateDir, 'owner.json')
    const real = readFileSync(owner, 'utf8')
    for (const plant of [() => writeFileSync(owner, 'not json'), () => spawnSync('mkfifo', [owner]), () => symlinkSync(join(sb.root, 'nowhere'), owner)]) {
      rmSync(owner, {force: true})
      plant()
      const json = await sb.pkJson<LsJson>(['ls'])
      expect(json.sessions.filter((r) => r.id === row.id)).toHaveLength(1)
      expect(json.problems.map((p) => p.code)).not.toContain('conflict')
      expect(json.problems).toContainEqual(
        expect.objectContaining({code: 'bad-owner', message: expect.stringMatching(/ownership of the state directory is unknown/)}),
      )
    }
    rmSync(owner, {force: true})
    writeFileSync(owner, real)
    expect((await sb.pkJson<LsJson>(['ls'])).sessions.find((r) => r.id === row.id)).toMatchObject({verified: true, record: expect.any(String)})
  })
})

describe('spool entries a writer cannot apply', () => {
  it('a directory and a name that is not UTF-8: each quarantined once, with why; no writer run loops or says "removed"', async () => {
    const s = await sender([['claude', '', '{"hook_event_name":"Stop","session_id":"conv-y"}']])
    s.go()
    await waitFor('pending', () => spooled(sb).length === 1, 15_000)
    const spool = join(sb.stateDir, 'spool')
    mkdirSync(join(spool, '100-1'), {mode: 0o700})
    writeFileSync(Buffer.concat([Buffer.from(`${spool}/`), Buffer.from([0x31, 0x30, 0x31, 0x2d, 0xff, 0xfe])]), 'pk-spool 2 claude 1.01 1:1\n{}')
    const started = Date.now()
    expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
    expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
    expect(Date.now() - started).toBeLessThan(60_000)
    expect(record(s.id).status).toMatchObject({event: 'Stop'})
    const log = hookLog()
    expect(log).not.toMatch(/removed/)
    expect(log.match(/not an event \(a directory\); moved to quarantine/g)).toHaveLength(1)
    expect(log.match(/not an event \(its name is not UTF-8\); moved to quarantine/g)).toHaveLength(1)
    expect(readdirSync(spool).filter((n) => !n.startsWith('.') && !/^\d+$/.test(n))).toEqual([])
    expect(readdirSync(join(sb.stateDir, 'quarantine'))).toHaveLength(2)
  })
})

describe('a hook event bigger than 64 KB', () => {
  it('a Claude PermissionRequest of 5 MB (a Write of a big file) is kept whole and shows its session waiting; one of 9 MB still does', async () => {
    const payload = (conv: string, mb: number) =>
      JSON.stringify({
        session_id: conv,
        transcript_path: '/tmp/t.jsonl',
        cwd: '/tmp',
        hook_event_name: 'PermissionRequest',
        tool_name: 'Write',
        tool_input: {file_path: '/tmp/x', content: 'x'.repeat(mb * 1024 * 1024)},
      })
    const five = join(sb.root, 'five.json')
    const nine = join(sb.root, 'nine.json')
    writeFileSync(five, payload('conv-five', 5))
    writeFileSync(nine, payload('conv-nine', 9))
    const go = join(sb.root, 'go')
    // Each sent from inside its session, on standard input, as Claude Code sends it.
    const a = await sb.bgRow(['--', 'sh', '-c', `while [ ! -e '${go}' ]; do sleep 0.05; done; '${HOOK}' claude < '${five}'; exec sleep 100000`])
    const b = await sb.bgRow(['--', 'sh', '-c', `while [ ! -e '${go}' ]; do sleep 0.05; done; '${HOOK}' claude < '${nine}'; exec sleep 100000`])
    writeFileSync(go, '')
    await waitFor('both pending', () => spooled(sb).length === 2, 15_000)
    const kept = spooled(sb)
      .map((name) => readFileSync(join(sb.stateDir, 'spool', name), 'utf8'))
      .map((text) => text.slice(text.indexOf('\n') + 1))
    expect(kept).toContain(readFileSync(five, 'utf8'))
    // The 9 MB one is cut at 8 MiB and one byte: what identifies it is taken from its beginning.
    expect(kept.map((k) => Buffer.byteLength(k)).sort((x, y) => x - y)[1]).toBe(8 * 1024 * 1024 + 1)
    const listed = (await sb.pkJson<LsJson>(['ls'])).sessions
    for (const row of [a, b]) expect(listed.find((r) => r.id === row.id)).toMatchObject({state: 'waiting', stateSource: 'hook'})
    expect((await sb.pk(['notify', '--fold'])).code).toBe(0)
    expect(spooled(sb)).toEqual([])
    expect(record(a.id)).toMatchObject({conversationId: 'conv-five', status: {state: 'waiting', event: 'PermissionRequest'}})
    expect(record(b.id)).toMatchObject({conversationId: 'conv-nine', status: {state: 'waiting', event: 'PermissionRequest'}})
  })
})

describe('a permission request bigger than 64 KB, the only event sent (issue 61, item 9)', () => {
  it('is applied and told at once by the writer its own hook starts, as a 10 KB one is (100 KB and 5 MB; what names it first or last)', async () => {
    // As installed (the hook given node: it starts the writer), each from inside its session, on standard
    // input, nothing else sending: told within seconds, with no pk notify run by the test. (Reported told
    // 37 s late, or never; not seen here on 2.1.332 nor in this test, kept as a guard.)
    const config = join(sb.home, '.config', 'pk')
    mkdirSync(config, {recursive: true})
    const told = join(sb.root, 'told')
    writeFileSync(join(config, 'config.json'), JSON.stringify({notify: [{command: ['sh', '-c', `echo "$PK_ID $PK_STATE" >> '${told}'`]}]}))
    const payload = (conv: string, bytes: number, late: boolean) => {
      const names = {session_id: conv, transcript_path: '/tmp/t.jsonl', cwd: '/tmp', permission_mode: 'default', hook_event_name: 'PermissionRequest'}
      const tool = {tool_name: 'Write', tool_input: {file_path: '/tmp/x', content: 'x'.repeat(bytes)}}
      // (late: what names the event after the content, as issue 70 sent it: none of it in the first 64 KB)
      return JSON.stringify(late ? {...tool, ...names} : {...names, ...tool})
    }
    const sessions = []
    for (const [conv, bytes, late] of [
      ['conv-10k', 10_000, false],
      ['conv-100k', 100_000, false],
      ['conv-5m', 5 * 1024 * 1024, false],
      ['conv-100k-late', 100_000, true],
      ['conv-5m-late', 5 * 1024 * 1024, true],
    ] as const) {
      const file = join(sb.root, `${conv}.json`)
      writeFileSync(file, payload(conv, bytes, late))
      const row = await sb.bgRow(['--', 'sh', '-c', `'${HOOK}' claude '${process.execPath}' < '${file}'; exec sleep 100000`])
      await waitFor(`${conv} told`, () => existsSync(told) && readFileSync(told, 'utf8').includes(`${row.id} waiting`), 30_000)
      expect((await sb.pkJson<LsJson>(['ls'])).sessions.find((r) => r.id === row.id)).toMatchObject({state: 'waiting'})
      sessions.push(row.id)
    }
    await sb.settled()
    expect(readFileSync(told, 'utf8').trim().split('\n').sort()).toEqual(sessions.map((id) => `${id} waiting`).sort())
    expect(spooled(sb)).toEqual([])
  })
})

describe('a payload on standard input, at the edges of its first read', () => {
  it('kept byte for byte around 64 KB (a newline at the cut, trailing newlines, characters of two bytes under bash in UTF-8); a terminal or a closed standard input gives none', async () => {
    await sb.bgRow(['--', 'sleep', '100000'])
    const body = (size: number, fill: string, tail = '') => {
      const head = `{"hook_event_name":"PreToolUse","session_id":"edge","pad":"`
      const close = `"}${tail}`
      const room = size - Buffer.byteLength(head) - Buffer.byteLength(close)
      return head + fill.repeat(Math.floor(room / Buffer.byteLength(fill))) + close
    }
    const newlineAtCut = (() => {
      // The 65536th byte a newline (whitespace after the JSON's first object... inside a JSON it can only be
      // whitespace), then more: the first read ends on it, and what follows must still be copied.
      const start = `{"hook_event_name":"PreToolUse","session_id":"edge","pad":"`
      const pad = 'y'.repeat(65536 - start.length - 3)
      return `${start}${pad}",\n\n"rest":"${'z'.repeat(1000)}"}`
    })()
    const cases: Array<[string, string, string[]]> = [
      ['65535 bytes', body(65535, 'a'), ['sh']],
      ['65536 bytes', body(65536, 'a'), ['sh']],
      ['65537 bytes', body(65537, 'a'), ['sh']],
      ['a newline at the cut, more after it', newlineAtCut, ['sh']],
      ['trailing newlines', body(200, 'a', '\n\n\n'), ['sh']],
      ['two-byte characters, 100 KB, under bash in UTF-8', body(100_000, '\u00e9'), ['bash']],
    ]
    for (const [label, payload, [shell]] of cases) {
      const file = join(sb.root, 'payload')
      writeFileSync(file, payload)
      rmSync(join(sb.stateDir, 'spool'), {recursive: true, force: true})
      const result = spawnSync(shell!, [HOOK, 'claude'], {env: {...sb.env, LC_ALL: 'C.UTF-8'}, stdio: [openSync(file, 'r'), 'pipe', 'pipe']})
      expect(result.status, label).toBe(0)
      const [name] = spooled(sb)
      expect(name, label).toBeDefined()
      const text = readFileSync(join(sb.stateDir, 'spool', name!))
      expect(text.subarray(text.indexOf(10) + 1).equals(Buffer.from(payload)), label).toBe(true)
    }
    // Standard input closed: a payload given as the last argument is still taken; none given, nothing is
    // written. Either way exit 0, and not a word on stderr (the agent may show it).
    rmSync(join(sb.stateDir, 'spool'), {recursive: true, force: true})
    for (const shell of ['sh', 'bash']) {
      const closed = (args: string[]) => spawnSync('sh', ['-c', `exec ${shell} "$@" <&-`, 'sh', HOOK, ...args], {env: sb.env, encoding: 'utf8'})
      const noPayload = closed(['claude'])
      expect([noPayload.status, noPayload.stderr, spooled(sb)]).toEqual([0, '', []])
      const withPayload = closed(['codex', '', '{"type":"agent-turn-complete"}'])
      expect([withPayload.status, withPayload.stderr]).toEqual([0, ''])
      expect(spooled(sb)).toHaveLength(1)
      rmSync(join(sb.stateDir, 'spool'), {recursive: true, force: true})
    }
    // Run by hand in a terminal (a tmux pane's), the hook takes no payload and does not wait for one.
    rmSync(join(sb.stateDir, 'spool'), {recursive: true, force: true})
    const done = join(sb.root, 'done')
    await sb.bgRow(['--', 'sh', '-c', `'${HOOK}' claude; echo $? > '${done}'; exec sleep 100000`])
    await waitFor('the hook ended', () => existsSync(done) && readFileSync(done, 'utf8') === '0\n', 15_000)
    expect(spooled(sb)).toEqual([])
  })
})
