import {runInTerminal} from '../exec/run.js'

import {prepareAttach} from './attach.js'
import {checkIdForm} from '../listing/resolve.js'
import {shellQuote} from '../model/shell.js'
import {PkError} from '../model/errors.js'

import {clientEnv, runClient} from '../tmux/exec.js'
import {Context} from '../config/context.js'

/** The command that would attach (`pk attach --print`), as a shell line. */
export async function attachCommand(idArg: string, ctx: Context): Promise<string> {
  const {plan} = await prepareAttach(idArg, ctx)
  return ['tmux', ...plan.argv].map(shellQuote).join(' ')
}

/**
 * Attach for real: the tmux client gets the terminal (`terminal`: stdin and stdout are one). Returns the
 * exit code of the tmux client.
 */
export async function runAttach(idArg: string, ctx: Context, terminal: boolean): Promise<number> {
  const {plan} = await prepareAttach(idArg, ctx)
  if (plan.mode === 'attach' && !terminal) {
    throw new PkError('no-terminal', 'pk attach needs a terminal (stdin and stdout must be a TTY); use --print to get the tmux command')
  }
  // A nested attach must not see the caller's TMUX; switch and popup talk to the caller's own server.
  const childEnv = plan.mode === 'attach' ? clientEnv(ctx.env as NodeJS.ProcessEnv) : (ctx.env as NodeJS.ProcessEnv)
  return runClient(plan.argv, childEnv)
}

/** `pk attach HOST/ID`: the host's own pk verifies and attaches, through `ssh -t`: its argv. */
export async function remoteAttachCommand(hostName: string, idArg: string, ctx: Context): Promise<string[]> {
  const id = checkIdForm(idArg)
  const {findHost, remoteAttachArgv} = await import('../fleet/fleet.js')
  return ['ssh', ...remoteAttachArgv(findHost((await ctx.config()).config, hostName, ctx.env), id)]
}

export async function runRemoteAttach(hostName: string, idArg: string, ctx: Context, terminal: boolean): Promise<number> {
  const argv = await remoteAttachCommand(hostName, idArg, ctx)
  if (!terminal) {
    throw new PkError('no-terminal', 'pk attach needs a terminal (stdin and stdout must be a TTY); use --print to get the ssh command')
  }
  const {status, error} = runInTerminal(argv, ctx.env)
  if (error) throw error
  return status
}
