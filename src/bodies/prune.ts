import {Context} from '../lib/config/context.js'
import {schemaHead} from '../lib/model/contract.js'
import {PkError, terminalSafe} from '../lib/model/errors.js'
import {Progress} from '../lib/model/progress.js'
import {planLines, pruneText} from '../lib/present/prune.js'
import {worktreeLines} from '../lib/present/verbs.js'
import {prune as pruneVerb} from '../lib/verbs/prune.js'
import {out, printJson, write} from '../invocation/output.js'

export interface PruneInput {
  dryRun: boolean
  yes: boolean
  json: boolean
  includeResumable: boolean
  includeWorktrees: boolean
  /** Also the merged branches of the worktrees removed. */
  deleteBranches: boolean
  /** Only these sessions (pk prune ID...). */
  ids?: string[]
}

export interface PruneTerminal {
  progress?: Progress
  /** Asks the person; only where there is one (stdin and stdout a terminal, no --json). */
  ask: (question: string) => Promise<boolean>
}

/**
 * `pk prune` once its words are parsed: by the oclif command and, without a terminal (nothing to ask, no
 * task list), the fast path alike.
 */
export async function prune(ctx: Context, input: PruneInput, terminal: PruneTerminal | null): Promise<void> {
  if (input.deleteBranches && !input.includeWorktrees) throw new PkError('bad-flags', '--delete-branches goes with --include-worktrees')
  if (!input.dryRun && !input.yes && terminal === null)
    throw new PkError('needs-yes', 'pk prune without a terminal needs --yes (to remove) or --dry-run (to look)')
  const run = await pruneVerb(ctx, {
    dryRun: input.dryRun,
    includeResumable: input.includeResumable,
    includeWorktrees: input.includeWorktrees,
    deleteBranches: input.deleteBranches,
    ids: input.ids,
    progress: terminal?.progress,
    confirm: async (remove) => {
      if (input.yes || terminal === null) return true
      out(terminalSafe(planLines(remove, 'would remove')))
      return terminal.ask(`Remove these ${remove.length}? [y/N] `)
    },
  })
  if (input.json) {
    printJson({...schemaHead('prune'), dryRun: input.dryRun, removed: run.removed, kept: run.kept, worktrees: run.worktrees, problems: run.problems})
    return
  }
  const text = pruneText(run.removed, run.kept, run.problems, input.dryRun)
  write({stdout: terminalSafe(text.stdout + worktreeLines(run.worktrees, input.dryRun)), stderr: text.stderr})
}
