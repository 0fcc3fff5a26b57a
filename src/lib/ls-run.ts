import {isListedByDefault} from './correlate.js'
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
  const rows = listing.rows.filter((row) => opts.all || isListedByDefault(row))
  if (opts.format === 'short') {
    process.stdout.write(shortSummary(rows, opts.color) + '\n')
    return
  }
  if (opts.json) {
    process.stdout.write(JSON.stringify({schema: 1, sessions: rows, problems: listing.problems}, null, 2) + '\n')
    return
  }
  if (rows.length > 0) {
    process.stdout.write(renderTable(rows, {colour: wantColour(process.stdout, env), now: Date.now(), home: env.HOME}))
  } else if (process.stdout.isTTY) {
    process.stderr.write(`no agent sessions${opts.all ? '' : ' (pk ls --all shows every pane)'}; start one with: pk bg shell\n`)
  }
  for (const problem of listing.problems) process.stderr.write(`pk: ${problem.code}: ${problem.message}\n`)
}
