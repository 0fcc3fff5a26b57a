import {PkError, describeError} from './lib/errors.js'

/**
 * The hot path without oclif. `pk ls --json` is what scripts and the dashboard call over and over, and
 * loading oclif alone costs twice what starting node does (issue 7's budget). So `pk ls` with only its
 * simple flags is served here (and `pk --version` by bin/run.js itself), by the same lib code the oclif command runs; any
 * other argv (help, unknown or misspelt flags, --watch) goes to oclif, which owns parsing and errors.
 */
export async function tryFastPath(argv: string[]): Promise<boolean> {
  if (argv[0] !== 'ls') return false
  const opts = parseLsFlags(argv.slice(1))
  if (opts === null) return false
  try {
    const {runLs} = await import('./lib/ls-run.js')
    await runLs(opts)
  } catch (error) {
    if (process.env.PK_DEBUG && !(error instanceof PkError)) throw error
    const {message, exitCode} = describeError(error)
    process.stderr.write(`pk: ${message}\n`)
    process.exitCode = exitCode
  }
  return true
}

/** Pure: the flags the fast path understands, or null to let oclif handle the argv. */
export function parseLsFlags(args: string[]): {json: boolean; all: boolean; format: 'table' | 'short'; color: boolean} | null {
  const opts = {json: false, all: false, format: 'table' as 'table' | 'short', color: false}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--json') opts.json = true
    else if (arg === '--all' || arg === '-a') opts.all = true
    else if (arg === '--color') opts.color = true
    else if (arg === '--format=short' || arg === '--format=table') opts.format = arg.slice(9) as 'table' | 'short'
    else if (arg === '--format' && (args[i + 1] === 'short' || args[i + 1] === 'table')) opts.format = args[++i] as 'table' | 'short'
    else return null
  }
  return opts
}
