import {Flags} from '@oclif/core'

import {JSON_SCHEMA_VERSION, PkCommand} from '../command-base.js'
import {PkError, terminalSafe, Outcome} from '../lib/model/errors.js'
import {confirm} from '../prompt.js'
import {assertMayWrite} from '../lib/registry/ownership.js'
import {planLines, pruneText} from '../lib/present/prune.js'
import {worktreeLines} from '../lib/present/verbs.js'
import {PruneItem, executePrune, executeWorktrees, planPrune, planWorktrees} from '../lib/verbs/prune.js'
import {out, write} from '../output.js'

import {collectSessions} from '../lib/listing/sessions.js'

export default class Prune extends PkCommand {
  static override summary = 'Remove records of dead sessions, the dead panes they left, and stale sockets.'
  static override description = `Never touches a live session. Records that can resume a conversation are kept unless --include-resumable.
Conflicting records are reported, never resolved by deleting one side. On a terminal it shows the plan and asks;
without one it needs --yes or --dry-run.`
  static override examples = ['<%= config.bin %> prune --dry-run', '<%= config.bin %> prune --yes --json', '<%= config.bin %> prune --include-resumable']
  static override flags = {
    'dry-run': Flags.boolean({description: 'show what would be removed; change nothing'}),
    yes: Flags.boolean({char: 'y', description: 'do not ask'}),
    json: Flags.boolean({description: 'print what was (or would be) removed as JSON'}),
    'include-resumable': Flags.boolean({description: 'also remove exited records that could resume a conversation'}),
    'include-worktrees': Flags.boolean({description: "also remove the clean worktrees of removed sessions whose branch is neither merged nor pushed (never a dirty one)"}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    const {flags} = await this.parse(Prune)
    const dryRun = Boolean(flags['dry-run'])
    const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !flags.json
    if (!dryRun && !flags.yes && !interactive) throw new PkError('needs-yes', 'pk prune without a terminal needs --yes (to remove) or --dry-run (to look)')

    const state = ctx.readState()
    // Even a dry run is refused from a foreign namespace: its plan would be about other processes.
    if (state) assertMayWrite(state)
    const listing = await collectSessions(ctx)
    const plan = planPrune({rows: listing.rows, servers: listing.snapshot.servers, records: listing.snapshot.records}, {includeResumable: flags['include-resumable']})
    const worktrees = await planWorktrees(plan, listing.snapshot.records, {includeWorktrees: Boolean(flags['include-worktrees'])})

    let removed: PruneItem[] = []
    if (!dryRun && plan.remove.length > 0) {
      if (!flags.yes && interactive) {
        out(terminalSafe(planLines(plan.remove, 'would remove')))
        if (!(await confirm(`Remove these ${plan.remove.length}? [y/N] `))) throw new PkError('cancelled', 'nothing removed')
      }
      removed = await executePrune(plan, state, listing.snapshot.view)
    }
    const removedFiles = new Set(removed.map((r) => r.target))
    const worktreesDone = dryRun ? worktrees : [...(await executeWorktrees(worktrees.filter((w) => listing.snapshot.records.some((r) => r.record.worktree?.path === w.path && removedFiles.has(r.file))), listing.snapshot.records)), ...worktrees.filter((w) => w.action === 'keep')]
    const listed = dryRun ? plan.remove : removed
    if (flags.json) {
      this.printJson({schema: JSON_SCHEMA_VERSION, dryRun, removed: listed, kept: plan.keep, worktrees: worktreesDone, problems: listing.problems})
      return
    }
    const text = pruneText(listed, plan.keep, listing.problems, dryRun)
    write({stdout: terminalSafe(text.stdout + worktreeLines(worktreesDone, dryRun)), stderr: text.stderr})
  }
}
