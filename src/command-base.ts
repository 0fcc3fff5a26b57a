import {Args, Command, Flags} from '@oclif/core'
import type {Interfaces} from '@oclif/core'

// (oclif's own, which it does not export)
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type FlagOutput = {[name: string]: any}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ArgOutput = {[name: string]: any}
type Input<F extends FlagOutput, B extends FlagOutput, A extends ArgOutput> = Interfaces.Input<F, B, A>
type ParserOutput<F extends FlagOutput, B extends FlagOutput, A extends ArgOutput> = Interfaces.ParserOutput<F, B, A>

import {Context} from './lib/config/context.js'
import {describeError, exitOf, Outcome, PkError} from './lib/model/errors.js'
import {createContext} from './invocation/context.js'
import {usageLine} from './lib/cli/suggest.js'
import {booleanGivenValue, CommandSpec, FlagSpec, Parsed, withDefaults} from './lib/cli/simple-argv.js'
import type {Descriptor} from './descriptors/descriptor.js'
import {printJson, say} from './invocation/output.js'

/**
 * What every command stands on: the invocation's context, built here once, and the one way out. A command's
 * `execute` returns how it ended (an Outcome) or throws; this turns either into the message and the
 * documented exit code. No command picks an exit or builds a context.
 */
export abstract class PkCommand extends Command {
  protected readonly ctx: Context = createContext()

  /** The command's work: how it ended, or nothing for plain success. A thrown error ends it through `catch`. */
  protected abstract execute(): Promise<Outcome | void>

  async run(): Promise<void> {
    const code = exitOf((await this.execute()) ?? 'ok')
    // Success leaves the exit alone: standard output that failed meanwhile (a full disk) has made it 1.
    if (code !== 0) process.exitCode = code
  }

  /** oclif's parse, but a boolean flag given a value (`--force=false`) is a usage error before anything is done. */
  protected override async parse<F extends FlagOutput, B extends FlagOutput, A extends ArgOutput>(
    options?: Input<F, B, A>,
    argv: string[] = this.argv,
  ): Promise<ParserOutput<F, B, A>> {
    const booleans = Object.entries(options?.flags ?? {}).flatMap(([name, flag]) =>
      (flag as {type?: string}).type === 'boolean' ? [{name, char: (flag as {char?: string}).char, allowNo: (flag as {allowNo?: boolean}).allowNo}] : [],
    )
    const bad = booleanGivenValue(argv, booleans)
    if (bad !== null) {
      const no = booleans.find((b) => b.name === bad.name)?.allowNo ? `--no-${bad.name} says no` : `leave it out to say no`
      throw new PkError('bad-flags', `${bad.token}: --${bad.name} takes no value (${no}); nothing was done`)
    }
    return super.parse(options, argv)
  }

  /**
   * The command's words parsed by oclif (its flags and args made from the descriptor's spec), as the
   * descriptor's input takes them: every flag of the spec with its value or default, the words in order,
   * and `given` (default: the words as given) for what reads them byte for byte. `raw` is oclif's own
   * output, for the flags only oclif's command has.
   */
  protected async parseBy<S extends CommandSpec>(
    descriptor: Pick<Descriptor<S, unknown>, 'spec'>,
    argv: string[] = this.argv,
    given: readonly string[] = this.argv,
  ): Promise<{parsed: Parsed<S>; raw: Record<string, unknown>}> {
    const own = this.constructor as unknown as Input<FlagOutput, FlagOutput, ArgOutput>
    const {flags, argv: words} = await this.parse({flags: own.flags, args: own.args, strict: own.strict}, argv)
    return {parsed: {flags: withDefaults(descriptor.spec, flags), words: words.map(String), argv: given}, raw: flags}
  }

  /** One more line for a usage error, where the command has something to say (bg: the agent's words go after --). */
  protected usageHint(_message: string): string | null {
    return null
  }

  protected override async catch(error: Error & {exitCode?: number; oclif?: unknown}): Promise<unknown> {
    if (process.env.PK_DEBUG && !(error instanceof PkError)) return super.catch(error)
    // oclif's own parse errors (a flag it does not know, a missing value): one line in pk's style and the
    // command that helps, exit 2; no usage dump for one wrong word.
    if (!(error instanceof PkError) && error.oclif !== undefined) {
      const exit = (error.oclif as {exit?: number}).exit
      if (exit === 0 || exit === undefined) return super.catch(error)
      const flags = Object.keys((this.constructor as {flags?: Record<string, unknown>}).flags ?? {})
      const first = usageLine(error.message, flags)
      const hint = this.usageHint(first)
      say(`pk: ${first}${hint ? `; ${hint}` : ''} (pk ${this.id ?? ''} --help)\n`.replace(' ( --help)', ' (pk --help)').replace('(pk  --help)', '(pk --help)'))
      // Out through oclif's exit with its code (2 for usage errors), as its own errors go: nothing more is printed.
      return this.exit(exit)
    }
    // Standard output that cannot be written (a full disk): bin/run.js says so once; nothing more to say.
    if ((error as NodeJS.ErrnoException).syscall === 'write' && process.exitCode === 1) return
    const {message, exitCode} = describeError(error)
    say(`pk: ${message}\n`)
    process.exitCode = exitCode
  }

  protected printJson(value: unknown): void {
    printJson(value)
  }
}

/** oclif's flags, made from a descriptor's spec (the command adds those only it has). */
export function oclifFlags(spec: CommandSpec): Interfaces.FlagInput {
  const exclusive = (name: string) => spec.exclusive?.find((group) => group.includes(name))?.filter((other) => other !== name)
  return Object.fromEntries(Object.entries(spec.flags).map(([name, flag]) => [name, oclifFlag(flag, exclusive(name))]))
}

function oclifFlag(flag: FlagSpec, exclusive: string[] | undefined) {
  const common = {description: flag.description, ...(exclusive ? {exclusive} : {}), ...('hidden' in flag && flag.hidden ? {hidden: true} : {})}
  const char = 'char' in flag && flag.char ? {char: flag.char as Interfaces.AlphabetLowercase} : {}
  if (flag.type === 'boolean')
    return Flags.boolean({...common, ...char, ...(flag.default === undefined ? {} : {default: flag.default}), ...(flag.allowNo ? {allowNo: true} : {})})
  if (flag.type === 'integer') return Flags.integer({...common, ...char, min: flag.min, ...(flag.default === undefined ? {} : {default: flag.default})})
  if (flag.type === 'option') return Flags.option({...common, options: flag.options, ...(flag.default === undefined ? {} : {default: flag.default})})()
  return Flags.string({...common, ...char})
}

/** oclif's args, made from a descriptor's spec; `descriptions` replaces what only the command can say (bg's presets). */
export function oclifArgs(spec: CommandSpec, descriptions: Record<string, string> = {}): Interfaces.ArgInput {
  return Object.fromEntries(
    spec.args.map((arg) => [arg.name, Args.string({description: descriptions[arg.name] ?? arg.description, ...(arg.required ? {required: true} : {})})]),
  )
}

/** Whether oclif counts the words: not where they may be many, nor where a command follows `--` (bg). */
export const oclifStrict = (spec: CommandSpec): boolean => !spec.variadic && !spec.command

export {JSON_SCHEMA_VERSION, schemaHead} from './lib/model/contract.js'
