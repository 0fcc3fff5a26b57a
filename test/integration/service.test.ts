import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LsJson, Sandbox, waitFor} from '../helpers/sandbox.js'
import {installStandins} from '../helpers/standins.js'

/**
 * Issue #26: surviving logout and reboot on the machine's own service manager. These machines have no
 * systemd: stand-ins for systemctl, systemd-run, loginctl and crontab on PATH record what they were asked
 * (systemd-run then runs the command, as it does with --scope), and crontab keeps its table in a file.
 */
let sb: Sandbox
let env: NodeJS.ProcessEnv
let calls: string
let table: string
beforeEach(() => {
  sb = new Sandbox()
  const bin = installStandins(sb.root)
  calls = join(sb.root, 'service-calls')
  table = join(sb.root, 'crontab')
  const log = `printf '%s\\n' "$(basename "$0") $*" >> "${calls}"`
  const stub = (name: string, body: string) => writeFileSync(join(bin, name), `#!/bin/sh\n${log}\n${body}\n`, {mode: 0o755})
  stub('systemctl', 'case "$*" in *is-system-running*) if [ -n "$SYSTEMD_UP" ]; then echo running; exit 0; else echo offline; exit 1; fi ;; esac\nexit 0')
  stub(
    'systemd-run',
    'if [ -n "$SYSTEMD_BUS_BROKEN" ]; then echo "Failed to connect to bus: No such file or directory" >&2; exit 1; fi\nwhile [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done\nshift\nexec "$@"',
  )
  stub('loginctl', 'echo "${LINGER:-no}"')
  stub('crontab', `case "$1" in -l) [ -f "${table}" ] || { echo "no crontab for you" >&2; exit 1; }; cat "${table}" ;; -) cat > "${table}" ;; esac`)
  env = {PATH: `${bin}:${process.env.PATH}`, STANDIN_OUT: sb.root, XDG_CONFIG_HOME: join(sb.home, '.config')}
})
afterEach(() => sb.cleanup())

const asked = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [])

describe('surviving logout', () => {
  it('with a systemd user manager, the tmux server pk starts runs in a scope of its own; an existing one is left as it is', async () => {
    const systemd = {...env, SYSTEMD_UP: '1'}
    const row = await sb.bgRow(['--', 'sleep', '100000'], {env: systemd})
    expect(row.verified).toBe(true)
    const scopes = asked().filter((c) => c.startsWith('systemd-run'))
    expect(scopes).toHaveLength(1)
    expect(scopes[0]).toMatch(
      new RegExp(`^systemd-run --user --scope --quiet --collect --unit=pk-tmux-[0-9a-f]{8} .* -- tmux -u -S ${sb.pkSocket} start-server ; source-file -$`),
    )
    // The server runs already: nothing new to place.
    await sb.bgRow(['--', 'sleep', '100000'], {env: systemd})
    expect(asked().filter((c) => c.startsWith('systemd-run'))).toHaveLength(1)
  })

  it('a user manager that answers but whose bus fails (systemd-run fails): tmux starts without a scope, as without one', async () => {
    const broken = {...env, SYSTEMD_UP: '1', SYSTEMD_BUS_BROKEN: '1'}
    const row = await sb.bgRow(['--', 'sleep', '100000'], {env: broken})
    expect(row.verified).toBe(true)
    expect(asked().filter((c) => c.startsWith('systemd-run'))).toHaveLength(1)
    expect((await sb.pkJson<LsJson>(['ls'])).sessions.map((r) => r.id)).toContain(row.id)
  })

  it('without one, tmux starts as before', async () => {
    await sb.bgRow(['--', 'sleep', '100000'], {env})
    expect(asked().filter((c) => c.startsWith('systemd-run'))).toEqual([])
    expect(asked()).toContain('systemctl --user is-system-running')
  })
})

