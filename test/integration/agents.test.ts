import {execFileSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {SessionRow} from '../../src/lib/model/contract.js'
import {Sandbox, waitFor, LsJson} from '../helpers/sandbox.js'
import {spooled as spooledIn} from '../helpers/reporting-session.js'
import {installStandins} from '../helpers/standins.js'

let sb: Sandbox
let bin: string
let env: NodeJS.ProcessEnv
beforeEach(() => {
  sb = new Sandbox()
  bin = installStandins(sb.root)
  env = {PATH: `${bin}:${process.env.PATH}`, STANDIN_OUT: sb.root}
})
afterEach(() => sb.cleanup())

async function bg(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
  const result = await sb.pk(['bg', ...args], {env: {...env, ...extraEnv}})
  expect(result.code, result.stderr).toBe(0)
  return result.stdout.trim()
}

async function sessionWhen(id: string, test: (row: SessionRow) => boolean): Promise<SessionRow> {
  return waitFor(
    `session ${id}`,
    async () => {
      const row = (await sb.pkJson<LsJson>(['ls', '--all'], {env})).sessions.find((s) => s.id === id)
      return row && test(row) ? row : null
    },
    15_000,
  )
}

const claude = (event: string, session = 'conv-claude') => JSON.stringify({hook_event_name: event, session_id: session, cwd: '/'})

describe('pk hook through a real process tree', () => {
  it('Claude Code style (a shell, JSON on stdin): waiting from the Notification hook, with resume', async () => {
    const id = await bg(['claude', '--', claude('SessionStart'), claude('UserPromptSubmit'), claude('Notification')])
    const row = await sessionWhen(id, (r) => r.state === 'waiting')
    expect(row).toMatchObject({agent: 'claude', stateSource: 'hook', attention: true, resume: ['claude', '--resume', 'conv-claude']})
    const text = await sb.pk(['ls'], {env})
    expect(text.stdout).toMatch(new RegExp(`${id}\\s+claude\\s+! waiting`))
  })

  it('Codex notify style (JSON as the last argument): a finished turn is idle and asks for attention', async () => {
    const id = await bg(['codex', '--', JSON.stringify({type: 'agent-turn-complete', 'thread-id': 'th-1', 'turn-id': '7'})])
    const row = await sessionWhen(id, (r) => r.stateSource === 'hook')
    expect(row).toMatchObject({state: 'idle', attention: true, resume: ['codex', 'resume', 'th-1']})
  })

  it('Pi extension style: working, then the turn ends', async () => {
    const id = await bg(['pi', '--', JSON.stringify({event: 'agent_start', sessionId: 'pi-1'})])
    expect(await sessionWhen(id, (r) => r.stateSource === 'hook')).toMatchObject({state: 'working', attention: false})
    // The writer records it: \`pk notify --fold\`, which the hook started, or this one.
    await sb.pk(['notify', '--fold'], {env})
    const record = readdirSync(join(sb.stateDir, 'sessions'))[0]!
    expect(JSON.parse(readFileSync(join(sb.stateDir, 'sessions', record), 'utf8')).conversationId).toBe('pi-1')
  })

  it('an agent started by hand in tmux becomes a recorded session when its hook first fires', async () => {
    const other = sb.socket('default')
    sb.tmux(
      other,
      'new-session',
      '-d',
      '-s',
      'mine',
      '-e',
      `PATH=${env.PATH}`,
      '-e',
      `PK_STATE_DIR=${sb.stateDir}`,
      '-e',
      `TMUX_TMPDIR=${sb.tmuxTmpdir}`,
      '--',
      'bash',
      '--norc',
      '--noprofile',
    )
    sb.tmux(other, 'send-keys', '-t', 'mine', `${bin}/claude '${claude('PermissionRequest', 'by-hand')}'`, 'Enter')
    const row = await waitFor(
      'recorded by hook',
      async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.kind === 'recorded' && s.stateSource === 'hook'),
      15_000,
    )
    expect(row).toMatchObject({
      agent: 'claude',
      state: 'waiting',
      verified: true,
      tmux: {socket: other, session: 'mine'},
      resume: ['claude', '--resume', 'by-hand'],
    })
    // The record names the agent process (the stand-in), not the shell the pane runs.
    const panePid = Number(sb.tmux(other, 'display-message', '-p', '-t', 'mine', '#{pane_pid}').trim())
    expect(row.pid).not.toBe(panePid)
    expect(readFileSync(`/proc/${row.pid}/cmdline`, 'utf8')).toContain('claude')
  })

  it('a hook whose ancestry reaches no pane records nothing, and never fails', async () => {
    const outside = await sb.pk(['hook', 'claude', '--json'], {input: claude('Notification')})
    expect(outside.code).toBe(0)
    expect(JSON.parse(outside.stdout)).toMatchObject({spooled: true, state: 'waiting'})
    // The writer finds no session in its ancestry: nobody's, logged, and gone from the spool.
    await sb.pk(['notify', '--fold'])
    expect(existsSync(join(sb.stateDir, 'sessions')) ? readdirSync(join(sb.stateDir, 'sessions')) : []).toEqual([])
    expect(spooledIn(sb)).toEqual([])
    expect(readFileSync(join(sb.stateDir, 'hook.log'), 'utf8')).toMatch(/claude event .*: nobody's \(no session in the sender's ancestry\)/)

    mkdirSync(sb.stateDir, {recursive: true, mode: 0o700})
    const broken = await sb.pk(['hook', 'claude'], {input: 'this is not json'})
    expect(broken.code).toBe(0)
    expect(broken.stdout).toBe('')
    expect(readFileSync(join(sb.stateDir, 'hook.log'), 'utf8')).toMatch(/claude: claude hook payload is not a JSON object/)
    const ignored = await sb.pk(['hook', 'claude', '--json'], {input: claude('SubagentStop')})
    expect(JSON.parse(ignored.stdout)).toMatchObject({spooled: false, reason: 'event carries no state'})
  })
})

