import {Command} from '@oclif/core'
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
import {createContext} from './context.js'
import {usageLine} from './lib/cli/suggest.js'
import {booleanGivenValue} from './lib/cli/simple-argv.js'
import {printJson, say} from './output.js'

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

  /** End the process successfully in `ms`, whatever still pends: for `pk hook`, which an agent waits on. */
  protected succeedAt(ms: number): void {
    setTimeout(() => process.exit(0), ms).unref()
  }

  protected printJson(value: unknown): void {
    printJson(value)
  }
}

export {JSON_SCHEMA_VERSION, schemaHead} from './lib/model/contract.js'
