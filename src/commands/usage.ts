import {Args, Flags} from '@oclif/core'

import {JSON_SCHEMA_VERSION, PkCommand} from '../command-base.js'
import {resolveId} from '../lib/listing/resolve.js'

import {PkError, Outcome} from '../lib/model/errors.js'
import {collectSessions} from '../lib/listing/sessions.js'
import {usageText} from '../lib/present/usage.js'
import {USAGE_AGENTS, readCache, readOn, rulesOf, sinceDay, totals, transcriptOf} from '../lib/usage/usage.js'
import {write} from '../output.js'

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
    const {ctx} = this
    const {args, flags} = await this.parse(Usage)
    const since = flags.since === undefined ? null : sinceDay(flags.since, Date.now())
    if (flags.since !== undefined && since === null)
      throw new PkError('bad-flags', `--since ${JSON.stringify(flags.since)}: give 12h, 3d, 2w or a date (YYYY-MM-DD)`)
    const listing = await collectSessions(ctx)
    const rows = args.id === undefined ? listing.rows : [resolveId(args.id, listing.rows)]
    const rules = rulesOf((await ctx.config()).config.usage)
    const records = new Map(listing.snapshot.records.map((s) => [s.file, s.record]))
    // A resumed conversation goes on in the same transcript: each file is counted once, for its newest session.
    const seen = new Set<string>()
    const newestFirst = [...rows].sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''))
    const items = newestFirst.flatMap((row) => {
      const record = row.record ? records.get(row.record) : undefined
      if (!record || record.agent === null || !USAGE_AGENTS.includes(record.agent)) return []
      const file = transcriptOf(record, ctx.env)
      if (file === null || seen.has(file)) return []
      seen.add(file)
      const cache = file === null ? null : readOn(record.agent, file, readCache(listing.snapshot.state, row.id), rules)
      return cache === null ? [] : [{id: row.id, agent: record.agent, acc: cache.acc, rates: rules.rates}]
    })
    const lines = totals(items, flags.by, since)
    const total =
      totals(
        items.map((i) => ({...i, id: 'all'})),
        'session',
        since,
      )[0] ?? null
    if (flags.json) {
      this.printJson({schema: JSON_SCHEMA_VERSION, by: flags.by, since, lines, total})
      return
    }
    write(usageText(lines, total))
  }
}
