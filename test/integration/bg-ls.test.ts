import {chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {SessionRow} from '../../src/lib/model/contract.js'
import {Sandbox, waitFor, LsJson} from '../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

async function bg(args: string[], opts = {}): Promise<string> {
  const result = await sb.pk(['bg', ...args], opts)
  if (result.code !== 0) throw new Error(`pk bg failed (${result.code}): ${result.stderr}`)
  return result.stdout.trim()
}

describe('pk bg and pk ls', () => {
  it('starts two sessions on the dedicated server and lists both, as text and JSON', async () => {
    const a = await bg(['--', 'sleep', '1000'])
    const b = await bg(['--name', 'second', '--', 'bash'])
    expect(a).toMatch(/^[0-9a-f]{8}$/)
    expect(b).not.toBe(a)

    const text = await sb.pk(['ls'])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^ID\s+AGENT\s+STATE\s+AGE\s+CWD\s+TMUX/)
    expect(text.stdout).toContain(a)
    expect(text.stdout).toContain(b)
    expect(text.stdout).not.toContain('\u001B[') // not a TTY: no colour

    const json = await sb.pkJson<LsJson>(['ls'])
    expect(json.schema).toBe(1)
    expect(json.problems).toEqual([])
    expect(json.sessions.map((s) => s.id).sort()).toEqual([a, b].sort())
    const row = json.sessions.find((s) => s.id === a)!
    for (const key of ['id', 'agent', 'state', 'stateSource', 'attention', 'verified', 'pid', 'cwd', 'command', 'startedAt', 'attached', 'tmux', 'resume']) {
      expect(row).toHaveProperty(key)
    }
    expect(row).toMatchObject({agent: null, verified: true, attached: false, command: ['sleep', '1000'], cwd: sb.root, state: 'unknown', stateSource: 'none'})
    expect(row.tmux).toMatchObject({socket: sb.pkSocket, pane: expect.stringMatching(/^%\d+$/)})
    expect(Date.parse(row.startedAt!)).toBeGreaterThan(Date.now() - 60_000)
    // The pane process is the command itself (no wrapper shell in between).
    expect(sb.tmux(sb.pkSocket, 'display-message', '-p', '-t', row.tmux!.pane, '#{pane_pid}').trim()).toBe(String(row.pid))
    expect(json.sessions.find((s) => s.id === b)!.label).toBe('second')
  })

  it('prints the whole row with --json, and the id survives pk restarts', async () => {
    const result = await sb.pk(['bg', '--json', '--', 'sleep', '1000'])
    expect(result.code).toBe(0)
    const out = JSON.parse(result.stdout) as {schema: number; session: SessionRow}
    expect(out.schema).toBe(1)
    expect(out.session).toMatchObject({verified: true, command: ['sleep', '1000']})
    const again = await sb.pkJson<LsJson>(['ls'])
    expect(again.sessions[0]!.id).toBe(out.session.id)
  })

  it('delivers argv literally: spaces, quotes, newlines, $(...), globs and tmux separators', async () => {
    const out = join(sb.root, 'argv.txt')
    const args = ['two words', `it's "quoted"`, 'new\nline', '$(touch pwned)', '`id`', '*', ';', 'x;', '\\;', '#{pane_id}', '', '-d', '--']
    await bg(['--', 'sh', '-c', 'printf "[%s]\\n" "$@" > "$0.tmp" && mv "$0.tmp" "$0"; exec sleep 1000', out, ...args])
    await waitFor('argv file', () => existsSync(out))
    expect(readFileSync(out, 'utf8')).toBe(args.map((a) => `[${a}]\n`).join(''))
    expect(existsSync(join(sb.root, 'pwned'))).toBe(false)
  })

  it("gives the pane the caller's environment even when the server was started by someone else", async () => {
    // Start the server first with a different environment, as a long-running server would have.
    sb.tmux(sb.pkSocket, 'new-session', '-d', '-s', 'older', '--', 'sleep', '1000')
    const out = join(sb.root, 'env.txt')
    await bg(['--', 'sh', '-c', 'env > "$0.tmp" && mv "$0.tmp" "$0"; exec sleep 1000', out], {
      env: {PK_TEST_KEY: 'secret;value', LANG: 'C.UTF-8', PATH: `/opt/agent-bin:${process.env.PATH}`},
    })
    await waitFor('env file', () => existsSync(out))
    const env = readFileSync(out, 'utf8')
    expect(env).toContain('PK_TEST_KEY=secret;value\n')
    expect(env).toContain(`HOME=${sb.home}\n`)
    expect(env).toContain('LANG=C.UTF-8\n')
    expect(env).toMatch(/^PATH=\/opt\/agent-bin:/m)
    expect(env).toMatch(/^TERM=/m)
  })

  it('starts in --cwd and refuses one that does not exist', async () => {
    const dir = join(sb.root, 'work dir')
    mkdirSync(dir)
    const id = await bg(['--cwd', dir, '--', 'sleep', '1000'])
    const json = await sb.pkJson<LsJson>(['ls'])
    expect(json.sessions.find((s) => s.id === id)!.cwd).toBe(dir)
    const bad = await sb.pk(['bg', '--cwd', join(sb.root, 'missing'), '--', 'sleep', '1'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/does not exist/)
  })

  it('keeps odd labels as labels and makes unique, safe tmux names', async () => {
    const labels = ['same', 'same', 'dots.and:colons', 'quote"s and $(x)', 'new\nline;', '日本語']
    for (const label of labels) await bg(['--name', label, '--', 'sleep', '1000'])
    const json = await sb.pkJson<LsJson>(['ls'])
    expect(json.sessions.map((s) => s.label).sort()).toEqual([...labels].sort())
    const names = json.sessions.map((s) => s.tmux!.session)
    expect(new Set(names).size).toBe(labels.length)
    for (const name of names) expect(name).toMatch(/^[\w-]+$/u)
    const text = await sb.pk(['ls'])
    expect(text.stdout).not.toMatch(/new\nline/)
  })

  it('rejects an unknown preset with exit 2 and the list of presets', async () => {
    const result = await sb.pk(['bg', 'nope'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/pi, claude, codex, gemini, opencode, aider, shell/)
    const none = await sb.pk(['bg'])
    expect(none.code).toBe(2)
  })

  it('reports a command that dies at once, with its status and output, and leaves nothing behind', async () => {
    // Under heavy load tmux 3.3 now and then drops the last output of a pane respawned a moment ago (the
    // exit status always arrives), so the tail is checked over up to three tries; each must exit 1 with
    // the status and leave nothing behind.
    let sawOutput = false
    for (let attempt = 0; attempt < 3 && !sawOutput; attempt++) {
      const result = await sb.pk(['bg', '--', 'sh', '-c', 'echo "it broke" >&2; exit 7'])
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/exited at once with status 7/)
      sawOutput = /it broke/.test(result.stderr)
    }
    expect(sawOutput).toBe(true)
    // A program that is not there: said by pk, before anything starts (issue 63, item 6).
    const missing = await sb.pk(['bg', '--', 'no-such-agent-binary'])
    expect([missing.code, missing.stderr]).toEqual([1, 'pk: no-such-agent-binary is not installed (not on your PATH); nothing was started\n'])
    const preset = await sb.pk(['bg', 'claude'], {env: {PATH: '/usr/bin:/bin'}})
    expect([preset.code, preset.stderr]).toEqual([
      1,
      'pk: claude is not installed (not on your PATH): Claude Code is needed for pk bg claude; nothing was started. Install it with: npm install -g @anthropic-ai/claude-code\n',
    ])
    expect(preset.stderr).not.toMatch(/pk-gate|exec:/)
    expect(readdirSync(join(sb.stateDir, 'sessions'))).toEqual([])
    expect(sb.tmuxTry(sb.pkSocket, 'list-sessions').stdout).toBe('')
    expect((await sb.pkJson<LsJson>(['ls', '--all'])).sessions).toEqual([])
  })

  it('lists agents started by hand in any pane, and plain panes only with --all', async () => {
    const bin = join(sb.root, 'bin')
    mkdirSync(bin)
    // Installed like an npm agent: a node script on PATH, run by the shell in the pane.
    writeFileSync(join(bin, 'claude'), '#!/usr/bin/env node\nsetInterval(() => {}, 1000)\n', {mode: 0o755})
    const other = sb.socket('default')
    sb.tmux(other, 'new-session', '-d', '-s', 'hand', '--', 'sh', '-c', `${bin}/claude; true`)
    sb.tmux(other, 'new-session', '-d', '-s', 'plain', '--', 'sleep', '1000')
    sb.tmux(other, 'new-session', '-d', '-s', 'work', '--', 'sh', '-c', 'vim notes/claude; sleep 1000')
    const detected = await waitFor('detected agent', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.kind === 'detected'))
    expect(detected).toMatchObject({agent: 'claude', verified: true, tmux: {socket: other, session: 'hand'}})
    const all = await sb.pkJson<LsJson>(['ls', '--all'])
    expect(
      all.sessions
        .filter((s) => s.kind === 'pane')
        .map((s) => s.tmux!.session)
        .sort(),
    ).toEqual(['plain', 'work'])
  })
})

