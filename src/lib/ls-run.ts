import {JSON_SCHEMA_VERSION, SessionRow, isListedByDefault} from './correlate.js'
import {Problem} from './registry/records.js'
import {renderTable, wantColour} from './render.js'
import {collectSessions} from './sessions.js'
import {shortSummary} from './watch.js'

export interface LsOptions {
  json: boolean
  all: boolean
  format: 'table' | 'short'
  color: boolean
}

/** `pk ls` once: JSON, a table, or the short line. Shared by the oclif command and the fast path. */
export async function runLs(opts: LsOptions, env: Record<string, string | undefined> = process.env): Promise<void> {
  const listing = await collectSessions(env)
  printListing(listing.rows.filter((row) => opts.all || isListedByDefault(row)), listing.problems, opts, env)
}

/** Print rows as the options ask; problems go to stderr except in JSON, where they are part of the object. */
export function printListing(rows: SessionRow[], problems: Problem[], opts: LsOptions, env: Record<string, string | undefined> = process.env): void {
  if (opts.format === 'short') {
    process.stdout.write(shortSummary(rows, opts.color) + '\n')
    return
  }
  if (opts.json) {
    process.stdout.write(JSON.stringify({schema: JSON_SCHEMA_VERSION, sessions: rows, problems}, null, 2) + '\n')
    return
  }
  if (rows.length > 0) {
    process.stdout.write(renderTable(rows, {colour: wantColour(process.stdout, env), now: Date.now(), home: env.HOME}))
  } else if (process.stdout.isTTY) {
    process.stderr.write(`no agent sessions${opts.all ? '' : ' (pk ls --all shows every pane)'}; start one with: pk bg shell\n`)
  }
  for (const problem of problems) process.stderr.write(`pk: ${problem.code}: ${problem.message}\n`)
}
