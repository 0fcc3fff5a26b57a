import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {Ajv} from 'ajv'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LsJson, PK_BIN, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

// The config's schema says what pk answers to a wrong value in errorMessage (ajv-errors' and VS Code's keyword).
const KEYWORDS = ['errorMessage']

function validator() {
  const ajv = new Ajv({allErrors: true, keywords: KEYWORDS})
  for (const file of readdirSync(join(ROOT, 'schemas'))) ajv.addSchema(JSON.parse(readFileSync(join(ROOT, 'schemas', file), 'utf8')))
  return (id: string, data: unknown) => {
    const validate = ajv.getSchema(`urn:pk:${id}`)!
    const ok = validate(data)
    return ok ? null : ajv.errorsText(validate.errors)
  }
}

/**
 * scripts/test.sh runs the suite in a copy of the clone (PK_TEST_ORIGIN names the clone): `npm ci` and the
 * build there never touch the node_modules/ and dist/ the installed pk (install.sh's link) runs from.
 */
describe.runIf(process.env.PK_TEST_ORIGIN !== undefined)('the test command', () => {
  it('runs in a copy: the pk installed from the clone answers while the suite runs', async () => {
    const origin = realpathSync(process.env.PK_TEST_ORIGIN!)
    expect(realpathSync(ROOT)).not.toBe(origin)
    // (a fresh clone that nobody installed has no dist/ to run: nothing to break there)
    if (!existsSync(join(origin, 'dist', 'fast-path.cjs'))) return
    const version = spawnSync(process.execPath, [join(origin, 'bin', 'run.js'), '--version'], {encoding: 'utf8'})
    expect(version.status, version.stderr).toBe(0)
    expect(version.stdout).toMatch(/^pk-sessions\//)
    const ls = await sb.pk(['ls', '--json'], {bin: join(origin, 'bin', 'run.js')})
    expect(ls.code, ls.stderr).toBe(0)
  })
})

describe('published shapes', () => {
  it('real output of ls, bg, the watch stream, doctor and prune matches the schemas shipped in the package', async () => {
    const check = validator()
    const bg = await sb.pk(['bg', '--json', '--name', 'shape', '--', 'sleep', '100000'])
    expect(check('bg', JSON.parse(bg.stdout))).toBeNull()
    sb.tmux(sb.pkSocket, 'new-session', '-d', '--', 'sleep', '100001')
    const dead = await sb.pk(['bg', '--json', '--', 'sh', '-c', 'sleep 1; exit 3'])
    writeFileSync(join(sb.stateDir, 'sessions', 'broken.json'), '{')
    const deadId = (JSON.parse(dead.stdout) as {session: {id: string}}).session.id
    await waitFor(
      'the second session exited',
      async () => (await sb.pkJson<LsJson>(['ls'])).sessions.some((s) => s.id === deadId && s.state === 'exited'),
      15_000,
    )
    for (const args of [
      ['ls', '--json'],
      ['ls', '--json', '--all'],
    ])
      expect(check('ls', JSON.parse((await sb.pk(args)).stdout)), args.join(' ')).toBeNull()
    expect(check('doctor', JSON.parse((await sb.pk(['doctor', '--json'])).stdout))).toBeNull()
    expect(check('prune', JSON.parse((await sb.pk(['prune', '--dry-run', '--json'])).stdout))).toBeNull()
    expect(check('prune', JSON.parse((await sb.pk(['prune', '--yes', '--json'])).stdout))).toBeNull()
    expect(dead.code).toBe(0)

    const watcher = spawn(process.execPath, [PK_BIN, 'ls', '--watch', '--json', '--all'], {env: sb.env, stdio: ['ignore', 'pipe', 'ignore']})
    const events: unknown[] = []
    createInterface({input: watcher.stdout!}).on('line', (line) => events.push(JSON.parse(line)))
    try {
      await waitFor('snapshot', () => events.length > 0, 10_000)
      await sb.pk(['bg', '--', 'sleep', '100002'])
      await waitFor('added', () => events.some((e) => (e as {type: string}).type === 'added'), 10_000)
    } finally {
      watcher.kill('SIGINT')
    }
    for (const event of events) expect(check('watch-event', event), JSON.stringify(event)).toBeNull()
  }, 60_000)

  it('so do stop, wait, restore, send, logs and notify (issue #23)', async () => {
    const check = validator()
    const row = await sb.bgRow(['--', 'sh', '-c', 'while read -r line; do echo "got $line"; done'])
    const sent = await sb.pk(['send', row.id, 'hello', '--json'])
    expect(check('send', JSON.parse(sent.stdout))).toBeNull()
    await waitFor('echoed', async () => (await sb.pk(['logs', row.id])).stdout.includes('got hello'))
    expect(check('logs', JSON.parse((await sb.pk(['logs', row.id, '--json'])).stdout))).toBeNull()
    const talker = await sb.bgRow(['--', 'sh', '-c', 'echo one; sleep 1; echo two; exit 0'])
    const followed = (await sb.pk(['logs', talker.id, '--follow', '--json'])).stdout.trim().split('\n')
    expect(followed.map((l) => JSON.parse(l).line)).toEqual(['one', 'two'])
    for (const line of followed) expect(check('logs-line', JSON.parse(line)), line).toBeNull()
    for (const args of [
      ['usage', '--json'],
      ['usage', '--json', '--by', 'day', '--since', '3d'],
    ])
      expect(check('usage', JSON.parse((await sb.pk(args)).stdout)), args.join(' ')).toBeNull()
    const stopped = await sb.pk(['stop', row.id.slice(0, 5), 'ffffffff', '--json'])
    const stop = JSON.parse(stopped.stdout)
    expect(check('stop', stop)).toBeNull()
    // A failure after the id was resolved names the session in full, not the prefix typed.
    expect(stop.stopped[0].id).toBe(row.id)
    const again = JSON.parse((await sb.pk(['stop', row.id, '--json'])).stdout)
    expect([check('stop', again), again.exited]).toEqual([null, [row.id]])
    const waited = JSON.parse((await sb.pk(['wait', row.id, '--for', 'exited', '--json'])).stdout)
    expect([check('wait', waited), waited.sessions[0].id]).toEqual([null, row.id])
    expect(check('restore', JSON.parse((await sb.pk(['restore', '--dry-run', '--json'])).stdout))).toBeNull()
    expect(check('notify', JSON.parse((await sb.pk(['notify', '--json'])).stdout))).toBeNull()
    mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
    writeFileSync(join(sb.home, '.config', 'pk', 'config.json'), JSON.stringify({notify: [{command: ['true']}]}))
    expect(check('notify', JSON.parse((await sb.pk(['notify', '--test', '--json'])).stdout))).toBeNull()
    // The bundled copies (dist/schemas, made by the build) stand alone: a plain validator, no resolver,
    // validates real output with each.
    const ls = JSON.parse((await sb.pk(['ls', '--json', '--all'])).stdout)
    for (const name of readdirSync(join(ROOT, 'dist', 'schemas')))
      expect(() => new Ajv({keywords: KEYWORDS}).compile(JSON.parse(readFileSync(join(ROOT, 'dist', 'schemas', name), 'utf8'))), name).not.toThrow()
    const alone = new Ajv().compile(JSON.parse(readFileSync(join(ROOT, 'dist', 'schemas', 'ls.schema.json'), 'utf8')))
    expect(alone(ls), JSON.stringify(alone.errors)).toBe(true)
  }, 60_000)
})

describe('the command reference', () => {
  it('the README names every command, and the manual (README and docs/) every flag that --help shows', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    // (the manual: the README and docs/, where each command and flag is explained)
    const manual = [readme, ...readdirSync(join(ROOT, 'docs')).map((name) => readFileSync(join(ROOT, 'docs', name), 'utf8'))].join('\n')
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, {hidden?: boolean; flags: Record<string, {hidden?: boolean}>}>
    }
    const missing: string[] = []
    for (const [id, command] of Object.entries(manifest.commands)) {
      if (command.hidden) continue
      if (!readme.includes(`pk ${id}`)) missing.push(`pk ${id}`)
      if (!manual.includes(`pk ${id}`)) missing.push(`pk ${id} in the manual`)
      for (const [flag, spec] of Object.entries(command.flags)) if (!spec.hidden && !manual.includes(`--${flag}`)) missing.push(`pk ${id} --${flag}`)
    }
    expect(missing).toEqual([])
  })
})

