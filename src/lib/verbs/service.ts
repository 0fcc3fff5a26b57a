import {run} from '../exec/run.js'
import {randomBytes} from '../model/random.js'
import {existsSync, mkdirSync, readFileSync, readdirSync, rmSync} from 'node:fs'
import {homedir, userInfo} from 'node:os'
import {join} from 'node:path'

import {PkError} from '../model/errors.js'
import {platformOf} from '../model/platform.js'
import {writeFileAtomic} from '../registry/atomic.js'
import {appendRegularFile, readRegularFile} from '../registry/files.js'
import {Env, StateDir} from '../registry/state-dir.js'

/**
 * Sessions that outlive a logout and come back after a reboot, on the machine's own service manager:
 * systemd where a user manager is reachable, else cron; on macOS a launchd agent. pk never changes how the machine is set up
 * (lingering, logind's KillUserProcesses): it says what they mean and the command that changes them.
 */

/** Whether a systemd user manager answers for this user (PK_SYSTEMD=0 says never use it). */
export async function systemdUserManager(env: Env): Promise<boolean> {
  if (env.PK_SYSTEMD === '0') return false
  const ran = await run(['systemctl', '--user', 'is-system-running'], {env, deadlineMs: 1500})
  // "degraded" (a unit failed) and "starting" still run units; "offline" or no answer do not.
  return ['running', 'degraded', 'starting'].includes(ran.stdout.trim())
}

/**
 * The argv prefix that starts a tmux server in a transient scope of its own, when a systemd user manager
 * is reachable: then ending the login session (logind's KillUserProcesses, `loginctl terminate-user`)
 * does not end the agents, as it would in the session's own scope. Else null: as before.
 */
export async function serverScope(env: Env): Promise<string[] | null> {
  if (!(await systemdUserManager(env))) return null
  return [
    'systemd-run',
    '--user',
    '--scope',
    '--quiet',
    '--collect',
    `--unit=pk-tmux-${randomBytes(4).toString('hex')}`,
    '--description=pk: tmux server for agent sessions',
    '--',
  ]
}

/** Pure: logind's KillUserProcesses from its config files, in the order systemd reads them (the last word wins); null when none sets it. */
export function parseKillUserProcesses(texts: string[]): boolean | null {
  let value: boolean | null = null
  for (const text of texts) {
    let section = ''
    for (const raw of text.split('\n')) {
      const line = raw.trim()
      if (line.startsWith('[')) section = line
      const match = /^KillUserProcesses\s*=\s*(\S+)/.exec(line)
      if (match && section === '[Login]') value = /^(1|yes|true|on)$/i.test(match[1]!)
    }
  }
  return value
}

export interface LoginFacts {
  /** macOS has no logind and no systemd: nothing ends a user's processes at logout. */
  platform?: 'linux' | 'darwin'
  /** Whether a systemd user manager answers. */
  systemd: boolean
  /** logind ends a user's processes when their last session ends: true, false, or null (unknown; systemd's default is no). */
  killUserProcesses: boolean | null
  /** The user manager (and so units) runs from boot, without a login: true, false, or null (unknown). */
  linger: boolean | null
  user: string
}

/** What logind will do with this user's processes, from its config and loginctl. */
export async function loginFacts(env: Env, etc = '/etc'): Promise<LoginFacts> {
  const user = env.USER || userInfo().username
  if (platformOf(env) === 'darwin') return {platform: 'darwin', systemd: false, killUserProcesses: null, linger: null, user}
  // (both asked at once: doctor waits for them)
  const asked = [systemdUserManager(env), run(['loginctl', 'show-user', user, '--property=Linger', '--value'], {env, deadlineMs: 1500})] as const
  const files = [join(etc, 'systemd', 'logind.conf')]
  for (const dir of ['/usr/lib/systemd/logind.conf.d', join(etc, 'systemd', 'logind.conf.d')]) {
    try {
      files.push(
        ...readdirSync(dir)
          .filter((n) => n.endsWith('.conf'))
          .sort()
          .map((n) => join(dir, n)),
      )
    } catch {
      // no such directory
    }
  }
  const texts = files.flatMap((file) => {
    try {
      return [readFileSync(file, 'utf8')]
    } catch {
      return []
    }
  })
  const [systemd, linger] = await Promise.all(asked)
  return {systemd, killUserProcesses: parseKillUserProcesses(texts), linger: linger.code === 0 ? linger.stdout.trim() === 'yes' : null, user}
}

