import {Flags} from '@oclif/core'

import type {Outcome} from '../lib/model/errors.js'
import {JSON_SCHEMA_VERSION, PkCommand} from '../command-base.js'

import {DEFAULT_CHANNELS, deliver, notifyRows} from '../lib/notify/notify.js'

import {spoolObservation} from '../lib/events/observe.js'
import {runWriter} from '../lib/writer/fold.js'
import {collectSessions, tellable} from '../lib/listing/sessions.js'
import {write} from '../output.js'
import {notifyTestText} from '../lib/present/verbs.js'

export default class Notify extends PkCommand {
  static override summary = 'Tell the user about every session that needs them while nobody is looking, once per event.'
  static override description = `pk notices on its own: the hook path (through this command, detached), pk ls --watch and the dashboard
call it when a session starts waiting or finishes a turn with no client attached. Each event is told once in
all, whoever notices it. Channels come from the notify key of your config (default: a tmux message on every
attached client, and notify-send when there is a display). --test sends a sample through every channel.`
  static override examples = ['<%= config.bin %> notify --test', '<%= config.bin %> notify']
  static override flags = {
    test: Flags.boolean({description: 'send a sample through every configured channel and report each result'}),
    check: Flags.string({description: 'only this session (what the hook path runs)', hidden: true}),
    fold: Flags.boolean({description: 'apply pending hook events first, then tell (what the sh hook runs)', hidden: true}),
    observe: Flags.string({description: 'an observer hands in what a screen showed (what watchers run)', hidden: true}),
    json: Flags.boolean({description: 'print the results as JSON'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    const {flags} = await this.parse(Notify)
    const env = ctx.env
    const {config} = await ctx.config()
    const channels = config.notify ?? DEFAULT_CHANNELS
    const state = ctx.readState()
    if (flags.test) {
      const sample = {id: '00000000', agent: 'pk', label: 'test', state: 'waiting', cwd: ctx.cwd, reason: 'testing its notifications'}
      const results = await deliver(sample, channels, env, state)
      if (flags.json) this.printJson({schema: JSON_SCHEMA_VERSION, results})
      else write(notifyTestText(results, channels.length))
      // ok only when the sample reached someone: a channel with nobody there is no delivery.
      const delivered = results.some((r) => r.delivered)
      return results.every((r) => r.ok) && delivered ? 'ok' : 'not-all-ok'
    }
    if (flags.observe !== undefined) spoolObservation(ctx, flags.observe)
    // The one writer applies what is pending (waiting for a live lock holder, never overtaking it); what
    // needs the user is then told from the listing, which shows what is still pending either way, and
    // tells nothing it could show only from part of a backlog (see tellable).
    if (flags.fold || flags.observe !== undefined) await runWriter(ctx, state)
    const listing = await collectSessions(ctx)
    const rows = flags.check === undefined ? tellable(listing) : tellable(listing).filter((r) => r.id === flags.check)
    const told = await notifyRows(rows, channels, env, state)
    if (flags.json) this.printJson({schema: JSON_SCHEMA_VERSION, notified: told})
  }
}
