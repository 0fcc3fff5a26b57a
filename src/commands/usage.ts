import {oclifArgs, oclifFlags, oclifStrict, PkCommand} from '../command-base.js'
import {usageCommand} from '../descriptors/usage.js'

import type {Outcome} from '../lib/model/errors.js'

export default class Usage extends PkCommand {
  static override summary = 'Tokens and cost per session, agent or day, from the agents’ own transcripts.'
  static override description = `Like du for disk: every session pk knows the transcript of (Claude Code, Codex, Pi; sessions that ended
count until pruned), or one. Cost is the agent's own record (Pi) or your config's rates (usage.rates, dollars per
million tokens per model); a model without a rate is named unpriced and its cost left out (null), never guessed.
--since counts whole days (the transcripts' own dates, UTC).`
  static override examples = ['<%= config.bin %> usage', '<%= config.bin %> usage --by agent --since 7d', '<%= config.bin %> usage 3f9a --json']
  static override strict = oclifStrict(usageCommand.spec)
  static override args = oclifArgs(usageCommand.spec)
  static override flags = oclifFlags(usageCommand.spec)

  protected async execute(): Promise<Outcome | void> {
    return usageCommand.run(this.ctx, usageCommand.input((await this.parseBy(usageCommand)).parsed))
  }
}