export const UNIT_NAME = 'pk-restore.service'
const CRON_MARK = '# pk autostart: bring agent sessions back after a reboot (pk setup autostart --remove takes it away)'

/** Pure: the shell word for a path in a crontab line (cron's own `%` is escaped over the whole line, see cronLine). */
const word = (text: string) => (/^[\w@+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`)

/**
 * Pure: a word of a systemd unit: double-quoted, with systemd's escapes: `\\` and `"` (its C-style
 * quoting), `%` as `%%` (a specifier otherwise), and in ExecStart `$` as `$$` (a variable otherwise).
 */
const unitWord = (text: string, exec: boolean) => {
  let quoted = text.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('%', '%%')
  if (exec) quoted = quoted.replaceAll('$', '$$$$')
  return `"${quoted}"`
}

/**
 * The values pk writes into a unit or a crontab: refused when one cannot be written there safely (a line
 * end would start a new crontab entry or unit directive; other control characters have no business in a
 * path), never written half escaped.
 */
function checkWritable(pk: string[], env: Env): void {
  for (const [what, value] of [...carriedEnv(env), ...pk.map((p) => ['pk itself', p] as [string, string])]) {
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(value))
      throw new PkError(
        'unwritable-value',
        `${what} is ${JSON.stringify(value)}: it holds a line end or another control character, which cannot be written into a unit or a crontab safely; nothing was installed`,
      )
  }
}

/** The environment the restore needs to find this user's state and sockets where they are not the default. */
function carriedEnv(env: Env): [string, string][] {
  return (['PK_STATE_DIR', 'XDG_STATE_HOME', 'TMUX_TMPDIR', 'PATH'] as const).flatMap((name) => (env[name] ? [[name, env[name]!] as [string, string]] : []))
}

/** Pure: the systemd user unit that runs `pk restore --yes` once after the user manager starts (at boot, with lingering). */
export function systemdUnit(pk: string[], env: Env): string {
  checkWritable(pk, env)
  return [
    '[Unit]',
    'Description=pk: bring agent sessions back after a reboot',
    'After=default.target',
    '',
    '[Service]',
    'Type=oneshot',
    ...carriedEnv(env).map(([name, value]) => `Environment=${unitWord(`${name}=${value}`, false)}`),
    `ExecStart=${[...pk, 'restore', '--yes', '--autostart'].map((w) => unitWord(w, true)).join(' ')}`,
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n')
}

const CRON_TAIL = ' restore --yes --autostart >/dev/null 2>&1'

/** Pure: the crontab line that does the same where there is no systemd. cron reads `%` as a line end: escaped. */
export function cronLine(pk: string[], env: Env): string {
  checkWritable(pk, env)
  const vars = carriedEnv(env).map(([name, value]) => word(`${name}=${value}`))
  return `@reboot ${['env', ...vars, ...pk.map(word)].join(' ').replaceAll('%', '\\%')}${CRON_TAIL}`
}

/** Pure: a crontab with pk's entry added (once) or taken away; the user's own lines as they were. */
export function editCrontab(before: string, line: string | null): string {
  const kept: string[] = []
  const lines = before.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === CRON_MARK) {
      // And the entry under the mark, to its end: an earlier pk wrote a value with a line end unescaped,
      // which split its entry over several lines; every one of them is pk's.
      let end = i + 1
      for (let j = i + 1; j < Math.min(lines.length, i + 20); j++) {
        if (lines[j]!.endsWith(CRON_TAIL)) {
          end = j
          break
        }
      }
      i = end
      continue
    }
    kept.push(lines[i]!)
  }
  while (kept.length > 0 && kept.at(-1) === '') kept.pop()
  if (line !== null) kept.push(CRON_MARK, line)
  return kept.length === 0 ? '' : kept.join('\n') + '\n'
}

