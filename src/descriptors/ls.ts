import {parseSimple, type CommandSpec, type Parsed} from '../lib/cli/simple-argv.js'
import {COLUMNS, type LsOptions} from '../lib/present/listing.js'
import {parseColumns, parseStates} from '../lib/present/ls-options.js'

/**
 * `pk ls`'s flags and words, once: its oclif command makes its flags from these (and adds --watch,
 * --interval, --fleet and --host, which only it serves), and the fast path parses by them. Its body is
 * not a table entry: the fast path lists with tmux's scan started before the listing code loads
 * (fast-path.ts), the oclif command also watches and asks other hosts (commands/ls.ts).
 */
export const lsSpec = {
  args: [{name: 'id', description: 'only these sessions (ids or unique prefixes, several allowed)'}],
  variadic: true,
  flags: {
    changes: {
      type: 'boolean',
      description: 'what each session changed since it started (files, lines, commits, uncommitted work): a few git calls per checkout',
    },
    json: {type: 'boolean', description: 'print {schema, sessions, problems} as JSON'},
    all: {type: 'boolean', char: 'a', description: 'also list plain panes and exited records'},
    format: {type: 'option', options: ['table', 'short'], default: 'table', description: 'table (default) or short: one line for a tmux status bar'},
    color: {type: 'boolean', description: 'with --format short: tmux colour codes (#[fg=...])'},
    state: {type: 'string', description: 'only sessions in these states, comma-separated (working,waiting,limited,idle,exited,unknown)'},
    attention: {type: 'boolean', description: 'only sessions that need you (waiting, or finished a turn, while nobody looks)'},
    agent: {type: 'string', description: 'only sessions of this agent (claude, codex, gemini, opencode, pi, ...)'},
    ids: {type: 'boolean', char: 'q', description: 'print only the ids, one per line'},
    tree: {type: 'boolean', description: 'the table as a tree: the sessions each session started (its children) under it'},
    'no-headers': {type: 'boolean', description: 'the table (or the -o columns) without its header line'},
    count: {type: 'boolean', description: 'only counts, one `NAME N` line each: per state, attention, total (with the filters)'},
    output: {
      type: 'string',
      char: 'o',
      description: `only these columns, comma-separated, tab-separated lines with a header (like ps -o): ${Object.keys(COLUMNS).join(', ')}`,
    },
  },
  oclifOnly: ['watch', 'interval', 'fleet', 'host'],
} as const satisfies CommandSpec

/** What ls's flags say, as the presenters take it; a -o naming no column is a usage error (PkError). */
export function lsOptions({flags}: Parsed<typeof lsSpec>): LsOptions {
  const columns = parseColumns(flags.output)
  return {
    json: flags.json,
    all: flags.all,
    format: flags.format,
    color: flags.color,
    states: parseStates(flags.state),
    attention: flags.attention,
    agent: flags.agent ?? null,
    ids: flags.ids,
    headers: !flags['no-headers'],
    count: flags.count,
    tree: flags.tree,
    columns,
    // Asking for the changes column is asking to measure them: `-o id,changes` alone is not a column of dashes.
    changes: flags.changes || (columns?.includes('changes') ?? false),
  }
}

/**
 * Pure: the options of an argv the fast path can serve, or null to let oclif parse it: ids, the flags only
 * oclif serves, and a -o oclif's command refuses in its own words.
 */
export function parseLsArgv(args: readonly string[]): LsOptions | null {
  const parsed = parseSimple(args, lsSpec)
  if (parsed === null || parsed.words.length > 0) return null
  try {
    return lsOptions(parsed)
  } catch {
    return null
  }
}
