import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, readdirSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseSpoolText} from '../../src/lib/events/spool.js'
import {parsePsTable, psArgs, PS_ENV} from '../../src/lib/proc/ps-parse.js'
import {spooled as spooledIn} from '../helpers/reporting-session.js'
import {LsJson, PK_BIN, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'

/** The ps process source end to end, whichever source the rest of the suite runs with. */
const PS = {PK_PROCESS_SOURCE: 'ps'}
const HOOK = join(ROOT, 'assets', 'pk-hook.sh')
// strace that can trace here (a container may forbid ptrace): the check is skipped, and says so, where not.
const hasStrace = spawnSync('strace', ['-f', '-o', '/dev/null', 'true']).status === 0
if (!hasStrace) console.warn('skipping the strace check of the ps source: strace cannot trace here')

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe('the ps process source', () => {
  it.skipIf(!hasStrace)('lists sessions without opening a single /proc file of its own (strace)', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'], {env: PS})
    let dir = ''
    try {
      // A listing that verified the session, so that the trace is of the whole of it (ps' table, lsof for
      // the server). Traced beside a CPU hog, tmux or lsof can miss pk's deadline, and pk then says "not
      // verified just now", as it should: that run is traced again, up to three times.
      let listed: LsJson['sessions'][number] | undefined
      for (let attempt = 0; attempt < 3 && !listed?.verified; attempt++) {
        if (dir !== '') rmSync(dir, {recursive: true, force: true})
        dir = mkdtempSync(join(sb.root, 'strace-'))
        const traced = spawnSync('strace', ['-f', '-ff', '-o', join(dir, 't'), '-e', 'trace=%file,execve', process.execPath, PK_BIN, 'ls', '--json'], {
          env: {...sb.env, ...PS},
          encoding: 'utf8',
        })
        expect(traced.status, traced.stderr).toBe(0)
        listed = (JSON.parse(traced.stdout) as LsJson).sessions.find((s) => s.id === row.id)
      }
      expect(listed, JSON.stringify(listed)).toMatchObject({verified: true})
      // One file per thread or process: pk's own are the ones that run node (or never exec: its threads);
      // ps, lsof, sysctl and tmux read /proc for themselves, which is their business.
      const own = readdirSync(dir)
        .map((name) => readFileSync(join(dir, name), 'utf8'))
        .filter((text) => !/^execve\("(?!.*\/node")/m.test(text))
      expect(own.length).toBeGreaterThan(0)
      const touched = own.flatMap((text) => text.split('\n').filter((line) => /"\/proc\//.test(line)))
      // node itself reads a few files of its own at start (its memory map, its binary, its cgroup's limits;
      // Node 24 the kernel's version_signature);
      // pk reads no process's file, no namespace, no socket table, no uptime.
      const pk = touched.filter((line) => !/"\/proc\/(self\/(maps|exe|cgroup)|meminfo|version_signature)"/.test(line))
      expect(pk).toEqual([])
      expect(touched.some((line) => /\/proc\/\d+/.test(line))).toBe(false)
    } finally {
      if (dir !== '') rmSync(dir, {recursive: true, force: true})
    }
  })

  it('keeps its identities apart from /proc: a pk on the other source shows them unverified and writes nothing', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'], {env: PS})
    const owner = JSON.parse(readFileSync(join(sb.stateDir, 'owner.json'), 'utf8')) as {pidNs: string}
    expect(owner.pidNs).toMatch(/^ps:\d+$/)
    // The start second, as ps says it (read here in UTC), is the identity's start time.
    const ps = spawnSync('ps', psArgs('procps', [row.pid!]), {env: {...process.env, ...PS_ENV}, encoding: 'utf8'})
    const record = JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8')) as {identity: {startTime: number}}
    expect(record.identity.startTime).toBe(parsePsTable(ps.stdout, 'procps').rows.get(row.pid!)!.startTime)

    const proc = {PK_PROCESS_SOURCE: 'proc'}
    const listed = await sb.pkJson<LsJson>(['ls', '--json'], {env: proc})
    expect(listed.sessions.find((s) => s.id === row.id)).toMatchObject({verified: false})
    expect(listed.problems).toContainEqual(expect.objectContaining({code: 'foreign-namespace'}))
    const bg = await sb.pk(['bg', '--', 'sleep', '1'], {env: proc})
    expect(bg.code).toBe(5)
    expect(bg.stderr).toMatch(/processes from ps/)
    // And back on ps, it is its own again.
    expect((await sb.pkJson<LsJson>(['ls', '--json'], {env: PS})).sessions.find((s) => s.id === row.id)).toMatchObject({verified: true})
  })

  it("the sh hook notes the sender's ancestry with one ps call, and the event lands on its session", async () => {
    const row = await sb.bgRow(
      [
        '--',
        'sh',
        '-c',
        `sleep 0.5; printf %s '{"hook_event_name":"Notification","session_id":"c1","notification_type":"permission_prompt"}' | '${HOOK}' claude; exec sleep 100000`,
      ],
      {
        env: PS,
      },
    )
    await waitFor('spooled', () => spooledIn(sb).length === 1, 15_000)
    const name = spooledIn(sb)[0]!
    const event = parseSpoolText(name, readFileSync(join(sb.stateDir, 'spool', name), 'utf8'))!
    expect(event.clock).toBe('epoch')
    expect(Math.abs(event.uptime - Date.now() / 1000)).toBeLessThan(60)
    // The sender is the pane's shell: its start second, as the ps source reads it.
    expect(event.chain[0]).toEqual({
      pid: row.pid,
      startTime: JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8')).identity.startTime,
    })
    const listed = await sb.pkJson<LsJson>(['ls', '--json'], {env: PS})
    expect(listed.sessions.find((s) => s.id === row.id)).toMatchObject({state: 'waiting', stateSource: 'hook'})
  })

  it('doctor says which source reads the processes', async () => {
    const json = JSON.parse((await sb.pk(['doctor', '--json'], {env: PS})).stdout) as {checks: {id: string; status: string; message: string}[]}
    expect(json.checks.find((c) => c.id === 'process-source')).toMatchObject({status: 'pass', message: expect.stringMatching(/ps .*PK_PROCESS_SOURCE=ps/)})
    const proc = JSON.parse((await sb.pk(['doctor', '--json'], {env: {PK_PROCESS_SOURCE: 'proc'}})).stdout) as typeof json
    expect(proc.checks.find((c) => c.id === 'process-source')).toMatchObject({status: 'pass', message: expect.stringMatching(/\/proc/)})
  })
})