/** launchd's name for pk's agent, and where a user's agents live (loaded by launchd at each login). */
export const LAUNCHD_LABEL = 'pk.restore'
export const launchdPath = (env: Env) => join(env.HOME || homedir(), 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`)

/** Pure: text as XML character data (the five characters XML reserves, escaped). */
const xml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&apos;')

/**
 * Pure: the launchd agent (a property list, Apple's PropertyList-1.0 DTD) that runs `pk restore --yes` once
 * when launchd loads it, at login after a reboot: RunAtLoad, nothing kept alive. Its arguments are an
 * array, never a shell line; the same values as a unit's are carried and refused.
 */
export function launchdPlist(pk: string[], env: Env): string {
  checkWritable(pk, env)
  const vars = carriedEnv(env)
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  <string>${LAUNCHD_LABEL}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...[...pk, 'restore', '--yes', '--autostart'].map((word) => `    <string>${xml(word)}</string>`),
    '  </array>',
    ...(vars.length === 0
      ? []
      : [
          '  <key>EnvironmentVariables</key>',
          '  <dict>',
          ...vars.flatMap(([name, value]) => [`    <key>${name}</key>`, `    <string>${xml(value)}</string>`]),
          '  </dict>',
        ]),
    '  <key>RunAtLoad</key>',
    '  <true/>',
    '  <key>StandardOutPath</key>',
    '  <string>/dev/null</string>',
    '  <key>StandardErrorPath</key>',
    '  <string>/dev/null</string>',
    '</dict>',
    '</plist>',
    '',
  ].join('\n')
}

export const unitPath = (env: Env) => join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'systemd', 'user', UNIT_NAME)

export interface AutostartPlan {
  manager: 'systemd' | 'cron' | 'launchd'
  /** The file (unit, launchd agent) or crontab pk installs. */
  text: string
  where: string
}

export async function planAutostart(pk: string[], env: Env): Promise<AutostartPlan> {
  if (platformOf(env) === 'darwin') return {manager: 'launchd', text: launchdPlist(pk, env), where: launchdPath(env)}
  if (await systemdUserManager(env)) return {manager: 'systemd', text: systemdUnit(pk, env), where: unitPath(env)}
  return {manager: 'cron', text: cronLine(pk, env), where: 'your crontab (crontab -l)'}
}

async function readCrontab(env: Env): Promise<string> {
  const ran = await run(['crontab', '-l'], {env, deadlineMs: 3000})
  if (ran.code === null)
    throw new PkError('no-service-manager', 'neither a systemd user manager nor crontab is here: pk cannot arrange a restore after reboot on this machine')
  // "no crontab for USER" is an empty one.
  return ran.code === 0 ? ran.stdout : ''
}

async function writeCrontab(text: string, env: Env): Promise<void> {
  const ran = await run(['crontab', '-'], {env, input: text, deadlineMs: 3000})
  if (ran.code !== 0) throw new PkError('setup-failed', `crontab refused the new table: ${ran.stderr.trim() || `exit ${ran.code}`}`)
}

async function systemctl(args: string[], env: Env): Promise<void> {
  const ran = await run(['systemctl', '--user', ...args], {env, deadlineMs: 3000})
  if (ran.code !== 0) throw new PkError('setup-failed', `systemctl --user ${args.join(' ')} failed: ${ran.stderr.trim() || `exit ${ran.code}`}`)
}

/** Install what restores the sessions after a reboot; idempotent. Says what it did. */
export async function installAutostart(plan: AutostartPlan, env: Env): Promise<string> {
  if (plan.manager === 'launchd') {
    // Written only: launchd loads a user's agents at login, and RunAtLoad then restores. Loading it now
    // (launchctl bootstrap) would run a restore at once, which installing autostart never asks for.
    const same = existsSync(plan.where) && readFileSync(plan.where, 'utf8') === plan.text
    if (same) return `${LAUNCHD_LABEL} already installed (${plan.where})`
    mkdirSync(join(plan.where, '..'), {recursive: true, mode: 0o755})
    writeFileAtomic(plan.where, plan.text, 'replace')
    return `installed ${plan.where}; launchd loads it at your next login`
  }
  if (plan.manager === 'systemd') {
    const same = existsSync(plan.where) && readFileSync(plan.where, 'utf8') === plan.text
    if (!same) {
      mkdirSync(join(plan.where, '..'), {recursive: true, mode: 0o755})
      writeFileAtomic(plan.where, plan.text, 'replace')
      await systemctl(['daemon-reload'], env)
    }
    await systemctl(['enable', UNIT_NAME], env)
    return same ? `${UNIT_NAME} already installed and enabled (${plan.where})` : `installed and enabled ${plan.where}`
  }
  const before = await readCrontab(env)
  const after = editCrontab(before, plan.text)
  if (after === before) return 'the @reboot entry is already in your crontab'
  await writeCrontab(after, env)
  return 'added an @reboot entry to your crontab'
}

/** Take it away, wherever it is (a unit, a crontab entry, or both); idempotent. */
export async function removeAutostart(env: Env): Promise<string[]> {
  const done: string[] = []
  if (existsSync(launchdPath(env))) {
    // Unloaded where it is loaded (launchctl bootout gui/UID/LABEL); a failure there only means it was not.
    await run(['launchctl', 'bootout', `gui/${process.getuid!()}/${LAUNCHD_LABEL}`], {env, deadlineMs: 3000})
    rmSync(launchdPath(env))
    done.push(`removed ${launchdPath(env)}`)
  }
  if (platformOf(env) === 'darwin') return done
  if (existsSync(unitPath(env))) {
    await run(['systemctl', '--user', 'disable', UNIT_NAME], {env, deadlineMs: 3000})
    rmSync(unitPath(env))
    await run(['systemctl', '--user', 'daemon-reload'], {env, deadlineMs: 3000})
    done.push(`removed ${unitPath(env)}`)
  }
  const ran = await run(['crontab', '-l'], {env, deadlineMs: 3000})
  if (ran.code === 0) {
    const after = editCrontab(ran.stdout, null)
    if (after !== ran.stdout) {
      await writeCrontab(after, env)
      done.push('removed the @reboot entry from your crontab')
    }
  }
  return done
}

/** Whether autostart is installed, where, and how its last run went (what `pk restore --autostart` noted). */
export async function autostartStatus(
  env: Env,
  state: StateDir | null,
): Promise<{installed: 'systemd' | 'cron' | 'launchd' | null; last: {at: string; ok: boolean; summary: string} | null}> {
  let installed: 'systemd' | 'cron' | 'launchd' | null = existsSync(unitPath(env)) ? 'systemd' : existsSync(launchdPath(env)) ? 'launchd' : null
  if (installed === null) {
    const ran = await run(['crontab', '-l'], {env, deadlineMs: 1500})
    if (ran.code === 0 && ran.stdout.split('\n').includes(CRON_MARK)) installed = 'cron'
  }
  let last = null
  if (state !== null) {
    try {
      const lines = readRegularFile(join(state.root, 'autostart.log'), 256 * 1024)
        .trim()
        .split('\n')
      last = JSON.parse(lines.at(-1)!) as {at: string; ok: boolean; summary: string}
    } catch {
      last = null
    }
  }
  return {installed, last}
}

/** What `pk restore --autostart` notes of its run, for doctor to say whether the last one succeeded. */
export function noteAutostartRun(state: StateDir, ok: boolean, summary: string): void {
  try {
    appendRegularFile(join(state.root, 'autostart.log'), JSON.stringify({at: new Date().toISOString(), ok, summary}) + '\n')
  } catch {
    // nowhere safe to note it
  }
}