describe('pane rules in pk ls', () => {
  it('reads a working agent off its screen when no hook reported, with one capture call', async () => {
    // A stand-in whose screen says what Claude Code's says while it works.
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\nprintf "✻ Thinking…\\n\\n  esc to interrupt\\n"\nexec sleep 1000\n', {mode: 0o755})
    const id = await bg(['claude'])
    const row = await sessionWhen(id, (r) => r.stateSource === 'pane')
    expect(row).toMatchObject({state: 'working', attention: false})
    const plain = await bg(['--', 'sleep', '1000'])
    expect((await sessionWhen(plain, () => true)).stateSource).toBe('none')
  })
})

describe('status on a crowded server', () => {
  it('reads each agent off its own screen, with pane ids past %10 and shells in between', async () => {
    // What Claude Code's screen says in each state (test/fixtures/panes has the real captures).
    const screens: Record<string, string> = {
      working: '✻ Thinking…\\n\\n  esc to interrupt\\n',
      waiting: ' Do you want to proceed?\\n ❯ 1. Yes\\n   2. No\\n',
      idle: '╭────╮\\n│ ❯  │\\n╰────╯\\n  ? for shortcuts\\n',
    }
    writeFileSync(
      join(bin, 'claude'),
      `#!/bin/sh\ncase "$1" in\n${Object.entries(screens)
        .map(([state, text]) => `  ${state}) printf '${text}' ;;`)
        .join('\n')}\nesac\nexec sleep 1000\n`,
      {mode: 0o755},
    )
    const want = new Map<string, string>()
    const states = ['working', 'waiting', 'idle']
    // Started four at a time (one after another, 18 of them took most of a minute on a loaded machine), a
    // shell pane beside every other agent, so agents and plain panes interleave.
    const starts = Array.from({length: 12}, (_, i) => async () => {
      if (i % 2 === 1) await bg(['--', 'sleep', '1000'])
      const state = states[i % 3]!
      want.set(await bg(['claude', '--', state]), state)
    })
    for (let i = 0; i < starts.length; i += 4) await Promise.all(starts.slice(i, i + 4).map((start) => start()))
    const json = await waitFor(
      'every agent read off its screen',
      async () => {
        const ls = await sb.pkJson<LsJson>(['ls'])
        return ls.sessions.filter((s) => want.has(s.id) && s.stateSource === 'pane').length === want.size ? ls : null
      },
      30_000,
    )
    const panes = json.sessions.map((s) => Number(s.tmux!.pane.slice(1)))
    expect(Math.max(...panes)).toBeGreaterThan(10)
    for (const row of json.sessions.filter((s) => want.has(s.id))) expect(`${row.tmux!.pane} ${row.state}`).toBe(`${row.tmux!.pane} ${want.get(row.id)}`)
  }, 150_000)
})

