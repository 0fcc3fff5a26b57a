import {Args, Flags} from '@oclif/core'

import {prune} from '../bodies/prune.js'
import {PkCommand} from '../command-base.js'
import type {Outcome} from '../lib/model/errors.js'
import {confirm} from '../prompt.js'
import {taskList} from '../progress.js'

export default class Prune extends PkCommand {
  static override summary = 'Remove records of dead sessions, the dead panes they left, and stale sockets.'
  static override description = `Never touches a live session. Records that can resume a conversation are kept unless --include-resumable.
Conflicting records are reported, never resolved by deleting one side. On a terminal it shows the plan and asks;
without one it needs --yes or --dry-run. With ids, only those sessions (resumable too) and what they left: a
script cleans up after the sessions it started and nobody else's; a named session still running is kept.`
  static override examples = [
    '<%= config.bin %> prune --dry-run',
    '<%= config.bin %> prune --yes --json',
    '<%= config.bin %> prune --include-resumable',
    '<%= config.bin %> prune 3f9a a70e --yes',
  ]
  static override strict = false
  static override args = {id: Args.string({description: "only these sessions (ids or unique prefixes, several allowed): nobody else's"})}
  static override flags = {
    'dry-run': Flags.boolean({description: 'show what would be removed; change nothing'}),
    yes: Flags.boolean({char: 'y', description: 'do not ask'}),
    json: Flags.boolean({description: 'print what was (or would be) removed as JSON'}),
    'include-resumable': Flags.boolean({description: 'also remove exited records that could resume a conversation'}),
    'delete-branches': Flags.boolean({
      description: "with --include-worktrees: also delete the removed worktrees' pk/... branches whose work is merged (git branch -d; never an unmerged one)",
    }),
    'include-worktrees': Flags.boolean({
      description: 'also remove the clean worktrees of removed sessions whose branch is neither merged nor pushed (never a dirty one)',
    }),
  }

  protected async execute(): Promise<Outcome | void> {
    const {argv, flags} = await this.parse(Prune)
    const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !flags.json
    const progress = interactive ? await taskList() : undefined
    const input = {dryRun: Boolean(flags['dry-run']), yes: Boolean(flags.yes), json: Boolean(flags.json)}
    const more = {
      includeResumable: Boolean(flags['include-resumable']),
      includeWorktrees: Boolean(flags['include-worktrees']),
      deleteBranches: Boolean(flags['delete-branches']),
    }
    try {
      await prune(this.ctx, {...input, ...more, ids: argv.map(String)}, interactive ? {progress, ask: confirm} : null)
    } finally {
      await progress?.finished()
    }
  }
}
