import {Args, Flags} from '@oclif/core'

import {PkCommand, schemaHead} from '../command-base.js'
import {parseMoment} from '../lib/limits/plan.js'
import {Outcome, PkError} from '../lib/model/errors.js'
import {clockText} from '../lib/model/clock.js'
import {localZone} from '../lib/listing/status.js'
import {ContinueResult, continueSession, scheduleContinue, wakeToContinue} from '../lib/verbs/continue.js'
import {out, printJson} from '../invocation/output.js'

export default class Continue extends PkCommand {
  static override summary = 'Carry on a session stopped at its usage limit: now, at a moment you name (--at), or not at all (--off).'
  static override description = `A session at its plan's usage limit (or its API's rate limit) is listed limited, with its reset; pk
continues the ones it started shortly after the reset, once, by itself (docs/limits.md). This command does it
by hand. With no flag: now, when the limit is still the agent's last word on its screen and no other dialog is
up: Gemini CLI's "Keep trying", else the message in your config (default "continue") through the checks of
pk send. --at TIME sets or moves the moment for this limit (00:20, 5:10am, +20m, or an ISO 8601 date): for a
limit that shows no reset, or to wait longer. --off: pk does not continue this limit.
Exit 0; 1 when the session is not at a usage limit, or shows another dialog (nothing typed); 2 for a TIME
pk cannot read; 3 no such session; 6 when the message went in but pk could not see the agent take it.`
  static override examples = [
    '<%= config.bin %> continue 3f9a',
    '<%= config.bin %> continue 3f9a --at 00:20',
    '<%= config.bin %> continue 3f9a --at +45m --json',
    '<%= config.bin %> continue 3f9a --off',
  ]
  static override args = {
    id: Args.string({description: 'session id or unique prefix', required: true, ignoreStdin: true}),
  }
  static override flags = {
    at: Flags.string({description: 'continue this limit at TIME (00:20, 5:10am, +20m, an ISO 8601 date) instead of shortly after its reset'}),
    off: Flags.boolean({description: 'do not continue this limit'}),
    timeout: Flags.integer({description: 'seconds to wait for a slow tmux server (default 30)', default: 30, min: 0}),
    json: Flags.boolean({description: 'print {schema, id, agent, done, typed, continueAt, why} as JSON'}),
    // The wake-up's own way in (a systemd timer's, or a detached pk's): the moment it was arranged for.
    wake: Flags.string({hidden: true}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {args, flags} = await this.parse(Continue)
    const ctx = this.ctx
    if ([flags.at !== undefined, flags.off, flags.wake !== undefined].filter(Boolean).length > 1)
      throw new PkError('bad-flags', '--at and --off are one or the other')
    let result: ContinueResult
    if (flags.wake !== undefined) {
      if (!/^\d{1,15}$/.test(flags.wake)) throw new PkError('bad-flags', '--wake takes the moment in ms since the epoch')
      result = await wakeToContinue(ctx, args.id, Number(flags.wake))
    } else if (flags.off) result = await scheduleContinue(ctx, args.id, {off: true})
    else if (flags.at !== undefined) {
      // (a clock time is yours: read in pk's own zone, your TZ)
      const at = parseMoment(flags.at, Date.now(), localZone())
      if (at === null) throw new PkError('bad-flags', `--at ${JSON.stringify(flags.at)}: give a clock time (00:20, 5:10am), +20m, or an ISO 8601 date`)
      if (at < Date.now() - 60_000) throw new PkError('bad-flags', `--at ${JSON.stringify(flags.at)} has passed already`)
      result = await scheduleContinue(ctx, args.id, {at})
    } else result = await continueSession(ctx, args.id, {timeoutMs: flags.timeout * 1000})
    if (flags.json) printJson({...schemaHead('continue'), ...result})
    else out(continueText(result) + '\n')
  }
}

/** One line for a person: what was done. */
function continueText(r: ContinueResult): string {
  if (r.done === 'continued') return `${r.id}: continued (${r.typed === null ? 'done' : `typed ${JSON.stringify(r.typed)}`})`
  if (r.done === 'off') return `${r.id}: pk does not continue it at this limit`
  if (r.done === 'at')
    return r.continueAt === null ? `${r.id}: not continued${r.why ? `: ${r.why}` : ''}` : `${r.id}: continues at ${clockText(r.continueAt, Date.now())}`
  return `${r.id}: nothing done${r.why ? `: ${r.why}` : ''}`
}
