import {chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {newContinueFile} from '../../src/lib/limits/store.js'
import {SessionRow} from '../../src/lib/model/contract.js'
import {SessionRecord} from '../../src/lib/registry/records.js'
import {CheckResult} from '../../src/lib/model/contract.js'
import {Sandbox, waitFor} from '../helpers/sandbox.js'

interface DoctorJson {
  schema: number
  ok: boolean
  checks: CheckResult[]
  fixes: string[]
}

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

const bg = (...args: string[]) => sb.bgRow(args)

async function doctor(...args: string[]): Promise<{code: number; json: DoctorJson}> {
  const result = await sb.pk(['doctor', '--json', ...args])
  return {code: result.code, json: JSON.parse(result.stdout) as DoctorJson}
}

const check = (json: DoctorJson, id: string) => json.checks.find((c) => c.id === id)!

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else out[path] = `${statSync(path).mtimeMs} ${readFileSync(path, 'base64')}`
    }
  }
  walk(dir)
  return out
}

describe('pk doctor', () => {
  it('on a healthy setup: every check passes, one plain line per check without a terminal', async () => {
    await bg('--', 'sleep', '1000')
    const {code, json} = await doctor()
    expect(code).toBe(0)
    expect(json.schema).toBe(1)
    expect(json.checks.map((c) => c.id)).toEqual([
      'tmux',
      'socket-dir',
      'servers',
      'stale-sockets',
      'orphaned-servers',
      'process-source',
      'pid-namespace',
      'state-dir',
      'state-lock',
      'config',
      'server-env',
      'survive',
      'wake-ups',
      'mcp',
      'agents',
      'agent-states',
    ])
    // (the agents on this machine's PATH are this machine's: judged below, with agents of known releases)
    expect(json.checks.filter((c) => c.status !== 'pass' && c.id !== 'agents')).toEqual([])
    const plain = await sb.pk(['doctor'])
    expect(plain.code).toBe(0)
    expect(plain.stdout.trim().split('\n')).toHaveLength(16)
    expect(plain.stdout).toMatch(/^ok {3}tmux: tmux \d/m)
  })

  it('names the release of each agent on PATH, read from its npm package, and warns of one pk is not verified on', async () => {
    const prefix = join(sb.root, 'npm-global')
    const install = (pkg: string, version: string, program: string, name: string) => {
      const dir = join(prefix, 'lib', 'node_modules', pkg)
      mkdirSync(join(dir, 'bin'), {recursive: true})
      writeFileSync(join(dir, 'package.json'), JSON.stringify({name: pkg, version}))
      writeFileSync(join(dir, 'bin', program), '#!/bin/sh\nexit 0\n', {mode: 0o755})
      mkdirSync(join(prefix, 'bin'), {recursive: true})
      symlinkSync(join(dir, 'bin', program), join(prefix, 'bin', name))
    }
    install('@anthropic-ai/claude-code', '2.1.340', 'claude.exe', 'claude')
    install('@openai/codex', '0.171.0', 'codex.js', 'codex')
    const result = await sb.pk(['doctor', '--json'], {env: {PATH: `${join(prefix, 'bin')}:/usr/bin:/bin`}})
    const agents = check(JSON.parse(result.stdout) as DoctorJson, 'agents')
    expect(agents).toMatchObject({
      status: 'warn',
      message:
        'claude 2.1.340: newer than the newest release pk is verified on (2.1.337): working, waiting and idle come from its own record of itself; limits and dialogs, read from its screen, may be misread; codex 0.171.0: verified',
    })
    // A warning: doctor still exits 0.
    expect(result.code).toBe(0)
  })

  it('a killed server leaves a stale socket: found, and --fix removes it', async () => {
    await bg('--', 'sleep', '1000')
    process.kill(Number(sb.tmux(sb.pkSocket, 'display-message', '-p', '#{pid}').trim()), 'SIGKILL')
    await waitFor('server gone', () => sb.tmuxTry(sb.pkSocket, 'list-sessions').code !== 0)
    const before = await doctor()
    expect(check(before.json, 'stale-sockets')).toMatchObject({status: 'warn', fixable: true, message: expect.stringContaining(sb.pkSocket)})
    expect(before.code).toBe(0)
    const fixed = await doctor('--fix')
    expect(fixed.json.fixes).toEqual([`removed stale socket ${sb.pkSocket}`])
    expect(check(fixed.json, 'stale-sockets').status).toBe('pass')
    expect(existsSync(sb.pkSocket)).toBe(false)
  })

  it('a deleted socket leaves an orphaned server: found with its panes, and --fix brings the sessions back', async () => {
    const a = await bg('--', 'sleep', '1000')
    const b = await bg('--', 'sleep', '1001')
    unlinkSync(sb.pkSocket)
    const ls = await sb.pkJson<{sessions: SessionRow[]; problems: {code: string}[]}>(['ls'])
    expect(ls.sessions.every((s) => !s.verified)).toBe(true)
    expect(ls.problems.map((p) => p.code)).toContain('unreachable')

    const before = await doctor()
    expect(before.code).toBe(1)
    expect(check(before.json, 'orphaned-servers')).toMatchObject({
      status: 'fail',
      fixable: true,
      message: expect.stringMatching(/still runs 2 pane\(s\) \(2 pk session\(s\)\), but its socket .* was deleted/),
    })
    const plain = await sb.pk(['doctor'])
    expect(plain.stdout).toMatch(/FAIL orphaned-servers: your sessions are alive but unreachable/)

    const fixed = await doctor('--fix')
    expect(fixed.code).toBe(0)
    expect(fixed.json.fixes).toEqual([expect.stringMatching(/^recreated .*pk for tmux server pid \d+ \(SIGUSR1\)$/)])
    const after = await sb.pkJson<{sessions: SessionRow[]}>(['ls'])
    expect(after.sessions.map((s) => [s.id, s.verified, s.tmux?.pane]).sort()).toEqual(
      [
        [a.id, true, a.tmux!.pane],
        [b.id, true, b.tmux!.pane],
      ].sort(),
    )
    expect((await sb.pk(['attach', a.id, '--print'])).code).toBe(0)
  })

  it('loosened modes on the socket directory and the state directory fail, and --fix tightens them', async () => {
    await bg('--', 'sleep', '1000')
    chmodSync(sb.socketDir, 0o755)
    chmodSync(sb.stateDir, 0o777)
    const before = await doctor()
    expect(before.code).toBe(1)
    expect(check(before.json, 'socket-dir')).toMatchObject({status: 'fail', fixable: true})
    expect(check(before.json, 'state-dir')).toMatchObject({status: 'fail', fixable: true, message: expect.stringMatching(/writable by group or others/)})
    const fixed = await doctor('--fix')
    expect(fixed.code).toBe(0)
    expect(fixed.json.fixes).toEqual(expect.arrayContaining([`chmod 700 ${sb.socketDir}`, `chmod 700 ${sb.stateDir}`]))
    expect(statSync(sb.socketDir).mode & 0o777).toBe(0o700)
    expect(statSync(sb.stateDir).mode & 0o777).toBe(0o700)
  })

  it('a corrupt record is quarantined, not lost', async () => {
    await bg('--', 'sleep', '1000')
    const bad = join(sb.stateDir, 'sessions', 'broken.json')
    writeFileSync(bad, '{"version": 1, "identity": ')
    const before = await doctor()
    expect(check(before.json, 'state-dir')).toMatchObject({status: 'fail', message: expect.stringContaining('broken.json (corrupt-record)')})
    const fixed = await doctor('--fix')
    expect(fixed.code).toBe(0)
    expect(existsSync(bad)).toBe(false)
    const quarantined = readdirSync(join(sb.stateDir, 'quarantine'))
    expect(quarantined).toHaveLength(1)
    expect(quarantined[0]).toMatch(/broken\.json$/)
    expect(readFileSync(join(sb.stateDir, 'quarantine', quarantined[0]!), 'utf8')).toBe('{"version": 1, "identity": ')
  })

  it('reports conflicts without touching them, and tmux missing as a failure', async () => {
    const a = await bg('--', 'sleep', '1000')
    const dir = join(sb.stateDir, 'sessions')
    writeFileSync(join(dir, 'copy.json'), readFileSync(join(dir, `${a.id}.json`)))
    const before = await doctor('--fix')
    expect(check(before.json, 'state-dir')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/claim the same process/),
      fix: expect.stringMatching(/by hand/),
    })
    expect(existsSync(join(dir, 'copy.json'))).toBe(true)
    const noTmux = await sb.pk(['doctor', '--json'], {env: {PATH: '/nonexistent'}})
    expect(noTmux.code).toBe(1)
    expect(JSON.parse(noTmux.stdout).checks[0]).toMatchObject({id: 'tmux', status: 'fail'})
  })
})