describe('pk setup on real files', () => {
  it('claude: idempotent, backs up, keeps foreign settings; --print changes nothing', async () => {
    const file = join(sb.home, '.claude', 'settings.json')
    mkdirSync(join(sb.home, '.claude'))
    const mine = {theme: 'dark', hooks: {Stop: [{hooks: [{type: 'command', command: 'notify-send done'}]}]}}
    writeFileSync(file, JSON.stringify(mine), {mode: 0o644})

    const printed = await sb.pk(['setup', 'claude', '--print'])
    expect(printed.stdout).toMatch(/pk-hook\.sh/)
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(mine))

    const first = await sb.pk(['setup', 'claude'])
    expect(first.code, first.stderr).toBe(0)
    const backups = readdirSync(join(sb.home, '.claude')).filter((f) => f.includes('pk-backup'))
    expect(backups).toHaveLength(1)
    expect(readFileSync(join(sb.home, '.claude', backups[0]!), 'utf8')).toBe(JSON.stringify(mine))
    const after = JSON.parse(readFileSync(file, 'utf8'))
    expect(after.theme).toBe('dark')
    expect(after.hooks.Stop[0]).toEqual(mine.hooks.Stop[0])
    expect(after.hooks.Notification[0].hooks[0]).toMatchObject({
      command: expect.stringMatching(/assets\/pk-hook\.sh$/),
      args: ['claude', process.execPath],
      async: true,
    })
    const snapshot = readFileSync(file, 'utf8')

    const second = await sb.pk(['setup', 'claude'])
    expect(second.stdout).toMatch(/already installed/)
    expect(readFileSync(file, 'utf8')).toBe(snapshot)
    expect(readdirSync(join(sb.home, '.claude')).filter((f) => f.includes('pk-backup'))).toHaveLength(1)
  })

  it('several agents at once: each planned before any is written (one refused: none written), each said', async () => {
    const bogus = await sb.pk(['setup', 'claude', 'nosuchagent'])
    expect(bogus.code).toBe(2)
    expect(existsSync(join(sb.home, '.claude', 'settings.json'))).toBe(false)
    expect((await sb.pk(['setup', 'claude', 'autostart'])).code).toBe(2)

    const both = await sb.pk(['setup', 'claude', 'gemini'])
    expect(both.code, both.stderr).toBe(0)
    expect(both.stdout).toMatch(/^claude: installed .*\ngemini: installed .*\n$/)
    for (const file of [join(sb.home, '.claude', 'settings.json'), join(sb.home, '.gemini', 'settings.json')])
      expect(readFileSync(file, 'utf8')).toMatch(/pk-hook\.sh/)

    // Codex's notify is the user's own: refused (exit 1) while planning, so pi is not written either.
    mkdirSync(join(sb.home, '.codex'))
    writeFileSync(join(sb.home, '.codex', 'config.toml'), 'notify = ["mine"]\n')
    const mixed = await sb.pk(['setup', 'codex', 'pi'])
    expect(mixed.code).toBe(1)
    expect(mixed.stderr).toMatch(/already has notify/)
    expect(mixed.stdout).toBe('')
    expect(existsSync(join(sb.home, '.pi'))).toBe(false)
  })

  it('codex: adds notify, keeps the rest; refuses to replace a notify of your own', async () => {
    const file = join(sb.home, '.codex', 'config.toml')
    mkdirSync(join(sb.home, '.codex'))
    writeFileSync(file, '# my settings\nmodel = "o3"\n\n[profiles.fast]\nmodel = "o4-mini"\n')
    expect((await sb.pk(['setup', 'codex'])).code).toBe(0)
    const text = readFileSync(file, 'utf8')
    expect(text).toMatch(/^# my settings\nmodel = "o3"\n\nnotify = \["[^"]*pk-hook\.sh","codex","[^"]*"\]\n\n\[profiles\.fast\]\nmodel = "o4-mini"\n$/)
    expect((await sb.pk(['setup', 'codex'])).stdout).toMatch(/already installed/)
    expect(readFileSync(file, 'utf8')).toBe(text)

    writeFileSync(file, 'notify = ["terminal-notifier", "-title", "codex"]\n')
    const refused = await sb.pk(['setup', 'codex'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/already has notify/)
    expect(readFileSync(file, 'utf8')).toBe('notify = ["terminal-notifier", "-title", "codex"]\n')
  })

  it('pi: places the extension, idempotently; unknown agents are a usage error', async () => {
    expect((await sb.pk(['setup', 'pi'])).code).toBe(0)
    const file = join(sb.home, '.pi', 'agent', 'extensions', 'pk.js')
    const text = readFileSync(file, 'utf8')
    expect(text).toContain("registerCommand('bg'")
    expect(text).toMatch(/const PK = \[".*run\.js"\]/)
    expect((await sb.pk(['setup', 'pi'])).stdout).toMatch(/already installed/)
    expect((await sb.pk(['setup', 'aider'])).code).toBe(2)
  })
})

describe('pk bg --handoff (what /bg runs)', () => {
  it('resumes the conversation in a new session, checks it, then ends the caller', async () => {
    const id = await bg(['pi'], {STANDIN_HANDOFF: '--conversation conv-7 --agent-name pi'})
    const result = await waitFor('handoff', () => readHandoff(), 15_000)
    expect(result.status, result.stderr).toBe(0)
    const newId = result.stdout.trim()
    const moved = await sessionWhen(newId, (r) => r.verified)
    // The command is what pk started (the record's), not the interpreter line the kernel shows.
    expect(moved).toMatchObject({agent: 'pi', command: ['pi', '--session', 'conv-7'], resume: ['pi', '--session', 'conv-7']})
    await waitFor('caller terminated', () => readdirSync(sb.root).some((f) => f.startsWith('terminated-')))
    expect((await sessionWhen(id, (r) => r.state === 'exited')).state).toBe('exited')
    // The books say where the conversation went: restore offers only the continuation, not both.
    const record = (sid: string) => JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${sid}.json`), 'utf8'))
    expect(record(id)).toMatchObject({resumedBy: newId})
    expect(record(newId)).toMatchObject({resumedFrom: id})
    expect(JSON.parse((await sb.pk(['restore', '--dry-run', '--json'], {env})).stdout).restored.map((r: {from: string}) => r.from)).not.toContain(id)
  })

  it('refuses a second live process for one conversation, and keeps the caller running', async () => {
    await bg(['--', 'pi', '--session', 'conv-8'], {})
    const records = readdirSync(join(sb.stateDir, 'sessions'))
    const file = join(sb.stateDir, 'sessions', records[0]!)
    writeFileSync(file, JSON.stringify({...JSON.parse(readFileSync(file, 'utf8')), conversationId: 'conv-8'}))
    const caller = await bg(['pi'], {STANDIN_HANDOFF: '--conversation conv-8'})
    const result = await waitFor('handoff', () => readHandoff(), 15_000)
    expect(result.status).toBe(4)
    expect(result.stderr).toMatch(/conversation conv-8 is already live/)
    expect((await sessionWhen(caller, () => true)).state).not.toBe('exited')
    expect(readdirSync(sb.root).some((f) => f.startsWith('terminated-'))).toBe(false)
  })

  it('keeps the caller when the resumed agent dies at once, or no conversation is known', async () => {
    const caller = await bg(['pi'], {STANDIN_HANDOFF: '--conversation conv-9', STANDIN_FAIL_RESUME: '1'})
    const result = await waitFor('handoff', () => readHandoff(), 15_000)
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/exited at once with status 3/)
    expect((await sessionWhen(caller, () => true)).state).not.toBe('exited')
    expect(readdirSync(sb.root).some((f) => f.startsWith('terminated-'))).toBe(false)

    const outsideAgent = await sb.pk(['bg', '--handoff'], {env})
    expect(outsideAgent.code).toBe(1)
    expect(outsideAgent.stderr).toMatch(/from inside an agent/)
  })

  it('keeps the caller when the replacement never reports running the conversation (a fresh Pi with nothing written)', async () => {
    const caller = await bg(['pi'], {STANDIN_HANDOFF: '--conversation conv-fresh', STANDIN_NO_SESSION: '1'})
    const result = await waitFor('handoff', () => readHandoff(), 30_000)
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/did not report that it runs conversation conv-fresh/)
    expect((await sessionWhen(caller, () => true)).state).not.toBe('exited')
    // The replacement that never ran the conversation leaves no record for restore to offer.
    expect(readdirSync(join(sb.stateDir, 'sessions')).map((f) => f.replace('.json', ''))).toEqual([caller])
    expect(readdirSync(sb.root).some((f) => f.startsWith('terminated-'))).toBe(false)
  })

  it('refuses when no conversation id is known, and the caller keeps running', async () => {
    // An agent whose hook never reported a conversation, asked to hand off without --conversation.
    const caller = await bg(['pi'], {STANDIN_HANDOFF: ' '})
    const result = await waitFor('handoff', () => readHandoff(), 15_000)
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/no conversation id is known for this pi session/)
    expect((await sessionWhen(caller, () => true)).state).not.toBe('exited')
    expect(readdirSync(sb.root).some((f) => f.startsWith('terminated-'))).toBe(false)
  })
})

/** The stand-in's record of its handoff, once written whole (it is written while the test polls). */
function readHandoff(): {status: number; stdout: string; stderr: string} | null {
  try {
    return JSON.parse(readFileSync(join(sb.root, 'handoff.json'), 'utf8'))
  } catch {
    return null
  }
}

describe('config', () => {
  // A project's config may pick the agent \`pk bg\` starts by default (not the socket: issue #21).
  const places: [string, string][] = [
    ['package.json', JSON.stringify({name: 'app', pk: {defaultAgent: 'claude'}})],
    ['.pkrc', '{"defaultAgent": "claude"}'],
    ['.pkrc.json', '{"defaultAgent": "claude"}'],
    ['.pkrc.yaml', 'defaultAgent: claude\n'],
    ['.config/pkrc.json', '{"defaultAgent": "claude"}'],
    ['.config/pkrc.yml', 'defaultAgent: claude\n'],
  ]
  it.each(places)('is found in %s', async (name, text) => {
    const dir = join(sb.home, 'project', 'sub')
    mkdirSync(dir, {recursive: true})
    mkdirSync(dirname(join(sb.home, 'project', name)), {recursive: true})
    writeFileSync(join(sb.home, 'project', name), text)
    const result = await sb.pk(['bg', '--json'], {cwd: dir, env})
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout).session.agent).toBe('claude')
  })

  it("never runs a project's code: executable config in a project is not loaded", async () => {
    const project = join(sb.home, 'project')
    const marker = join(sb.root, 'config-ran')
    mkdirSync(join(project, '.config'), {recursive: true})
    const code = `import {writeFileSync} from 'node:fs'\nwriteFileSync(${JSON.stringify(marker)}, 'ran')\nexport default {socket: 'from-code'}\n`
    for (const name of ['pk.config.js', 'pk.config.mjs', '.pkrc.js', '.pkrc.mjs', '.config/pkrc.js']) writeFileSync(join(project, name), code)
    // cosmiconfig's own meta config would be loaded (and run) from the current directory too.
    writeFileSync(join(project, '.config', 'config.js'), code)
    writeFileSync(join(project, '.config', 'config.mjs'), code)
    for (const args of [
      ['ls', '--json'],
      ['bg', '--json', '--', 'sleep', '1000'],
      ['hook', 'claude', '{"hook_event_name":"Stop"}'],
      ['doctor', '--json'],
    ]) {
      await sb.pk(args, {cwd: project})
    }
    expect(existsSync(marker)).toBe(false)
    expect(sb.sockets()).not.toContain(sb.socket('from-code'))
  })

  it('runs code config only from your own config directory, and layers a project over it', async () => {
    const dir = join(sb.home, '.config', 'pk')
    mkdirSync(dir, {recursive: true})
    writeFileSync(join(dir, 'config.mjs'), 'export default {socket: "from-user", agents: {napper: {command: ["sleep", "1000"], executables: ["sleep"]}}}\n')
    const plain = await sb.pk(['bg', '--json', 'napper'])
    expect(plain.code, plain.stderr).toBe(0)
    expect(JSON.parse(plain.stdout).session.tmux.socket).toBe(sb.socket('from-user'))
    const project = join(sb.home, 'project')
    mkdirSync(project, {recursive: true})
    writeFileSync(join(project, '.pkrc.json'), JSON.stringify({defaultAgent: 'napper'}))
    const layered = await sb.pk(['bg', '--json'], {cwd: project})
    expect(layered.code, layered.stderr).toBe(0)
    // The project picked the preset; the socket stays the user's.
    expect(JSON.parse(layered.stdout).session).toMatchObject({agent: 'napper', tmux: {socket: sb.socket('from-user')}})
    // A project may not name the program a preset runs.
    writeFileSync(join(project, '.pkrc.json'), JSON.stringify({agents: {claude: {command: ['sh', '-c', 'touch pwned']}}}))
    const hostile = await sb.pk(['ls'], {cwd: project})
    expect(hostile.code).toBe(2)
    expect(hostile.stderr).toMatch(/agents\.claude\.command: a project's config cannot set/)
    // Code others can change is not run.
    chmodSync(join(dir, 'config.mjs'), 0o666)
    const loose = await sb.pk(['ls'])
    expect(loose.code).toBe(2)
    expect(loose.stderr).toMatch(/refusing to run .*config\.mjs/)
  })

  it('a FIFO where a config file should be never hangs pk', async () => {
    const project = join(sb.home, 'project')
    mkdirSync(project, {recursive: true})
    execFileSync('mkfifo', [join(project, 'package.json'), join(project, '.pkrc')])
    const result = await sb.pk(['ls', '--json'], {cwd: project})
    expect(result.code, result.stderr).toBe(0)
  })

  it('is found in ~/.config/pk/, and adds presets used by bg and ls', async () => {
    mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
    writeFileSync(
      join(sb.home, '.config', 'pk', 'config.json'),
      JSON.stringify({defaultAgent: 'napper', agents: {napper: {command: ['sleep', '1000'], executables: ['sleep']}}}),
    )
    const result = await sb.pk(['bg', '--json'])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout).session).toMatchObject({agent: 'napper', command: ['sleep', '1000']})
  })

  it('rejects invalid config with exit 2, naming the file and the key', async () => {
    writeFileSync(join(sb.home, '.pkrc.json'), JSON.stringify({agents: {claude: {paneRules: [{state: 'busy', pattern: 'x'}]}}}))
    const result = await sb.pk(['ls'], {cwd: sb.home})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`invalid config in ${join(sb.home, '.pkrc.json')}: agents.claude.paneRules[0].state: must be working, waiting or idle`)
    writeFileSync(join(sb.home, '.pkrc.json'), '{"socket": ')
    const broken = await sb.pk(['ls'], {cwd: sb.home})
    expect(broken.code).toBe(2)
    expect(broken.stderr).toMatch(/\.pkrc\.json/)
  })
})
