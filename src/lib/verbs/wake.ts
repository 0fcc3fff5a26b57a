import {join} from 'node:path'

import {run, startPkDetached} from '../exec/run.js'
import {processSource} from '../proc/source.js'
import {writeFileAtomic} from '../registry/atomic.js'
import {Env, resolveStateDir} from '../registry/state-dir.js'
import {systemdUserManager} from './service.js'
import {Wake} from '../limits/plan.js'

/**
 * One wake-up at a known moment, without a daemon (DESIGN.md §1.8): a transient timer of the user's
 * systemd where a user manager answers, else one small detached pk that sleeps until then (`pk continue ID
 * --wake MS`) and ends. Either runs `pk continue ID --wake MS`, which acts only while the session's file
 * still names that very moment (a moved or cancelled one is superseded, and the old wake-up does nothing).
 */

/** The environment a timer's pk needs to find this user's state, config, sockets and clock (a user manager's is its own). */
const CARRIED = ['PK_STATE_DIR', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME', 'TMUX_TMPDIR', 'PATH', 'HOME', 'TZ', 'LANG'] as const

/** Pure: a moment as systemd's calendar takes it, in UTC (`2026-12-07 05:10:30 UTC`). */
export const calendarOf = (at: number) =>
  new Date(Math.ceil(at / 1000) * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')

/**
 * Pure: the environment a timer's pk needs, as a systemd EnvironmentFile (`NAME="value"`, `\\` and `"` escaped):
 * handed to systemd-run as a file of yours (0600), never as `--setenv=` words, which every user can read in
 * its argv while it runs. A value with a line end cannot be passed safely: left out.
 */
export function environmentFile(env: Env): string {
  return CARRIED.flatMap((name) => {
    const value = env[name]
    if (value === undefined || /[\n\r\0]/.test(value)) return []
    return [`${name}="${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`]
  })
    .map((line) => line + '\n')
    .join('')
}

/** Pure: the systemd-run argv of a transient timer that runs the wake-up once at `at`, its environment from `envFile`. */
export function timerArgv(id: string, at: number, pk: readonly string[], envFile: string): {unit: string; argv: string[]} {
  const unit = `pk-continue-${id}-${at}`
  return {
    unit,
    argv: [
      'systemd-run',
      '--user',
      '--quiet',
      '--collect',
      `--unit=${unit}`,
      `--description=pk: continue session ${id} at its usage limit's reset`,
      `--on-calendar=${calendarOf(at)}`,
      '--timer-property=AccuracySec=1s',
      `--property=EnvironmentFile=${envFile}`,
      '--',
      ...pk,
      'continue',
      id,
      '--wake',
      String(at),
    ],
  }
}

/** Arrange the wake-up: systemd's timer, or (without a user manager, or when it refuses) a sleeping pk. */
export async function arrangeWake(id: string, at: number, env: Env): Promise<Wake | null> {
  const pk = [process.execPath, process.argv[1]!]
  // (the environment in a file of the state directory, 0600, written whole: what the timer's pk reads; where
  // it cannot be written, the sleeper, which has the environment itself)
  const envFile = join(resolveStateDir(env), 'wake.env')
  if ((await systemdUserManager(env)) && writtenWhole(envFile, environmentFile(env))) {
    const {unit, argv} = timerArgv(id, at, pk, envFile)
    const ran = await run(argv, {env, deadlineMs: 5000})
    if (ran.code === 0) return {kind: 'systemd', unit, at: new Date(at).toISOString()}
  }
  const pid = startPkDetached(['continue', id, '--wake', String(at)], env)
  const stat = pid === null ? null : processSource().stat(pid)
  return stat === null ? null : {kind: 'sleeper', pid: stat.pid, startTime: stat.startTime, at: new Date(at).toISOString()}
}

const writtenWhole = (path: string, text: string) => {
  try {
    writeFileAtomic(path, text, 'replace')
    return true
  } catch {
    return false
  }
}

/** Whether a sleeper still sleeps (its process, by pid and start time); a timer: null (systemd keeps it). */
export function wakeAlive(wake: Wake): boolean | null {
  if (wake.kind === 'systemd') return null
  const stat = processSource().stat(wake.pid)
  return stat !== null && stat.startTime === wake.startTime && !stat.state.startsWith('Z')
}

/** Cancel it: stop the timer, or end the sleeper (only the very process that was started). */
export async function cancelWake(wake: Wake, env: Env): Promise<void> {
  if (wake.kind === 'systemd') {
    await run(['systemctl', '--user', 'stop', `${wake.unit}.timer`], {env, deadlineMs: 3000})
    return
  }
  if (wakeAlive(wake) !== true) return
  try {
    process.kill(wake.pid, 'SIGTERM')
  } catch {
    // gone meanwhile
  }
}
