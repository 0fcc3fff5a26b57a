import {describeError, exitOf, PkError} from './lib/model/errors.js'
import {DESCRIPTORS} from './descriptors/index.js'
import type {Descriptor} from './descriptors/descriptor.js'
import {parseSimple} from './lib/cli/simple-argv.js'
import {checkLsOptions} from './lib/present/ls-options.js'
import {parseLsArgv} from './descriptors/ls.js'
import {createContext} from './invocation/context.js'
import type {Context} from './lib/config/context.js'
import type {ServerScan} from './lib/tmux/servers.js'
import {mark} from './lib/cli/timings.js'
import {out, say, terminal, write} from './invocation/output.js'

/**
 * The hot path without oclif. `pk ls --json` is what scripts and the dashboard call over and over, and
 * loading oclif alone costs twice what starting node does. So `pk ls` with only its simple flags (the
 * ones descriptors/ls.ts defines for both paths), `pk attach ID [--print]`, the plain forms of the
 * commands in the descriptors' table (bg, doctor, logs, notify, prune, resume, send, stop, usage, wait)
 * and the hook are served here (and `pk --version` by bin/run.js itself), by the same code the oclif
 * commands run; any other argv goes to oclif.
 */
export async function tryFastPath(argv: string[]): Promise<boolean> {
  if (argv[0] === '__ids' && (argv.length === 1 || (argv.length === 2 && argv[1] === 'live'))) return printIds(argv[1] === 'live')
  // What an agent's hook runs (pk hook AGENT [PAYLOAD]): the agent may wait for it, so not a moment on oclif.
  if (argv[0] === 'hook' && !argv.some((a) => a === '--json' || a === '--help' || a === '-h')) return takeHook(argv.slice(1))
  if (argv[0] === 'attach') return attach(argv.slice(1))
  if (argv[0] !== undefined && Object.hasOwn(DESCRIPTORS, argv[0])) return command(DESCRIPTORS[argv[0]]!, argv.slice(1))
  if (argv[0] !== 'ls') return false
  const opts = parseLsArgv(argv.slice(1))
  if (opts === null) return false
  try {
    checkLsOptions(opts)
    // tmux first, before the rest of pk's code loads: its list-panes is the longest wait of a listing.
    const {ServerScan} = await import('./lib/tmux/servers.js')
    const ctx = createContext()
    const scan = new ServerScan(ctx.env)
    const [{listSessions}, {presentListing}] = await Promise.all([import('./lib/listing/listing.js'), import('./lib/present/listing.js')])
    mark('code')
    const {rows, problems} = await listSessions({all: opts.all, scan, changes: opts.changes}, ctx)
    write(presentListing(rows, problems, opts, terminal()))
    mark('output')
  } catch (error) {
    failed(error)
  }
  return true
}

/**
 * `pk attach ID [--print]` for a session of this machine: what a person waits for. The same lib calls as
 * the oclif command, the same one-line error and exit; any other argv (HOST/ID, --help, `--`, more words, an
 * id that is not hex) goes to oclif, which says what is wrong in its own words.
 */
async function attach(args: string[]): Promise<boolean> {
  const words = args.filter((a) => a !== '--print')
  if (words.length !== 1 || args.length > 2 || !/^[0-9a-fA-F]{1,8}$/.test(words[0]!)) return false
  try {
    const ctx = await withScanAhead(createContext())
    const {attachCommand, runAttach} = await import('./lib/verbs/attach-run.js')
    if (args.includes('--print')) out((await attachCommand(words[0]!, ctx)) + '\n')
    else process.exitCode = await runAttach(words[0]!, ctx, Boolean(process.stdin.isTTY && process.stdout.isTTY))
  } catch (error) {
    failed(error)
  }
  return true
}

/**
 * A command of the table (descriptors/index.ts) in its plain forms: parsed by its spec, its input made and
 * its body run by its descriptor, as its oclif command does. Any other form goes to oclif.
 */
async function command(descriptor: Descriptor, args: string[]): Promise<boolean> {
  const parsed = parseSimple(args, descriptor.spec)
  if (parsed === null) return false
  const input = descriptor.input(parsed)
  if (descriptor.forOclif?.(input, {stdin: Boolean(process.stdin.isTTY), stdout: Boolean(process.stdout.isTTY)})) return false
  try {
    const ctx = descriptor.looksFirst ? await withScanAhead(createContext()) : createContext()
    const code = exitOf((await descriptor.run(ctx, input)) ?? 'ok')
    if (code !== 0) process.exitCode = code
  } catch (error) {
    failed(error)
  }
  return true
}

/**
 * The context with tmux's servers already being listed, as `pk ls` starts them: list-panes runs while the
 * command's code loads. A scan that cannot start here (an unsafe socket directory) is left to the look,
 * which says why in its place.
 */
async function withScanAhead(ctx: Context): Promise<Context> {
  let scan: ServerScan | undefined
  try {
    scan = new (await import('./lib/tmux/servers.js')).ServerScan(ctx.env)
  } catch {
    return ctx
  }
  return {
    ...ctx,
    scanAhead: () => {
      const taken = scan
      scan = undefined
      return taken
    },
  }
}

/** A failure as the command base says it: one line on stderr, the exit from the catalog. */
function failed(error: unknown): void {
  if (process.env.PK_DEBUG && !(error instanceof PkError)) throw error
  const {message, exitCode} = describeError(error)
  say(`pk: ${message}\n`)
  process.exitCode = exitCode
}

/** `pk __ids [live]`: the ids `pk ls` lists (only live ones: what attach and stop act on), for shell completion; quiet on any failure. */
async function printIds(live: boolean): Promise<boolean> {
  try {
    const {listSessions} = await import('./lib/listing/listing.js')
    const {rows} = await listSessions({all: false}, createContext())
    out(
      rows
        .filter((r) => !live || (r.state !== 'exited' && r.verified))
        .map((r) => r.id + '\n')
        .join(''),
    )
  } catch {
    // completion offers nothing rather than an error
  }
  return true
}

/** `pk hook AGENT [PAYLOAD]` without oclif: the body both ways in run (bodies/hook.ts). */
async function takeHook(args: string[]): Promise<boolean> {
  const {hook, hookInput} = await import('./bodies/hook.js')
  await hook(createContext(), hookInput(args))
  return true
}