describe('pk setup autostart', () => {
  it('systemd: installs and enables a user unit, idempotently; --print changes nothing; --remove takes it away', async () => {
    const systemd = {...env, SYSTEMD_UP: '1'}
    const unit = join(sb.home, '.config', 'systemd', 'user', 'pk-restore.service')
    const printed = await sb.pk(['setup', 'autostart', '--print'], {env: systemd})
    expect(printed.stdout).toMatch(/ExecStart=.*"restore" "--yes" "--autostart"/)
    expect(existsSync(unit)).toBe(false)
    const first = await sb.pk(['setup', 'autostart'], {env: systemd})
    expect(first.code, first.stderr).toBe(0)
    expect(readFileSync(unit, 'utf8')).toMatch(
      /\[Service\]\nType=oneshot\n(Environment=.*\n)*ExecStart=.*run\.js" "restore" "--yes" "--autostart"\n\n\[Install\]\nWantedBy=default\.target/,
    )
    expect(readFileSync(unit, 'utf8')).toContain(`Environment="PK_STATE_DIR=${sb.stateDir}"`)
    expect(asked()).toEqual(expect.arrayContaining(['systemctl --user daemon-reload', 'systemctl --user enable pk-restore.service']))
    const reloads = () => asked().filter((c) => c === 'systemctl --user daemon-reload').length
    const again = await sb.pk(['setup', 'autostart'], {env: systemd})
    expect(again.stdout).toMatch(/already installed/)
    expect(reloads()).toBe(1)
    const removed = await sb.pk(['setup', 'autostart', '--remove'], {env: systemd})
    expect(removed.stdout).toMatch(/removed .*pk-restore\.service/)
    expect(existsSync(unit)).toBe(false)
    expect(asked()).toContain('systemctl --user disable pk-restore.service')
    expect((await sb.pk(['setup', 'autostart', '--remove'], {env: systemd})).stdout).toMatch(/nothing installed/)
  })

  it('cron: adds one @reboot entry beside your own lines, idempotently, and takes only it away', async () => {
    writeFileSync(table, '0 3 * * * /usr/local/bin/my-backup\n')
    expect((await sb.pk(['setup', 'autostart'], {env})).stdout).toMatch(/added an @reboot entry/)
    expect((await sb.pk(['setup', 'autostart'], {env})).stdout).toMatch(/already in your crontab/)
    const lines = readFileSync(table, 'utf8').trim().split('\n')
    expect(lines[0]).toBe('0 3 * * * /usr/local/bin/my-backup')
    expect(lines.filter((l) => l.startsWith('@reboot'))).toHaveLength(1)
    expect(lines.at(-1)).toMatch(/^@reboot env .*PK_STATE_DIR=.* restore --yes --autostart >\/dev\/null 2>&1$/)
    await sb.pk(['setup', 'autostart', '--remove'], {env})
    expect(readFileSync(table, 'utf8')).toBe('0 3 * * * /usr/local/bin/my-backup\n')
  })

  it('after the server dies, what autostart installed brings the sessions back, once; doctor says how its last run went', async () => {
    // A Pi whose hook reports its conversation, so it can be resumed.
    const row = await sb.bgRow(['pi', '--', JSON.stringify({event: 'session_start', sessionId: 'conv-boot'})], {env})
    await waitFor('resumable', async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id && s.resume !== null), 15_000)
    await sb.pk(['notify', '--fold'], {env})
    await sb.pk(['setup', 'autostart'], {env})
    sb.tmux(sb.pkSocket, 'kill-server')
    // What cron runs at boot: the entry's command, as its shell would.
    const line = readFileSync(table, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('@reboot'))!
    const command = line.replace(/^@reboot /, '').replace(/ >\/dev\/null 2>&1$/, '')
    execFileSync('sh', ['-c', command], {env: {...sb.env, ...env}})
    const after = await sb.pkJson<LsJson>(['ls'], {env})
    const resumed = after.sessions.filter((s) => s.state !== 'exited' && s.agent === 'pi')
    expect(resumed).toHaveLength(1)
    expect(resumed[0]!.resume).toEqual(['pi', '--session', 'conv-boot'])
    // Run again (a second boot hook, a login): nothing more.
    execFileSync('sh', ['-c', command], {env: {...sb.env, ...env}})
    expect((await sb.pkJson<LsJson>(['ls'], {env})).sessions.filter((s) => s.state !== 'exited' && s.agent === 'pi')).toHaveLength(1)
    const doctor = JSON.parse((await sb.pk(['doctor', '--json'], {env})).stdout)
    const survive = doctor.checks.find((c: {id: string}) => c.id === 'survive')
    expect(survive.message).toMatch(/autostart is installed \(@reboot crontab entry\).*its last run, .*: ok \(0 restored/)
  }, 60_000)

  it('doctor reports lingering and what is missing, and the command that changes it, running none of it', async () => {
    const doctor = JSON.parse((await sb.pk(['doctor', '--json'], {env: {...env, SYSTEMD_UP: '1', LINGER: 'no'}})).stdout)
    const survive = doctor.checks.find((c: {id: string}) => c.id === 'survive')
    expect(survive.message).toMatch(/a systemd user manager answers/)
    expect(survive.message).toMatch(/nothing brings sessions back after a reboot/)
    expect(survive.fix).toMatch(/pk setup autostart/)
    expect(asked().some((c) => c.startsWith('loginctl enable-linger'))).toBe(false)
    mkdirSync(join(sb.root, 'x'), {recursive: true})
  })
})