describe('tmux missing, not running, stale', () => {
  it('ls with no server running lists nothing and exits 0', async () => {
    const result = await sb.pkJson<LsJson>(['ls', '--all'])
    expect(result).toEqual({$schema: 'urn:pk:ls', schema: 1, sessions: [], problems: []})
  })

  it('bg without tmux on PATH says so (exit 1); ls reports it as a problem', async () => {
    const bg1 = await sb.pk(['bg', '--', 'sleep', '1'], {env: {PATH: '/nonexistent'}})
    expect(bg1.code).toBe(1)
    expect(bg1.stderr).toMatch(/tmux is not installed or not on PATH/)
    await bg(['--', 'sleep', '1000'])
    const ls = await sb.pk(['ls', '--json'], {env: {PATH: '/nonexistent'}})
    expect(ls.code).toBe(0)
    expect(JSON.parse(ls.stdout).problems).toContainEqual(expect.objectContaining({code: 'tmux-missing'}))
  })

  it('a killed server leaves a stale socket: records exited, nothing else to say in ls', async () => {
    const id = await bg(['--', 'sleep', '1000'])
    const serverPid = Number(sb.tmux(sb.pkSocket, 'display-message', '-p', '#{pid}').trim())
    process.kill(serverPid, 'SIGKILL')
    await waitFor('server gone', () => sb.tmuxTry(sb.pkSocket, 'list-sessions').code !== 0)
    const json = await sb.pkJson<LsJson>(['ls', '--all'])
    expect(json.problems).toEqual([])
    expect(json.sessions.find((s) => s.id === id)).toMatchObject({state: 'exited', tmux: null})
  })
})

