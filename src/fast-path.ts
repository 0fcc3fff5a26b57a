import {describeError, exitOf, Outcome, PkError} from './lib/model/errors.js'
import {FAST_COMMANDS} from './fast-argv.js'
import {parseSimple} from './lib/cli/simple-argv.js'
import {checkLsOptions, parseLsArgv} from './lib/present/ls-options.js'
import {createContext} from './context.js'
import type {Context} from './lib/config/context.js'
import type {ServerScan} from './lib/tmux/servers.js'
import {mark} from './lib/cli/timings.js'
import {out, say, terminal, write} from './output.js'
import {readStdin} from './input.js'

/**
 * The hot path without oclif. `pk ls --json` is what scripts and the dashboard call over and over, and
 * loading oclif alone costs twice what starting node does. So `pk ls` with only its simple flags (the
 * ones lib/present/ls-options.ts defines for both paths), `pk attach ID [--print]`, the plain forms of
 * stop, logs, usage and wait (src/fast-argv.ts), and the hook are served here (and `pk --version` by bin/run.js itself), by the same lib code the oclif commands run; any other
 * argv goes to oclif.
 */
export async function tryFastPath(argv: string[]): Promise<boolean> {
  if (argv[0] === '__ids' && (argv.length === 1 || (argv.length === 2 && argv[1] === 'live'))) return printIds(argv[1] === 'live')
  // What an agent's hook runs (pk hook AGENT [PAYLOAD]): the agent may wait for it, so not a moment on oclif.
  if (argv[0] === 'hook' && !argv.some((a) => a === '--json' || a === '--help' || a === '-h')) return takeHook(argv.slice(1))
  if (argv[0] === 'attach') return attach(argv.slice(1))
  if (argv[0] !== undefined && Object.hasOwn(FAST_COMMANDS, argv[0])) return command(argv[0] as keyof typeof FAST_COMMANDS, argv.slice(1))
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

/** stop, logs, usage, wait, send, doctor, prune, notify, bg and resume in their plain forms (src/fast-argv.ts), by the bodies their oclif commands run. */
async function command(name: keyof typeof FAST_COMMANDS, args: string[]): Promise<boolean> {
  // bg: only the words before the first `--` are pk's; the rest is the command, byte for byte.
  const split = FAST_COMMANDS[name].command ? args.indexOf('--') : -1
  const parsed = parseSimple(split === -1 ? args : args.slice(0, split), FAST_COMMANDS[name])
  if (parsed === null) return false
  const {flags: f, words} = parsed
  // What only oclif's commands do: hosts over ssh, and a person at a terminal (task lists, questions).
  const tty = Boolean(process.stdout.isTTY)
  if (name === 'doctor' && (f.fleet === true || f.host !== undefined || (tty && f.json !== true))) return false
  if (name === 'prune' && tty && Boolean(process.stdin.isTTY) && f.json !== true) return false
  try {
    const ctx = LOOK_FIRST.has(name) ? await withScanAhead(createContext()) : createContext()
    let outcome: Outcome | void = undefined
    if (name === 'stop') {
      const filters = {state: f.state as string | undefined, attention: f.attention === true, agent: f.agent as string | undefined}
      outcome = await (
        await import('./bodies/stop.js')
      ).stop(ctx, {ids: words, all: f.all === true, filters, force: f.force === true, timeout: f.timeout as number, json: f.json === true})
    } else if (name === 'logs') {
      const input = {id: words[0]!, lines: f.lines as number, follow: f.follow === true, color: f.color === true, json: f.json === true}
      outcome = await (await import('./bodies/logs.js')).logs(ctx, input)
    } else if (name === 'usage') {
      const input = {id: words[0], since: f.since as string | undefined, by: f.by as 'session' | 'agent' | 'day', json: f.json === true}
      outcome = await (await import('./bodies/usage.js')).usage(ctx, input)
    } else if (name === 'send') {
      const input = {id: words[0]!, words: words.slice(1), stdin: f.stdin === true, enter: f.enter === true, enterOnly: f['enter-only'] === true}
      outcome = await (
        await import('./bodies/send.js')
      ).send(ctx, {...input, whenIdle: f['when-idle'] === true, timeout: f.timeout as number, json: f.json === true})
    } else if (name === 'bg') {
      const {exactArgs, exactFlagValue} = await import('./lib/model/bytes.js')
      const cwd = f.cwd === undefined ? undefined : exactFlagValue(args, '--cwd', f.cwd as string)
      const extra = split === -1 ? [] : exactArgs(args).slice(split + 1)
      const named = {agent: words[0], name: f.name as string | undefined, socket: f.socket as string | undefined}
      outcome = await (await import('./bodies/bg.js')).bg(ctx, {...named, extra, cwd, worktree: null, json: f.json === true, attach: f.attach === true})
    } else if (name === 'resume') {
      outcome = await (await import('./bodies/bg.js')).resume(ctx, {id: words[0]!, json: f.json === true, attach: f.attach === true})
    } else if (name === 'doctor') {
      outcome = await (await import('./bodies/doctor.js')).doctor(ctx, {json: f.json === true, fix: f.fix === true})
    } else if (name === 'notify') {
      const input = {test: f.test === true, check: f.check as string | undefined, fold: f.fold === true, observe: f.observe as string | undefined}
      outcome = await (await import('./bodies/notify.js')).notify(ctx, {...input, json: f.json === true})
    } else if (name === 'prune') {
      const input = {dryRun: f['dry-run'] === true, yes: f.yes === true, json: f.json === true}
      const more = {
        includeResumable: f['include-resumable'] === true,
        includeWorktrees: f['include-worktrees'] === true,
        deleteBranches: f['delete-branches'] === true,
      }
      await (await import('./bodies/prune.js')).prune(ctx, {...input, ...more, ids: words}, null)
    } else {
      const input = {
        ids: words,
        for: f.for as 'waiting' | 'idle' | 'exited' | undefined,
        any: f.any === true,
        next: f.next === true,
        agent: f.agent as string | undefined,
        allSessions: f['all-sessions'] === true,
      }
      outcome = await (await import('./bodies/wait.js')).wait(ctx, {...input, timeout: f.timeout as number | undefined, json: f.json === true})
    }
    const code = exitOf(outcome ?? 'ok')
    if (code !== 0) process.exitCode = code
  } catch (error) {
    failed(error)
  }
  return true
}

/**
 * The commands whose first act is a look that waits for tmux as long as a look does by default (bg, resume
 * and notify change or fold first).
 */
const LOOK_FIRST = new Set(['stop', 'logs', 'usage', 'wait', 'send', 'doctor', 'prune'])

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

/**
 * `pk hook AGENT [PAYLOAD]` without oclif (with --json, or anything else, oclif's command does the same):
 * always exit 0, never a word on stdout; errors go to hook.log; a refusal (another pid namespace, unsafe
 * state) is said on stderr and writes nothing. bin/run.js set its deadline before this loaded.
 */
async function takeHook(args: string[]): Promise<boolean> {
  const ctx = createContext()
  const {logHookError, takeHookEvent} = await import('./lib/events/hook.js')
  const flags = args.filter((a) => a.startsWith('-'))
  const [agent, ...rest] = args.filter((a) => !a.startsWith('-'))
  try {
    // A misconfigured hook still never fails the agent: said in hook.log, exit 0.
    if (agent === undefined) throw new Error('pk hook was called without the agent name (pk hook AGENT [PAYLOAD]); run pk setup AGENT again')
    if (flags.length > 0) throw new Error(`pk hook does not take ${flags.join(' ')} (pk hook AGENT [PAYLOAD]); run pk setup ${agent} again`)
    const payload = rest.length > 0 ? rest.at(-1)! : await readStdin(500)
    await takeHookEvent(ctx, agent, payload)
  } catch (error) {
    if (error instanceof PkError && error.exitCode === 5) say(`pk hook: ${error.message}\n`)
    else logHookError(ctx, agent ?? '(no agent)', error)
  }
  process.exitCode = 0
  return true
}