describe('pk prune', () => {
  /** Fabricate records next to a real one: same boot and namespace, other pids and start times. */
  function plant(template: string, name: string, change: (r: SessionRecord) => void): string {
    const record = JSON.parse(readFileSync(template, 'utf8'))
    change(record)
    const path = join(sb.stateDir, 'sessions', name)
    writeFileSync(path, JSON.stringify(record))
    return path
  }

  it('--dry-run changes nothing; --yes removes exactly the dead, keeps the live and the resumable', async () => {
    const live = await bg('--', 'sleep', '1000')
    const crashed = await bg('--', 'sh', '-c', 'sleep 1; echo bye; exit 3')
    const dir = join(sb.stateDir, 'sessions')
    const liveFile = join(dir, `${live.id}.json`)
    const reused = plant(liveFile, 'reused.json', (r) => {
      r.identity.startTime -= 1
    })
    const resumable = plant(liveFile, 'resumable.json', (r) => {
      r.identity.pid = 4_000_001
      r.agent = 'claude'
      r.conversationId = 'c0ffee'
    })
    const gone = plant(liveFile, 'gone.json', (r) => {
      r.identity.pid = 4_000_002
    })
    await waitFor('crashed session to exit', () => sb.tmux(sb.pkSocket, 'display-message', '-p', '-t', crashed.tmux!.pane, '#{pane_dead}').trim() === '1')

    // What pk kept to continue a session at a usage limit goes with its record, and only with it.
    const continues = join(sb.stateDir, 'continue')
    mkdirSync(continues, {mode: 0o700})
    for (const row of [live, crashed]) writeFileSync(join(continues, `${row.id}.json`), JSON.stringify(newContinueFile(row.id, {pid: 1, startTime: 1})))
    const before = snapshot(sb.stateDir)
    const dry = await sb.pk(['prune', '--dry-run', '--json'])
    expect(dry.code).toBe(0)
    const plan = JSON.parse(dry.stdout)
    expect(snapshot(sb.stateDir)).toEqual(before)
    expect(sb.tmux(sb.pkSocket, 'list-panes', '-a', '-F', '#{pane_id}').trim().split('\n').sort()).toEqual([live.tmux!.pane, crashed.tmux!.pane].sort())

    const removedTargets = (items: {kind: string; target: string}[]) => items.map((i) => `${i.kind} ${i.target}`).sort()
    const expected = [`record ${reused}`, `record ${gone}`, `record ${join(dir, `${crashed.id}.json`)}`, `pane ${sb.pkSocket} ${crashed.tmux!.pane}`].sort()
    expect(removedTargets(plan.removed)).toEqual(expected)
    expect(plan.kept).toEqual([{id: expect.any(String), record: resumable, reason: 'resumable'}])
    expect(plan.removed.find((i: {target: string}) => i.target === reused).reason).toMatch(/another process/)

    const done = await sb.pk(['prune', '--yes', '--json'])
    expect(done.code).toBe(0)
    expect(removedTargets(JSON.parse(done.stdout).removed)).toEqual(expected)
    expect(readdirSync(dir).sort()).toEqual([`${live.id}.json`, 'resumable.json'].sort())
    expect(readdirSync(continues)).toEqual([`${live.id}.json`])
    expect(sb.tmux(sb.pkSocket, 'list-panes', '-a', '-F', '#{pane_id}').trim()).toBe(live.tmux!.pane)
    // The resumable one stays listed, as exited, until it is pruned too.
    const listed = (await sb.pkJson<{sessions: SessionRow[]}>(['ls'])).sessions
    expect(listed.map((s) => s.id)).toContain(live.id)
    expect(listed.filter((s) => s.id !== live.id)).toEqual([expect.objectContaining({state: 'exited', record: resumable})])

    const all = await sb.pk(['prune', '--yes', '--include-resumable'])
    expect(all.stdout).toMatch(/removed record .*\(process gone\): .*resumable\.json/)
    expect(readdirSync(dir)).toEqual([`${live.id}.json`])
  })

  it('keeps conflicting records, and needs --yes or --dry-run without a terminal', async () => {
    const a = await bg('--', 'sleep', '1000')
    const dir = join(sb.stateDir, 'sessions')
    writeFileSync(join(dir, 'copy.json'), readFileSync(join(dir, `${a.id}.json`)))
    const refused = await sb.pk(['prune'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/--yes/)
    const result = await sb.pk(['prune', '--yes', '--json'])
    const json = JSON.parse(result.stdout)
    expect(json.removed).toEqual([])
    expect(json.kept).toEqual([expect.objectContaining({reason: 'conflict'})])
    expect(readdirSync(dir).sort()).toEqual([`${a.id}.json`, 'copy.json'].sort())
  })

  it('removes stale sockets, and says so plainly when there is nothing to do', async () => {
    await bg('--', 'sleep', '1000')
    sb.tmux(sb.pkSocket, 'kill-server')
    const result = await sb.pk(['prune', '--yes'])
    expect(result.stdout).toContain(`removed socket (no server listening (stale socket)): ${sb.pkSocket}`)
    expect(existsSync(sb.pkSocket)).toBe(false)
    expect((await sb.pk(['prune', '--yes'])).stdout).toBe('nothing to prune\n')
  })
})

describe('on a terminal', () => {
  it('doctor draws a task list, and prune shows its plan and asks before removing', async () => {
    const {PK_BIN} = await import('../helpers/sandbox.js')
    const {shellQuote} = await import('../../src/lib/model/shell.js')
    const pk = (...args: string[]) => [process.execPath, PK_BIN, ...args].map(shellQuote).join(' ')
    const a = await bg('--', 'sleep', '1000')
    writeFileSync(
      join(sb.stateDir, 'sessions', 'gone.json'),
      readFileSync(join(sb.stateDir, 'sessions', `${a.id}.json`), 'utf8').replace(/"pid": \d+/, '"pid": 4000003'),
    )
    const term = sb.socket('term')
    sb.tmux(
      term,
      'new-session',
      '-d',
      '-x',
      '160',
      '-y',
      '40',
      '-s',
      'term',
      '--',
      'env',
      '-u',
      'TMUX',
      'sh',
      '-c',
      `${pk('doctor')}; echo "doctor-exit=$?"; ${pk('prune')}; echo "prune-exit=$?"; exec sleep 1000`,
    )
    const screen = () => sb.tmux(term, 'capture-pane', '-p', '-t', 'term')
    await waitFor('prune question', () => screen().includes('Remove these 1? [y/N]'), 15_000)
    expect(screen()).toMatch(/✔ tmux: tmux \d/)
    expect(screen()).toContain('doctor-exit=0')
    expect(screen()).toMatch(/would remove record .*gone\.json/)
    expect(existsSync(join(sb.stateDir, 'sessions', 'gone.json'))).toBe(true)
    sb.tmux(term, 'send-keys', '-t', 'term', 'y', 'Enter')
    await waitFor('prune done', () => screen().includes('prune-exit=0'))
    expect(screen()).toMatch(/removed record .*gone\.json/)
    expect(existsSync(join(sb.stateDir, 'sessions', 'gone.json'))).toBe(false)
  })
})

describe('pk doctor and the configuration (issue #23)', () => {
  it('fails on a config that makes pk ls exit 2, and warns about hooks that run another pk', async () => {
    writeFileSync(join(sb.home, '.pkrc.json'), JSON.stringify({agents: {claude: {executables: 'not a list'}}}))
    expect((await sb.pk(['ls'], {cwd: sb.home})).code).toBe(2)
    const broken = await sb.pk(['doctor', '--json'], {cwd: sb.home})
    expect(broken.code).toBe(1)
    expect(JSON.parse(broken.stdout).checks.find((c: {id: string}) => c.id === 'config')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/executables/),
    })
    rmSync(join(sb.home, '.pkrc.json'))
    mkdirSync(join(sb.home, '.claude'), {recursive: true})
    writeFileSync(
      join(sb.home, '.claude', 'settings.json'),
      JSON.stringify({hooks: {Stop: [{hooks: [{type: 'command', command: '/old/place/assets/pk-hook.sh', args: ['claude', '/usr/bin/node']}]}]}}),
    )
    const stale = JSON.parse((await sb.pk(['doctor', '--json'])).stdout).checks.find((c: {id: string}) => c.id === 'config')
    expect(stale).toMatchObject({status: 'warn', fix: 'pk setup claude'})
    await sb.pk(['setup', 'claude'])
    expect(JSON.parse((await sb.pk(['doctor', '--json'])).stdout).checks.find((c: {id: string}) => c.id === 'config')).toMatchObject({
      status: 'pass',
      message: expect.stringMatching(/hooks of claude run this pk/),
    })
  })
})