describe('state directory and records', () => {
  it('refuses an unsafe state directory with exit 5 and the fix', async () => {
    await bg(['--', 'sleep', '1000'])
    chmodSync(sb.stateDir, 0o777)
    for (const args of [['ls'], ['bg', '--', 'sleep', '1'], ['attach', 'abc']]) {
      const result = await sb.pk(args)
      expect(result.code).toBe(5)
      expect(result.stderr).toMatch(/chmod 700/)
    }
  })

  it('refuses a symlinked state directory and one owned by another user', async () => {
    const real = join(sb.root, 'real-state')
    mkdirSync(real, {mode: 0o700})
    const link = join(sb.root, 'link-state')
    symlinkSync(real, link)
    const viaLink = await sb.pk(['bg', '--', 'sleep', '1'], {env: {PK_STATE_DIR: link}})
    expect(viaLink.code).toBe(5)
    expect(viaLink.stderr).toMatch(/symbolic link/)
    if (process.getuid!() === 0) {
      const foreign = join(sb.root, 'foreign-state')
      mkdirSync(foreign, {mode: 0o700})
      const {chownSync} = await import('node:fs')
      chownSync(foreign, 65534, 65534)
      const result = await sb.pk(['ls'], {env: {PK_STATE_DIR: foreign}})
      expect(result.code).toBe(5)
      expect(result.stderr).toMatch(/owned by uid 65534/)
    }
  })

  it('creates the state directory 0700 under XDG_STATE_HOME', async () => {
    const xdg = join(sb.root, 'xdg')
    await sb.pk(['bg', '--', 'sleep', '1000'], {env: {PK_STATE_DIR: undefined, XDG_STATE_HOME: xdg}})
    const {statSync} = await import('node:fs')
    expect(statSync(join(xdg, 'pk')).mode & 0o777).toBe(0o700)
  })

  it('skips corrupt, truncated, unknown-version and symlinked records, reports them, and leaves them alone', async () => {
    const id = await bg(['--', 'sleep', '1000'])
    const dir = join(sb.stateDir, 'sessions')
    const good = readFileSync(join(dir, `${id}.json`), 'utf8')
    const files: Record<string, string> = {
      'corrupt.json': '{"version": 1, "identity": [}',
      'truncated.json': good.slice(0, 40),
      'future.json': JSON.stringify({...JSON.parse(good), version: 99}),
      'empty.json': '',
    }
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
    writeFileSync(join(sb.root, 'outside.json'), good)
    symlinkSync(join(sb.root, 'outside.json'), join(dir, 'linked.json'))

    const result = await sb.pk(['ls', '--json'])
    expect(result.code).toBe(0)
    const json = JSON.parse(result.stdout) as LsJson
    expect(json.sessions.map((s) => s.id)).toEqual([id])
    const codes = Object.fromEntries(json.problems.map((p) => [String(p.file).split('/').at(-1), p.code]))
    expect(codes).toEqual({
      'corrupt.json': 'corrupt-record',
      'empty.json': 'corrupt-record',
      'future.json': 'unknown-version',
      'linked.json': 'symlinked-record',
      'truncated.json': 'corrupt-record',
    })
    for (const [name, text] of Object.entries(files)) expect(readFileSync(join(dir, name), 'utf8')).toBe(text)
    const human = await sb.pk(['ls'])
    expect(human.stderr).toMatch(/corrupt-record/)
  })
})
