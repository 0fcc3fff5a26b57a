import {Context} from '../lib/config/context.js'
import {collectSessions} from '../lib/listing/sessions.js'
import {schemaHead} from '../lib/model/contract.js'
import {Outcome, PkError} from '../lib/model/errors.js'
import {runAttach} from '../lib/verbs/attach-run.js'
import {LaunchRequest, launch} from '../lib/verbs/bg.js'
import {resumeSession} from '../lib/verbs/lifecycle.js'
import {out, printJson, say} from '../invocation/output.js'

/** What `pk bg` launches (the words after `--` byte for byte), and what it does with the new session. */
export interface BgInput extends Pick<LaunchRequest, 'agent' | 'extra' | 'cwd' | 'name' | 'socket' | 'worktree' | 'noContinue'> {
  json: boolean
  attach: boolean
}

const terminal = () => Boolean(process.stdin.isTTY && process.stdout.isTTY)

/** `--attach` needs somewhere to attach: a terminal, or a tmux client to switch. */
export function needTerminal(attach: boolean, instead: string): void {
  if (attach && !process.env.TMUX && !terminal())
    throw new PkError('no-terminal', `--attach needs a terminal (or a tmux client); ${instead} and use pk attach --print`)
}

/** `pk bg` once its words are parsed (--handoff aside): by the oclif command and the fast path alike. */
export async function bg(ctx: Context, input: BgInput): Promise<Outcome | void> {
  needTerminal(input.attach, 'start without --attach')
  const started = await launch(ctx, {
    agent: input.agent,
    extra: input.extra,
    cwd: input.cwd,
    name: input.name,
    socket: input.socket,
    worktree: input.worktree,
    noContinue: input.noContinue,
    setupOutput: process.stderr,
    onWorktree: (worktree) => say(`pk: worktree ${worktree.path} on branch ${worktree.branch}\n`),
  })
  // Should stdout fail (a full disk), the session still runs and is recorded: its id must not be lost.
  process.stdout.once('error', () => say(`pk: session ${started.id} was started and recorded, but its id could not be printed\n`))
  if (input.json) {
    const row = (await collectSessions(ctx)).rows.find((r) => r.id === started.id) ?? null
    printJson({...schemaHead('bg'), session: row})
  } else {
    out(started.id + '\n')
  }
  if (input.attach) return {childExit: await runAttach(started.id, ctx, terminal())}
}

/** `pk resume ID` once its words are parsed: by the oclif command and the fast path alike. */
export async function resume(ctx: Context, input: {id: string; json: boolean; attach: boolean}): Promise<Outcome | void> {
  needTerminal(input.attach, 'resume without --attach')
  const resumed = await resumeSession(input.id, ctx)
  if (input.json) {
    const row = (await collectSessions(ctx)).rows.find((r) => r.id === resumed.id) ?? null
    printJson({...schemaHead('bg'), session: row, resumedFrom: resumed.resumedFrom})
  } else {
    out(resumed.id + '\n')
  }
  if (input.attach) return {childExit: await runAttach(resumed.id, ctx, terminal())}
}
