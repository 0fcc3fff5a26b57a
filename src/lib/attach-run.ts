import {spawnSync} from 'node:child_process'

import {checkIdForm, prepareAttach, shellQuote} from './attach.js'
import {PkError} from './errors.js'
import {Env} from './registry/state-dir.js'
import {clientEnv, tmuxMissing} from './tmux/exec.js'

/** Attach for real (or print the command). Returns the exit code of the tmux client. */
export async function runAttach(idArg: string, env: Env, print: boolean): Promise<number> {
  const {plan} = await prepareAttach(idArg, env)
  if (print) {
    process.stdout.write(['tmux', ...plan.argv].map(shellQuote).join(' ') + '\n')
    return 0
  }
  if (plan.mode === 'attach' && !(process.stdin.isTTY && process.stdout.isTTY)) {
    throw new PkError('no-terminal', 'pk attach needs a terminal (stdin and stdout must be a TTY); use --print to get the tmux command')
  }
  // A nested attach must not see the caller's TMUX; switch and popup talk to the caller's own server.
  const childEnv = plan.mode === 'attach' ? clientEnv(env as NodeJS.ProcessEnv) : (env as NodeJS.ProcessEnv)
  const result = spawnSync('tmux', plan.argv, {stdio: 'inherit', env: childEnv})
  if (result.error) {
    if ((result.error as NodeJS.ErrnoException).code === 'ENOENT') throw tmuxMissing()
    throw result.error
  }
  return result.status ?? 1
}


/** `pk attach HOST/ID`: the host's own pk verifies and attaches, through `ssh -t`. */
export async function runRemoteAttach(hostName: string, idArg: string, env: Env, print: boolean): Promise<number> {
  const id = checkIdForm(idArg)
  const {loadConfig, currentDir} = await import('./config.js')
  const {findHost, remoteAttachArgv} = await import('./fleet.js')
  const host = findHost((await loadConfig(currentDir(), env)).config, hostName, env)
  const argv = remoteAttachArgv(host, id)
  if (print) {
    process.stdout.write(['ssh', ...argv].map(shellQuote).join(' ') + '\n')
    return 0
  }
  if (!(process.stdin.isTTY && process.stdout.isTTY)) {
    throw new PkError('no-terminal', 'pk attach needs a terminal (stdin and stdout must be a TTY); use --print to get the ssh command')
  }
  const result = spawnSync('ssh', argv, {stdio: 'inherit'})
  if (result.error) throw result.error
  return result.status ?? 1
}
