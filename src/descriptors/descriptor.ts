import type {CommandSpec, Parsed} from '../lib/cli/simple-argv.js'
import type {Context} from '../lib/config/context.js'
import type {Outcome} from '../lib/model/errors.js'

/**
 * One command, written once: its flags and words (one typed spec), how its parsed words become its input
 * (typed by the spec, so a misspelt flag does not compile), and its body. The oclif command makes its
 * `flags` and `args` from the spec (command-base.ts) and the fast path finds it in the table
 * (descriptors/index.ts); both hand the body the same input, so they agree by construction. Nothing here
 * loads oclif: the fast path bundles these.
 */
export interface Descriptor<S extends CommandSpec = CommandSpec, I = unknown> {
  spec: S
  input(parsed: Parsed<S>): I
  /**
   * What only oclif's command does (a person at a terminal: task lists, questions): true sends this
   * invocation there, parsed or not.
   */
  forOclif?(input: I, terminal: {stdin: boolean; stdout: boolean}): boolean
  /**
   * Whether the command's first act is a look that waits for tmux as long as a look does by default: the
   * fast path then starts listing tmux's servers while the body's code loads (bg, resume and notify change
   * or fold first).
   */
  looksFirst: boolean
  run(ctx: Context, input: I): Promise<Outcome | void>
}

/** A descriptor, its spec's literal types kept (the flag names and option values its input is checked by). */
export function describeCommand<const S extends CommandSpec, I>(descriptor: Descriptor<S, I>): Descriptor<S, I> {
  return descriptor
}
