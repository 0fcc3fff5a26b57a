import {spawnSync} from 'node:child_process'

/**
 * Whether this machine lets us make a pid namespace (root, and a kernel that allows unshare).
 * Namespace tests skip with this reason where it does not; CI runs as root, so there they run.
 */
export function unshareUnavailable(): string | null {
  if (process.getuid!() !== 0) return 'namespace tests need root (unshare --pid and ns_last_pid)'
  const probe = spawnSync('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', 'true'], {encoding: 'utf8', timeout: 10_000})
  if (probe.error) return `unshare is not available: ${probe.error.message}`
  if (probe.status !== 0) return `unshare --pid is not permitted here: ${probe.stderr.trim()}`
  return null
}

/**
 * Run a bash script as pid 1 of a fresh pid namespace with its own /proc. If it overruns, unshare is
 * killed, and --kill-child takes the namespace's init, and so every process in it, down too.
 */
export function inNewPidNamespace(script: string, env: NodeJS.ProcessEnv, timeoutMs = 60_000) {
  return spawnSync('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', 'bash', '-euo', 'pipefail', '-c', script], {
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  })
}
