import {Args, Flags} from '@oclif/core'

import {land} from '../bodies/review.js'
import {PkCommand} from '../command-base.js'
import type {Outcome} from '../lib/model/errors.js'
import {PkError} from '../lib/model/errors.js'

export default class Land extends PkCommand {
  static override summary = "Take a worktree session's work into the branch it was made from, in the main checkout, in one step."
  static override description = `Refuses (exit 5, nothing changed) while the agent works, waits on a dialog, or still runs (--idle allows an idle
one); when the main checkout has uncommitted changes or is on another branch; and when the worktree has
uncommitted work, unless --commit -m MESSAGE commits it first. The merge is tried before anything changes: a
conflict lists the files and leaves both checkouts exactly as they were (exit 1). --merge (the default) fast-
forwards where it can, else makes a merge commit; --rebase replays the work on the branch (in a throwaway
worktree) and fast-forwards; --squash makes one commit (-m its message). --push then pushes the branch the work
landed in. --pr instead pushes the session's branch and opens a pull request with gh. --prune removes a stopped
session's record, worktree and branch afterwards. --dry-run says what it would do.`
  static override examples = [
    '<%= config.bin %> land 3f9a',
    '<%= config.bin %> land 3f9a --squash -m "Add the parser"',
    '<%= config.bin %> land 3f9a --commit -m "wip" --rebase --prune',
    '<%= config.bin %> land 3f9a --pr',
  ]
  static override args = {id: Args.string({description: 'session id or unique prefix', required: true})}
  static override flags = {
    merge: Flags.boolean({description: 'fast-forward where it can, else a merge commit (the default)'}),
    rebase: Flags.boolean({description: 'replay the commits on the branch, then fast-forward it'}),
    squash: Flags.boolean({description: 'one commit of all the work'}),
    commit: Flags.boolean({description: "commit the worktree's uncommitted work first (with -m)"}),
    message: Flags.string({char: 'm', description: 'the message of the commit pk makes (--commit, --squash)'}),
    idle: Flags.boolean({description: 'land a session that is idle but still running'}),
    push: Flags.boolean({description: 'push the branch the work landed in'}),
    pr: Flags.boolean({description: "push the session's branch and open a pull request (gh pr create) instead of merging here"}),
    prune: Flags.boolean({description: "afterwards remove the stopped session's record, worktree and branch"}),
    'dry-run': Flags.boolean({description: 'say what would be done; change nothing'}),
    json: Flags.boolean({description: 'print what was done as JSON'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {args, flags} = await this.parse(Land)
    const strategies = (['merge', 'rebase', 'squash'] as const).filter((s) => flags[s])
    if (strategies.length > 1) throw new PkError('bad-flags', '--merge, --rebase and --squash: one at a time')
    if (flags.commit && flags.message === undefined) throw new PkError('bad-flags', '--commit needs -m MESSAGE')
    if (flags.pr && (flags.push || strategies.some((s) => s !== 'merge')))
      throw new PkError('bad-flags', '--pr pushes and opens a pull request of the branch as it is: no --push, --rebase or --squash with it')
    if (flags.pr && flags.prune) throw new PkError('bad-flags', '--pr leaves the work to the pull request: nothing to prune yet')
    return land(this.ctx, {
      id: args.id,
      json: Boolean(flags.json),
      strategy: strategies[0] ?? 'merge',
      commit: flags.commit ? flags.message! : null,
      message: flags.message ?? null,
      idle: Boolean(flags.idle),
      push: Boolean(flags.push),
      pr: Boolean(flags.pr),
      prune: Boolean(flags.prune),
      dryRun: Boolean(flags['dry-run']),
    })
  }
}
