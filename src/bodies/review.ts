import {Context} from '../lib/config/context.js'
import {runInTerminal} from '../lib/exec/run.js'
import {schemaHead} from '../lib/model/contract.js'
import {describeError, Outcome, PkError, terminalSafe} from '../lib/model/errors.js'
import {diffChanges, LandOptions, LandResult, landSession, reviewedSession, sharedCheckoutNote} from '../lib/verbs/review.js'
import {diffArgv, withWorkingTreeIndex} from '../lib/worktree/changes.js'
import {out, printJson, say} from '../invocation/output.js'

export interface DiffInput {
  id: string
  mode: 'patch' | 'stat' | 'name-only'
  json: boolean
  /** git pathspecs (after --). */
  paths: string[]
}

/** `pk diff ID` once its words are parsed. */
export async function diff(ctx: Context, input: DiffInput): Promise<Outcome | void> {
  if (input.json) {
    const {row, base, changes} = await diffChanges(ctx, input.id, input.paths)
    printJson({...schemaHead('diff'), id: row.id, base, scope: base.kind, ...changes})
    return
  }
  const {row, base} = await reviewedSession(ctx, input.id)
  const note = sharedCheckoutNote(row.id, base)
  if (note) say(terminalSafe(`pk: ${note}\n`))
  // git itself prints it, with the user's pager and colours on a terminal, plain into a pipe.
  const ran = await withWorkingTreeIndex(base.checkout, ctx.env, async (env) =>
    runInTerminal(['git', '-C', base.checkout, ...diffArgv(base, input.mode, input.paths).slice(1)], env),
  )
  if (ran.error) throw new PkError('no-git', `git could not start: ${ran.error.message}`)
  if (ran.status !== 0) throw new PkError('git-failed', `git diff exited ${ran.status}`)
}

/** `pk land ID` once its words are parsed. */
export async function land(ctx: Context, input: LandOptions & {id: string; json: boolean}): Promise<Outcome | void> {
  let result: LandResult
  try {
    result = await landSession(ctx, input.id, input)
  } catch (error) {
    // A script asked for JSON: the refusal is a document too (and the words on stderr, and the exit, as ever).
    if (input.json && error instanceof PkError) {
      const {message, exitCode} = describeError(error)
      printJson({
        ...schemaHead('land'),
        id: (error as {sessionId?: string}).sessionId ?? null,
        landed: false,
        error: {code: error.code, exit: exitCode, message},
      })
    }
    throw error
  }
  if (input.json) {
    printJson({...schemaHead('land'), ...result})
    return
  }
  const lines = result.steps.map((step) => `${result.dryRun ? 'would ' : ''}${step}`)
  if (result.landed && result.strategy === 'pr') lines.push(result.pr ? `pull request: ${result.pr}` : 'pull request opened')
  else if (result.landed) lines.push(`landed ${result.commits} commit(s) of ${result.branch} in ${result.into}: ${result.commit?.slice(0, 12)}`)
  if (result.pruned) lines.push(`pruned session ${result.id}: its record, worktree and branch`)
  out(terminalSafe(lines.join('\n') + '\n'))
}
