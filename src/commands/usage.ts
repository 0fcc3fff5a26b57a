import {Args, Flags} from '@oclif/core'

import {usage} from '../bodies/usage.js'
import {PkCommand} from '../command-base.js'

import type {Outcome} from '../lib/model/errors.js'

export default class Usage extends PkCommand {
  static override summary = 'Tokens and cost per session, agent or day, from the agents’ own transcripts.'
  static override description = `Like du for disk: every session pk knows the transcript of (Claude Code, Codex, Pi; sessions that ended
count until pruned), or one. Cost is the agent's own record (Pi) or your config's rates (usage.rates, dollars per
million tokens per model); a model without a rate is named unpriced and its cost left out (null), never guessed.
--since counts whole days (the transcripts' own dates, UTC).`
  static override examples = ['<%= config.bin %> usage', '<%= config.bin %> usage --by agent --since 7d', '<%= config.bin %> usage 3f9a --json']
  static override args = {id: Args.string({description: 'only this session (id or unique prefix)'})}
  static override flags = {
    since: Flags.string({description: 'only since then: 12h, 3d, 2w, or a date (YYYY-MM-DD)'}),
    by: Flags.option({options: ['session', 'agent', 'day'] as const, default: 'session', description: 'one line per session (default), agent or day'})(),
    json: Flags.boolean({description: 'print {schema, by, since, lines, total} as JSON'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {args, flags} = await this.parse(Usage)
    return usage(this.ctx, {id: args.id, since: flags.since, by: flags.by, json: flags.json})
  }
}