describe('typos', () => {
  it('without a terminal: the suggestion and exit 2, no prompt', async () => {
    const typo = await sb.pk(['lss'])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toBe('pk: lss is not a pk command. Did you mean: pk ls? (pk help lists them all)\n')
    const withArgs = await sb.pk(['atach', '3f9a'])
    expect(withArgs.code).toBe(2)
    expect(withArgs.stderr).toMatch(/Did you mean: pk attach\?/)
    // What was typed is printed back: an escape sequence in it never reaches the terminal raw.
    const hostile = await sb.pk(['lx\u001b]0;pwned\u0007', 'x\u001b[2J'])
    expect(hostile.code).toBe(2)
    expect(hostile.stderr).toBe('pk: lx?]0;pwned? is not a pk command. (pk help lists them all)\n')
    const arg = await sb.pk(['ls:x\u001b[2J'])
    expect(arg.stderr).not.toContain('\u001b')
  })
})

describe('shell completion', () => {
  it('bash, zsh and fish complete commands, flags and their values, presets and session ids', async () => {
    const bin = join(sb.root, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'pk'), `#!/bin/sh\nexec "${process.execPath}" "${PK_BIN}" "$@"\n`, {mode: 0o755})
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    const script = (await sb.pk(['completion', 'bash'])).stdout
    const complete = (...words: string[]) =>
      spawnSync(
        'bash',
        [
          '-c',
          `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _pk_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        {
          env: {...sb.env, PATH: `${bin}:${process.env.PATH}`},
          encoding: 'utf8',
        },
      )
        .stdout.trim()
        .split('\n')
    expect(complete('pk', 'att')).toEqual(['attach'])
    expect(complete('pk', 'ls', '--js')).toEqual(['--json'])
    expect(complete('pk', 'bg', 'cl')).toEqual(['claude'])
    expect(complete('pk', 'attach', '')).toEqual([row.id])
    expect(complete('pk', 'stop', row.id.slice(0, 3))).toEqual([row.id])
    // Flag values (issue #23): --for and --format their choices, --cwd directories.
    expect(complete('pk', 'wait', '--for', '')).toEqual(['waiting', 'limited', 'idle', 'exited'])
    expect(complete('pk', 'ls', '--format', 's')).toEqual(['short'])
    mkdirSync(join(sb.root, 'projdir'))
    expect(complete('pk', 'bg', '--cwd', join(sb.root, 'projd'))).toEqual([join(sb.root, 'projdir')])
    // attach is offered live sessions only; logs (which reads dead panes too) every listed one.
    const ended = await sb.bgRow(['--', 'sh', '-c', 'sleep 1; exit 3'])
    await waitFor(
      'ended',
      async () => (await sb.pkJson<{sessions: {id: string; state: string}[]}>(['ls'])).sessions.some((s) => s.id === ended.id && s.state === 'exited'),
      10_000,
    )
    expect(complete('pk', 'attach', '')).toEqual([row.id])
    expect(complete('pk', 'logs', '').sort()).toEqual([row.id, ended.id].sort())
    const env = {...sb.env, PATH: `${bin}:${process.env.PATH}`}
    // zsh: loads without compinit having run, with descriptions; fish: descriptions and values.
    const zsh = spawnSync('zsh', ['-f', '-c', 'eval "$(pk completion zsh)" && whence -w _pk compdef'], {env, encoding: 'utf8'})
    expect(zsh.stderr).toBe('')
    expect(zsh.stdout).toBe('_pk: function\ncompdef: function\n')
    expect((await sb.pk(['completion', 'zsh'])).stdout).toMatch(/'ls:List agent sessions, the ones waiting on you first\.'/)
    const fish = spawnSync('fish', ['-c', 'pk completion fish | source; complete -C "pk wait --for "; complete -C "pk "'], {env, encoding: 'utf8'}).stdout
    expect(fish).toMatch(/^idle\tthe state to wait for/m)
    expect(fish).toMatch(/^attach\tAttach to/m)
    expect((await sb.pk(['completion', 'tcsh'])).code).toBe(2)
  })
})

describe('the tmux plugin', () => {
  it('binds prefix + a to the dashboard in a popup and adds the status segment once, keeping the user’s own', () => {
    const socket = sb.socket('plugin')
    sb.tmux(socket, 'new-session', '-d', '--', 'sleep', '100000')
    sb.tmux(socket, 'set-option', '-g', 'status-right', 'my clock %H:%M')
    sb.tmux(socket, 'set-option', '-g', '@pk-status', 'on')
    for (let i = 0; i < 2; i++) sb.tmux(socket, 'run-shell', join(ROOT, 'pk.tmux'))
    expect(sb.tmux(socket, 'list-keys', '-T', 'prefix', 'a')).toMatch(/display-popup -E .*"pk ui"/)
    expect(sb.tmux(socket, 'show-option', '-gqv', 'status-right').trim()).toBe('#(pk ls --format short --color) my clock %H:%M')
    sb.tmux(socket, 'set-option', '-g', '@pk-key', 'P')
    sb.tmux(socket, 'run-shell', join(ROOT, 'pk.tmux'))
    expect(sb.tmux(socket, 'list-keys', '-T', 'prefix', 'P')).toMatch(/pk ui/)
  })
})

describe('the npm package', () => {
  it('npm pack installs into a fresh prefix without dev dependencies, and pk works from there', () => {
    // dist is built by the test command already; prepack (npm run build) would remove and rebuild it
    // under the tests running beside this one, so the pack here skips it. A real npm pack runs it:
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.prepack).toBe('npm run build')
    const out = join(sb.root, 'pack')
    mkdirSync(out)
    const env = {...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false'}
    const packed = execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', out], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
      .trim()
      .split('\n')
      .at(-1)!
    const tarball = join(out, packed)
    expect(packed).toMatch(/^pk-sessions-\d+\.\d+\.\d+\.tgz$/)
    const listing = execFileSync('tar', ['-tzf', tarball], {encoding: 'utf8'})
    for (const file of [
      'package/bin/run.js',
      'package/dist/fast-path.cjs',
      'package/oclif.manifest.json',
      'package/assets/pi-extension.js',
      'package/schemas/ls.schema.json',
      'package/pk.tmux',
    ])
      expect(listing).toContain(file)
    expect(listing).not.toMatch(/package\/(src|test)\//)
    const prefix = join(sb.root, 'prefix')
    execFileSync('npm', ['install', '-g', '--prefix', prefix, '--omit=dev', '--loglevel=error', tarball], {env, stdio: 'ignore', timeout: 300_000})
    const pk = join(prefix, 'bin', 'pk')
    const run = (...args: string[]) => spawnSync(pk, args, {env: sb.env, encoding: 'utf8', cwd: sb.root})
    expect(run('--version').stdout).toMatch(/^pk-sessions\/\d+\.\d+\.\d+ /)
    expect(JSON.parse(run('ls', '--json').stdout)).toMatchObject({schema: 1})
    expect(run('bg', '--', 'sleep', '100000').status).toBe(0)
    expect(JSON.parse(run('ls', '--json').stdout).sessions).toHaveLength(1)
    expect(run('doctor').status).toBe(0)
    expect(run('setup', 'pi').status).toBe(0)
    expect(existsSync(join(sb.home, '.pi', 'agent', 'extensions', 'pk.js'))).toBe(true)
    expect(existsSync(join(prefix, 'lib', 'node_modules', 'pk-sessions', 'node_modules', 'vitest'))).toBe(false)
  }, 400_000)
})
