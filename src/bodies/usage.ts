import {Context} from '../lib/config/context.js'
import {schemaHead} from '../lib/model/contract.js'
import {PkError} from '../lib/model/errors.js'
import {resolveId} from '../lib/listing/resolve.js'
import {collectSessions} from '../lib/listing/sessions.js'
import {usageText} from '../lib/present/usage.js'
import {USAGE_AGENTS, readCache, readOn, rulesOf, sinceDay, totals, transcriptOf} from '../lib/usage/usage.js'
import {printJson, write} from '../invocation/output.js'
import {compareText} from '../lib/listing/pairing.js'

export interface UsageInput {
  id: string | undefined
  since: string | undefined
  by: 'session' | 'agent' | 'day'
  json: boolean
}

/** `pk usage` once its words are parsed: by the oclif command and the fast path alike. */
export async function usage(ctx: Context, input: UsageInput): Promise<void> {
  const since = input.since === undefined ? null : sinceDay(input.since, Date.now())
  if (input.since !== undefined && since === null)
    throw new PkError('bad-flags', `--since ${JSON.stringify(input.since)}: give 12h, 3d, 2w or a date (YYYY-MM-DD)`)
  const listing = await collectSessions(ctx)
  const rows = input.id === undefined ? listing.rows : [resolveId(input.id, listing.rows)]
  const rules = rulesOf((await ctx.config()).config.usage)
  const records = new Map(listing.snapshot.records.map((s) => [s.file, s.record]))
  // A resumed conversation goes on in the same transcript: each file is counted once, for its newest session.
  const seen = new Set<string>()
  // (ISO dates in code-unit order: localeCompare would load ICU's collation first, several ms)
  const newestFirst = [...rows].sort((a, b) => compareText(b.startedAt ?? '', a.startedAt ?? ''))
  const items = newestFirst.flatMap((row) => {
    const record = row.record ? records.get(row.record) : undefined
    if (!record || record.agent === null || !USAGE_AGENTS.includes(record.agent)) return []
    const file = transcriptOf(record, ctx.env)
    if (file === null || seen.has(file)) return []
    seen.add(file)
    const cache = file === null ? null : readOn(record.agent, file, readCache(listing.snapshot.state, row.id), rules)
    return cache === null ? [] : [{id: row.id, agent: record.agent, acc: cache.acc, rates: rules.rates}]
  })
  const lines = totals(items, input.by, since)
  const total =
    totals(
      items.map((i) => ({...i, id: 'all'})),
      'session',
      since,
    )[0] ?? null
  if (input.json) {
    printJson({...schemaHead('usage'), by: input.by, since, lines, total})
    return
  }
  write(usageText(lines, total))
}
