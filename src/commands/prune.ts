import {prune} from '../bodies/prune.js'
import {oclifArgs, oclifFlags, oclifStrict, PkCommand} from '../command-base.js'
import {pruneCommand} from '../descriptors/prune.js'
import type {Outcome} from '../lib/model/errors.js'
import {confirm} from '../invocation/prompt.js'
import {taskList} from '../invocation/progress.js'

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
  static override strict = oclifStrict(pruneCommand.spec)
  static override args = oclifArgs(pruneCommand.spec)
  static override flags = oclifFlags(pruneCommand.spec)

  protected async execute(): Promise<Outcome | void> {
    const input = pruneCommand.input((await this.parseBy(pruneCommand)).parsed)
    const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !input.json
    const progress = interactive ? await taskList() : undefined
    try {
      await prune(this.ctx, input, interactive ? {progress, ask: confirm} : null)
    } finally {
      await progress?.finished()
    }
  }
}
