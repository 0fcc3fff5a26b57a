import {Flags} from '@oclif/core'

import {JSON_SCHEMA_VERSION, PkCommand} from '../command-base.js'
import {confirm} from '../prompt.js'
import {describeError, PkError, Outcome} from '../lib/model/errors.js'
import {planRestore, resumeSession} from '../lib/verbs/lifecycle.js'
import {assertMayWrite} from '../lib/registry/ownership.js'

import {collectSessions} from '../lib/listing/sessions.js'
import {out, write} from '../output.js'
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
    assertMayWrite(ctx.writeState())
    const listing = await collectSessions(ctx)
    const plan = planRestore(listing.rows, listing.snapshot.records, listing.snapshot.servers)
    const restored: {from: string; id: string}[] = []
    const failed: {id: string; message: string}[] = []
    if (!dryRun && plan.restore.length > 0) {
      if (!flags.yes && interactive) {
        out(restoreCandidates(plan))
        if (!(await confirm(`Resume these ${plan.restore.length}? [y/N] `))) throw new PkError('cancelled', 'nothing restored')
      }
      for (const row of plan.restore) {
        try {
          restored.push({from: row.id, id: (await resumeSession(row.id, ctx)).id})
        } catch (error) {
          failed.push({id: row.id, message: describeError(error).message})
        }
      }
    }
    if (flags.json) {
      const wouldRestore = dryRun ? plan.restore.map((r) => ({from: r.id, id: null})) : restored
      this.printJson({schema: JSON_SCHEMA_VERSION, dryRun, restored: wouldRestore, skipped: plan.skip.map((s) => ({id: s.row.id, reason: s.reason})), failed})
    } else {
      write(restoreText(plan, {dryRun, restored, failed}))
    }
    return failed.length > 0 ? 'not-all-ok' : 'ok'
    if (flags.autostart && !dryRun) {
      const {noteAutostartRun} = await import('../lib/verbs/service.js')
      noteAutostartRun(ctx.writeState(), failed.length === 0, `${restored.length} restored, ${plan.skip.length} skipped, ${failed.length} failed`)
    }
  }
}
