import {spawnSync} from 'node:child_process'

import {checkIdForm, prepareAttach} from './attach.js'
import {shellQuote} from './shell.js'
import {PkError} from './errors.js'
import {Env} from './registry/state-dir.js'
import {clientEnv, tmuxMissing} from './tmux/exec.js'

/** The command that would attach (`pk attach --print`), as a shell line. */
export async function attachCommand(idArg: string, env: Env): Promise<string> {
  const {plan} = await prepareAttach(idArg, env)
  return ['tmux', ...plan.argv].map(shellQuote).join(' ')
}

/**
 * Attach for real: the tmux client gets the terminal (`terminal`: stdin and stdout are one). Returns the
 * exit code of the tmux client.
 */
export async function runAttach(idArg: string, env: Env, terminal: boolean): Promise<number> {
  const {plan} = await prepareAttach(idArg, env)
  if (plan.mode === 'attach' && !terminal) {
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


/** `pk attach HOST/ID`: the host's own pk verifies and attaches, through `ssh -t`: its argv. */
export async function remoteAttachCommand(hostName: string, idArg: string, env: Env): Promise<string[]> {
  const id = checkIdForm(idArg)
  const {loadConfig, currentDir} = await import('./config.js')
  const {findHost, remoteAttachArgv} = await import('./fleet.js')
  return ['ssh', ...remoteAttachArgv(findHost((await loadConfig(currentDir(), env)).config, hostName, env), id)]
}

export async function runRemoteAttach(hostName: string, idArg: string, env: Env, terminal: boolean): Promise<number> {
  const [, ...argv] = await remoteAttachCommand(hostName, idArg, env)
  if (!terminal) {
    throw new PkError('no-terminal', 'pk attach needs a terminal (stdin and stdout must be a TTY); use --print to get the ssh command')
  }
  const result = spawnSync('ssh', argv, {stdio: 'inherit'})
  if (result.error) throw result.error
  return result.status ?? 1
}
