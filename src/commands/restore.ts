import {Flags} from '@oclif/core'

import {PkCommand, schemaHead} from '../command-base.js'
import {confirm} from '../invocation/prompt.js'
import {taskList} from '../invocation/progress.js'
import {PkError, Outcome} from '../lib/model/errors.js'
import {restoreAll} from '../lib/verbs/lifecycle.js'

import {out, write} from '../invocation/output.js'
import {restoreCandidates, restoreText} from '../lib/present/verbs.js'

export default class Restore extends PkCommand {
  static override summary = 'After a reboot or a tmux server’s death, resume every session that was live and can be resumed.'
  static override description = `One pk resume each, in a fresh server. Sessions that were stopped (pk stop), quit on a server that still
runs, or resumed already are left alone, so a second run restores nothing. Those whose conversation cannot be
resumed are listed, not started. On a terminal it shows the plan and asks; without one it needs --yes or --dry-run.`
  static override examples = ['<%= config.bin %> restore --dry-run', '<%= config.bin %> restore --yes --json']
  static override flags = {
    'dry-run': Flags.boolean({description: 'show what would be restored; start nothing'}),
    yes: Flags.boolean({char: 'y', description: 'do not ask'}),
    json: Flags.boolean({description: 'print {schema, dryRun, restored, skipped, failed} as JSON'}),
    autostart: Flags.boolean({description: 'note how the run went, for pk doctor (what pk setup autostart installs)', hidden: true}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    const {flags} = await this.parse(Restore)
    const dryRun = Boolean(flags['dry-run'])
    const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !flags.json
    if (!dryRun && !flags.yes && !interactive) throw new PkError('needs-yes', 'pk restore without a terminal needs --yes (to restore) or --dry-run (to look)')
    const progress = interactive ? await taskList() : undefined
    const {plan, restored, failed} = await restoreAll(ctx, {
      dryRun,
      progress,
      autostart: flags.autostart,
      confirm: async (plan) => {
        if (flags.yes || !interactive) return true
        out(restoreCandidates(plan))
        return confirm(`Resume these ${plan.restore.length}? [y/N] `)
      },
    })
    await progress?.finished()
    if (flags.json) {
      const wouldRestore = dryRun ? plan.restore.map((r) => ({from: r.id, id: null})) : restored
      this.printJson({...schemaHead('restore'), dryRun, restored: wouldRestore, skipped: plan.skip.map((s) => ({id: s.row.id, reason: s.reason})), failed})
    } else {
      write(restoreText(plan, {dryRun, restored, failed}))
    }
    return failed.length > 0 ? 'not-all-ok' : 'ok'
  }
}
