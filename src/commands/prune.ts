import {Flags} from '@oclif/core'

import {JSON_SCHEMA_VERSION, PkCommand} from '../command-base.js'
import {PkError, terminalSafe, Outcome} from '../lib/model/errors.js'
import {confirm} from '../prompt.js'
import {taskList} from '../progress.js'
import {planLines, pruneText} from '../lib/present/prune.js'
import {worktreeLines} from '../lib/present/verbs.js'
import {prune} from '../lib/verbs/prune.js'
import {out, write} from '../output.js'

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
    'include-worktrees': Flags.boolean({
      description: 'also remove the clean worktrees of removed sessions whose branch is neither merged nor pushed (never a dirty one)',
    }),
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    const {flags} = await this.parse(Prune)
    const dryRun = Boolean(flags['dry-run'])
    const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !flags.json
    if (!dryRun && !flags.yes && !interactive) throw new PkError('needs-yes', 'pk prune without a terminal needs --yes (to remove) or --dry-run (to look)')

    const progress = interactive ? await taskList() : undefined
    const run = await prune(ctx, {
      dryRun,
      includeResumable: flags['include-resumable'],
      includeWorktrees: Boolean(flags['include-worktrees']),
      progress,
      confirm: async (remove) => {
        if (flags.yes || !interactive) return true
        out(terminalSafe(planLines(remove, 'would remove')))
        return confirm(`Remove these ${remove.length}? [y/N] `)
      },
    })
    await progress?.finished()
    if (flags.json) {
      this.printJson({schema: JSON_SCHEMA_VERSION, dryRun, removed: run.removed, kept: run.kept, worktrees: run.worktrees, problems: run.problems})
      return
    }
    const text = pruneText(run.removed, run.kept, run.problems, dryRun)
    write({stdout: terminalSafe(text.stdout + worktreeLines(run.worktrees, dryRun)), stderr: text.stderr})
  }
}
