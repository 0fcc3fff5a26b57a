import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {SessionRow} from '../../src/lib/model/contract.js'
import {shellQuote} from '../../src/lib/model/shell.js'
import {LsJson, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'

let sb: Sandbox
let bin: string
let env: NodeJS.ProcessEnv
beforeEach(() => {
  sb = new Sandbox()
  bin = join(sb.root, 'bin')
  mkdirSync(bin)
  // A stand-in agent: writes its argv, reports a conversation id through the generic hook, then waits.
  writeFileSync(
    join(bin, 'echoer'),
    `#!/bin/sh\nprintf '%s\\n' "$@" > "$OUT/argv-$$"\n[ -n "$CONV" ] && "$NODE" "$PK_BIN" hook echoer "{\\"state\\": \\"idle\\", \\"conversationId\\": \\"$CONV\\"}"\n[ "$1" = --resume ] && "$NODE" "$PK_BIN" hook echoer "{\\"state\\": \\"idle\\", \\"conversationId\\": \\"$2\\"}"\nexec sleep 100000\n`,
    {mode: 0o755},
  )
  mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
  writeFileSync(
    join(sb.home, '.config', 'pk', 'config.json'),
    JSON.stringify({agents: {echoer: {command: ['echoer'], executables: ['echoer'], resume: ['echoer', '--resume', '{id}']}}}),
  )
  env = {PATH: `${bin}:${process.env.PATH}`, OUT: sb.root, NODE: process.execPath, PK_BIN: join(import.meta.dirname, '..', '..', 'bin', 'run.js')}
})
afterEach(() => sb.cleanup())

const ls = async (all = true) => (await sb.pkJson<LsJson>(['ls', ...(all ? ['--all'] : [])], {env})).sessions
const rowOf = async (id: string) => (await ls()).find((s) => s.id === id)
async function echoer(conv: string | null, args: string[] = []): Promise<SessionRow> {
  const row = await sb.bgRow(['echoer', '--name', 'work', ...args], {env: {...env, CONV: conv ?? ''}})
  if (conv) await waitFor('conversation reported', async () => (await rowOf(row.id))?.resume !== null)
  return row
}

describe('pk stop', () => {
  it('ends an agent with SIGTERM, one that ignores it with SIGKILL after the timeout, and keeps both records', async () => {
    const polite = await sb.bgRow(['--', 'sleep', '100000'])
    const stubborn = await sb.bgRow(['--', 'sh', '-c', 'trap "" TERM; exec sleep 100000'])
    const result = await sb.pk(['stop', polite.id, stubborn.id, '--timeout', '1', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const json = JSON.parse(result.stdout) as {stopped: {id: string; signal: string}[]; failed: unknown[]}
    expect(json.stopped).toEqual([expect.objectContaining({id: polite.id, signal: 'SIGTERM'}), expect.objectContaining({id: stubborn.id, signal: 'SIGKILL'})])
    const state = () => (existsSync(`/proc/${stubborn.pid}/stat`) ? readFileSync(`/proc/${stubborn.pid}/stat`, 'utf8').split(') ')[1]![0] : 'gone')
    expect(['gone', 'Z']).toContain(state())
    // The records stay, as exited and stopped; the panes are gone with their processes.
    for (const id of [polite.id, stubborn.id]) expect(await rowOf(id)).toMatchObject({state: 'exited', exitReason: 'stopped', tmux: null})
    expect(sb.tmuxTry(sb.pkSocket, 'list-panes', '-a').stdout).toBe('')
  })

  it('--all stops every live session pk ls lists, narrowed by its filters; ids and --all together, or a filter alone, are usage errors', async () => {
    const bin = join(sb.root, 'bin')
    mkdirSync(bin, {recursive: true})
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\nexec sleep 100000\n', {mode: 0o755})
    const env = {PATH: `${bin}:${process.env.PATH}`}
    const claude = await sb.bgRow(['claude'], {env})
    const plain = await sb.bgRow(['--', 'sleep', '100000'])
    const done = await sb.bgRow(['--', 'sh', '-c', 'sleep 1; exit 0'])
    await waitFor('exited', async () => ((await rowOf(done.id))?.state === 'exited' ? true : null), 10_000)
    expect((await sb.pk(['stop', '--agent', 'claude'])).code).toBe(2)
    expect((await sb.pk(['stop', claude.id, '--all'])).code).toBe(2)
    expect((await sb.pk(['stop'])).code).toBe(2)
    const some = await sb.pk(['stop', '--all', '--agent', 'claude', '--json'], {env})
    expect(some.code, some.stderr).toBe(0)
    expect(JSON.parse(some.stdout)).toMatchObject({stopped: [{id: claude.id}], exited: [], failed: []})
    expect(existsSync(`/proc/${plain.pid}`)).toBe(true)
    const rest = await sb.pk(['stop', '--all', '--json'], {env})
    expect(JSON.parse(rest.stdout).stopped.map((s: {id: string}) => s.id)).toEqual([plain.id])
    expect((await sb.pk(['stop', '--all'], {env})).code).toBe(0)
  }, 60_000)

  it('says why it will not: no such session (3), malformed id (2), conflicting records (4); already exited is done (0)', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    expect((await sb.pk(['stop', 'ffffffff'])).code).toBe(3)
    expect((await sb.pk(['stop', 'not-an-id'])).code).toBe(2)
    const many = await sb.pk(['stop', 'ffffffff', row.id])
    expect(many.code).toBe(3)
    expect(many.stdout).toMatch(new RegExp(`stopped ${row.id}`))
    const again = await sb.pk(['stop', row.id.slice(0, 5)])
    expect([again.code, again.stdout]).toEqual([0, `${row.id} had exited already\n`])
    expect(JSON.parse((await sb.pk(['stop', row.id, '--json'])).stdout)).toMatchObject({stopped: [], exited: [row.id], failed: []})
    const other = await sb.bgRow(['--', 'sleep', '100000'])
    writeFileSync(join(sb.stateDir, 'sessions', 'copy.json'), readFileSync(join(sb.stateDir, 'sessions', `${other.id}.json`)))
    expect((await sb.pk(['stop', other.id])).code).toBe(4)
    expect(existsSync(`/proc/${other.pid}`)).toBe(true)
  })
})

describe('pk resume', () => {
  it("starts the conversation again with the preset's resume argv, in the same place, as a new session", async () => {
    const first = await echoer('conv-1')
    expect((await sb.pk(['stop', first.id])).code).toBe(0)
    const result = await sb.pk(['resume', first.id, '--json'], {env})
    expect(result.code, result.stderr).toBe(0)
    const {session, resumedFrom} = JSON.parse(result.stdout) as {session: SessionRow; resumedFrom: string}
    expect(resumedFrom).toBe(first.id)
    expect(session).toMatchObject({agent: 'echoer', label: 'work', cwd: first.cwd, verified: true})
    expect(session.id).not.toBe(first.id)
    expect(readFileSync(join(sb.root, `argv-${session.pid}`), 'utf8')).toBe('--resume\nconv-1\n')
    const record = JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${session.id}.json`), 'utf8'))
    expect(record).toMatchObject({resumedFrom: first.id, conversationId: 'conv-1'})
    // The old one is no longer offered for resuming, nor listed by default.
    expect(await rowOf(first.id)).toMatchObject({resume: null, resumedBy: session.id})
    expect((await ls(false)).map((s) => s.id)).not.toContain(first.id)
    expect((await sb.pk(['resume', first.id], {env})).code).toBe(4)
  })

  it("keeps what the session was started with: the label and the agent's own arguments, resumed after resumed", async () => {
    const first = await echoer('conv-9', ['--', '--model', 'opus'])
    expect(readFileSync(join(sb.root, `argv-${first.pid}`), 'utf8')).toBe('--model\nopus\n')
    await sb.pk(['stop', first.id])
    const again = JSON.parse((await sb.pk(['resume', first.id, '--json'], {env})).stdout).session as SessionRow
    expect(again).toMatchObject({label: 'work'})
    expect(readFileSync(join(sb.root, `argv-${again.pid}`), 'utf8')).toBe('--resume\nconv-9\n--model\nopus\n')
    await waitFor('reported', async () => (await rowOf(again.id))?.resume !== null)
    await sb.pk(['stop', again.id])
    const third = JSON.parse((await sb.pk(['resume', again.id, '--json'], {env})).stdout).session as SessionRow
    expect(readFileSync(join(sb.root, `argv-${third.pid}`), 'utf8')).toBe('--resume\nconv-9\n--model\nopus\n')
  })

  it('refuses a live session (4), a conversation live elsewhere (4), nothing to resume (1), no such session (3)', async () => {
    const live = await echoer('conv-2')
    expect((await sb.pk(['resume', live.id], {env})).code).toBe(4)
    expect((await sb.pk(['stop', live.id])).code).toBe(0)
    await echoer('conv-2')
    const taken = await sb.pk(['resume', live.id], {env})
    expect(taken.code).toBe(4)
    expect(taken.stderr).toMatch(/conversation conv-2 is already live/)
    const plain = await sb.bgRow(['--', 'sleep', '100000'])
    await sb.pk(['stop', plain.id])
    const nothing = await sb.pk(['resume', plain.id], {env})
    expect(nothing.code).toBe(1)
    expect(nothing.stderr).toMatch(/nothing to resume/)
    expect((await sb.pk(['resume', 'abcdef12'], {env})).code).toBe(3)
  })
})

describe('pk restore', () => {
  it('--dry-run on a terminal prints a recorded working directory holding an OSC 52 clipboard write as text, its ESC replaced', async () => {
    const osc = '\u001b]52;c;cGsgd2FzIGhlcmU=\u0007'
    const cwd = join(sb.root, `dir${osc}x`)
    mkdirSync(cwd)
    const row = await sb.bgRow(['echoer', '--cwd', cwd], {env: {...env, CONV: 'conv-osc'}})
    await waitFor('conversation reported', async () => (await rowOf(row.id))?.resume !== null)
    sb.tmux(sb.pkSocket, 'kill-server')
    await waitFor('server gone', () => sb.tmuxTry(sb.pkSocket, 'list-sessions').code !== 0)
    // On a terminal (script(1) gives pk one), where an escape sequence would act.
    const command = [process.execPath, join(ROOT, 'bin', 'run.js'), 'restore', '--dry-run'].map((w) => `'${w}'`).join(' ')
    const shown = spawnSync('script', ['-qec', command, '/dev/null'], {env: {...sb.env, ...env}, encoding: 'utf8'})
    expect(shown.status, shown.stderr).toBe(0)
    expect(shown.stdout).toContain(row.id)
    expect(shown.stdout).toContain('?]52;c;cGsgd2FzIGhlcmU=')
    expect(shown.stdout).not.toContain('\u001b]52')
  })

  it('after a server dies, and after a reboot: resumes what was live, once; lists what cannot be resumed', async () => {
    const a = await echoer('conv-a')
    const b = await echoer('conv-b')
    const noConversation = await echoer(null)
    const stopped = await echoer('conv-s')
    await sb.pk(['stop', stopped.id])
    expect((await sb.pk(['restore'])).code).toBe(2)
    sb.tmux(sb.pkSocket, 'kill-server')
    await waitFor('server gone', () => sb.tmuxTry(sb.pkSocket, 'list-sessions').code !== 0)

    const doctor = JSON.parse((await sb.pk(['doctor', '--json'], {env})).stdout) as {checks: {id: string; message: string}[]}
    expect(doctor.checks.find((c) => c.id === 'state-dir')!.message).toMatch(/2 session\(s\) can be resumed.*pk restore/)
    const dry = JSON.parse((await sb.pk(['restore', '--dry-run', '--json'], {env})).stdout) as {restored: {from: string}[]; skipped: {id: string}[]}
    expect(dry.restored.map((r) => r.from).sort()).toEqual([a.id, b.id].sort())
    expect(dry.skipped.map((s) => s.id)).toEqual([noConversation.id])
    const real = await sb.pk(['restore', '--yes', '--json'], {env})
    expect(real.code, real.stderr).toBe(0)
    const restored = (JSON.parse(real.stdout) as {restored: {from: string; id: string}[]}).restored
    expect(restored.map((r) => r.from).sort()).toEqual([a.id, b.id].sort())
    for (const {id} of restored) expect(await rowOf(id)).toMatchObject({verified: true, agent: 'echoer'})
    expect(JSON.parse((await sb.pk(['restore', '--yes', '--json'], {env})).stdout).restored).toEqual([])

    // A simulated reboot: the live sessions' records now say another boot.
    for (const {id} of restored) {
      const file = join(sb.stateDir, 'sessions', `${id}.json`)
      const record = JSON.parse(readFileSync(file, 'utf8'))
      writeFileSync(file, JSON.stringify({...record, identity: {...record.identity, bootId: 'an-earlier-boot'}}))
    }
    // (an id is derived from the identity, boot included: the edited records have new ids)
    const afterBoot = JSON.parse((await sb.pk(['restore', '--dry-run', '--json'], {env})).stdout) as {restored: {from: string}[]}
    const files = await Promise.all(afterBoot.restored.map(async (r) => (await rowOf(r.from))!.record))
    expect(files.sort()).toEqual(restored.map(({id}) => join(sb.stateDir, 'sessions', `${id}.json`)).sort())
  }, 60_000)
})

describe('progress a person sees at a terminal', () => {
  const pkCommand = (...args: string[]) => [process.execPath, join(import.meta.dirname, '..', '..', 'bin', 'run.js'), ...args].map(shellQuote).join(' ')
  /** Run pk in a real terminal (a pane of a server of its own): its exit status and what the screen shows. */
  async function inTerminal(args: string[]): Promise<{status: string; screen: string}> {
    const term = sb.socket('term')
    const status = join(sb.root, `status-${args[0]}`)
    const words = Object.entries(env).map(([k, v]) => `${k}=${v}`)
    sb.tmux(
      term,
      'new-session',
      '-d',
      '-x',
      '150',
      '-y',
      '40',
      '-s',
      args[0]!,
      '--',
      'env',
      '-u',
      'TMUX',
      '-u',
      'TMUX_PANE',
      ...words,
      'sh',
      '-c',
      `${pkCommand(...args)}; echo $? > ${shellQuote(status)}; exec sleep 1000`,
    )
    const code = await waitFor(`pk ${args.join(' ')} to end`, () => (existsSync(status) ? readFileSync(status, 'utf8') : null), 60_000)
    return {status: code, screen: sb.tmux(term, 'capture-pane', '-p', '-t', args[0]!, '-S', '-100')}
  }

  it('pk restore ticks off each resume as it goes, then prints its summary; pk prune each removal', async () => {
    const a = await echoer('conv-a')
    const b = await echoer('conv-b')
    sb.tmux(sb.pkSocket, 'kill-server')
    await waitFor('server gone', () => sb.tmuxTry(sb.pkSocket, 'list-sessions').code !== 0)
    const restore = await inTerminal(['restore', '--yes'])
    expect(restore.status, restore.screen).toBe('0\n')
    for (const row of [a, b]) expect(restore.screen, restore.screen).toMatch(new RegExp(`resume ${row.id} \\(echoer work\\): now [0-9a-f]{8}`))
    expect(restore.screen).toMatch(new RegExp(`resumed ${a.id} as [0-9a-f]{8}`))

    const done = await sb.bgRow(['--', 'sleep', '100000'])
    expect((await sb.pk(['stop', done.id])).code).toBe(0)
    const prune = await inTerminal(['prune', '--yes'])
    expect(prune.status).toBe('0\n')
    expect(prune.screen).toMatch(new RegExp(`remove record ${done.id}`))
    expect(await rowOf(done.id)).toBeUndefined()
    // A script sees no task list: the same run's output holds only the summary.
    const again = await sb.pk(['prune', '--yes'])
    expect(again.stdout).not.toMatch(/remove record/)
  }, 120_000)
})

describe('pk send', () => {
  it('types text exactly: quotes, ;, #{...}, $(...) and several lines; refuses control characters and exited sessions', async () => {
    const out = join(sb.root, 'typed')
    const row = await sb.bgRow(['--', 'sh', '-c', 'while IFS= read -r line; do printf "%s\\n" "$line" >> "$0"; done', out])
    const text = `it's "quoted"; #{pane_id} $(whoami) \`x\` %5 \\n`
    expect((await sb.pk(['send', row.id, text])).code).toBe(0)
    const lines = 'first line\nsecond; #{session_name}\n'
    expect((await sb.pk(['send', row.id, '--stdin'], {input: lines})).code).toBe(0)
    await waitFor('typed', () => existsSync(out) && readFileSync(out, 'utf8').split('\n').length >= 4)
    expect(readFileSync(out, 'utf8')).toBe(`${text}\nfirst line\nsecond; #{session_name}\n`)
    const esc = await sb.pk(['send', row.id, 'bad\u001b[201~'])
    expect(esc.code).toBe(2)
    expect(esc.stderr).toMatch(/control character/)
    await sb.pk(['stop', row.id])
    expect((await sb.pk(['send', row.id, 'late'])).code).toBe(3)
  })
})

describe('pk logs, and sessions that die after they started', () => {
  it("shows an exited session's dead pane, its exit status, its output; attach goes there", async () => {
    const row = await sb.bgRow(['--', 'sh', '-c', 'echo "step one"; sleep 1; echo "it broke" >&2; exit 3'])
    const exited = await waitFor(
      'exited',
      async () => {
        const now = await rowOf(row.id)
        return now?.state === 'exited' && now.exitStatus !== null ? now : null
      },
      10_000,
    )
    expect(exited).toMatchObject({exitStatus: 3, exitReason: 'gone', tmux: {pane: row.tmux!.pane}})
    // Listed by default, until pruned.
    expect((await ls(false)).map((s) => s.id)).toContain(row.id)
    const logs = await sb.pk(['logs', row.id, '--json'])
    expect(logs.code, logs.stderr).toBe(0)
    const json = JSON.parse(logs.stdout) as {dead: boolean; lines: string[]}
    expect(json.dead).toBe(true)
    expect(json.lines.join('\n')).toMatch(/step one[\s\S]*it broke/)
    expect((await sb.pk(['logs', row.id, '--lines', '1'])).stdout).not.toMatch(/step one/)
    const attach = await sb.pk(['attach', row.id, '--print'])
    expect(attach.code, attach.stderr).toBe(0)
    expect(attach.stdout).toContain(row.tmux!.pane)
  })

  it('a job that ends with 0 after it started keeps its output and status until pruned; --lines counts its lines, not blank rows', async () => {
    const clean = await sb.bgRow(['--', 'sh', '-c', 'seq 1 30; sleep 1; exit 0'])
    const failed = await sb.bgRow(['--', 'sh', '-c', 'seq 101 130; sleep 1; exit 5'])
    for (const [row, status] of [
      [clean, 0],
      [failed, 5],
    ] as const) {
      await waitFor(`exited ${status}`, async () => ((await rowOf(row.id))?.exitStatus === status ? true : null), 10_000)
      const logs = await sb.pk(['logs', row.id, '--lines', '20'])
      expect(logs.code, logs.stderr).toBe(0)
      const base = status === 0 ? 0 : 100
      expect(logs.stdout).toBe(Array.from({length: 20}, (_, i) => `${base + 11 + i}\n`).join(''))
      expect(JSON.parse((await sb.pk(['logs', row.id, '--json', '--lines', '2'])).stdout)).toMatchObject({dead: true, lines: [`${base + 29}`, `${base + 30}`]})
    }
    expect((await sb.pk(['prune', '--yes'])).code).toBe(0)
    expect((await sb.pk(['logs', clean.id])).code).toBe(3)
  }, 60_000)

  it('--follow prints the last lines of a job that ends cleanly', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = await sb.bgRow(['--', 'sh', '-c', 'echo first; sleep 1.5; echo second; echo "the last line"; exit 0'])
      const result = await sb.pk(['logs', row.id, '--follow'])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toBe('first\nsecond\nthe last line\n')
    }
  }, 60_000)

  it('--follow prints new lines until the session ends', async () => {
    const row = await sb.bgRow(['--', 'sh', '-c', 'for i in 1 2 3 4 5; do echo "line $i"; sleep 0.4; done; exit 4'])
    const result = await sb.pk(['logs', row.id, '--follow'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.match(/line \d/g)).toEqual(['line 1', 'line 2', 'line 3', 'line 4', 'line 5'])
  })
})

describe('names are labels', () => {
  it('never fails for lack of a session name', async () => {
    const ids = new Set<string>()
    for (let i = 0; i < 8; i++) ids.add((await sb.bgRow(['--name', 'same', '--', 'sleep', '100000'])).id)
    expect(ids.size).toBe(8)
    const names = sb.tmux(sb.pkSocket, 'list-sessions', '-F', '#{session_name}').trim().split('\n')
    expect(new Set(names).size).toBe(8)
    // Eight pk bg one after another: beside a CPU hog each took up to 8 s.
  }, 240_000)
})
