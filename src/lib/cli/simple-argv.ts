/**
 * The words of a command the fast path serves, parsed without oclif: only the plain forms (`--flag`,
 * `--flag VALUE`, `--flag=VALUE`, `-c`, `-c VALUE`, and words that do not start with `-`), each flag at
 * most once, every value as oclif would take it. Anything else (`--`, `--help`, an unknown or repeated flag,
 * a value oclif would refuse, the wrong number of words) is null: the argv goes to oclif, which says what is
 * wrong in its own words. So the fast path never accepts what oclif refuses, nor says it differently.
 */

export type FlagSpec =
  | {type: 'boolean'; description: string; char?: string; default?: boolean; allowNo?: true; hidden?: true}
  | {type: 'integer'; description: string; char?: string; min: number; default?: number}
  | {type: 'option'; description: string; options: readonly string[]; default?: string}
  | {type: 'string'; description: string; char?: string; hidden?: true}

/** A word a command takes (an id, an agent): its name and help as oclif shows them. */
export interface ArgSpec {
  name: string
  description: string
  required?: true
}

export interface CommandSpec {
  flags: Record<string, FlagSpec>
  /** The words besides the flags, in order; with `variadic`, the last one may come any number of times. */
  args: readonly ArgSpec[]
  variadic?: true
  /** Flags that oclif refuses together. */
  exclusive?: readonly (readonly string[])[]
  /** The command's flags left to oclif: any of them sends the argv there (parseSimple does not know them). */
  oclifOnly?: readonly string[]
  /** The words after the first `--` are not pk's (bg's command): the caller parses only those before it. */
  command?: true
}

/** How many words besides the flags a command takes. */
export function wordsOf(spec: CommandSpec): {min: number; max: number} {
  return {min: spec.args.filter((a) => a.required).length, max: spec.variadic ? Number.POSITIVE_INFINITY : spec.args.length}
}

/** A flag's value once parsed, as its spec types it: so a command's input names only flags it has. */
export type FlagValue<F extends FlagSpec> = F extends {type: 'boolean'}
  ? boolean
  : F extends {type: 'integer'; default: number}
    ? number
    : F extends {type: 'integer'}
      ? number | undefined
      : F extends {type: 'option'; options: readonly (infer O extends string)[]; default: string}
        ? O
        : F extends {type: 'option'; options: readonly (infer O extends string)[]}
          ? O | undefined
          : string | undefined

export interface Parsed<S extends CommandSpec = CommandSpec> {
  flags: {[K in keyof S['flags']]: FlagValue<S['flags'][K]>}
  words: string[]
  /** The words after the command's name as given (bg reads its command and --cwd from them byte for byte). */
  argv: readonly string[]
}

/**
 * Pure: every flag of the spec with its value as given, else its default (a boolean not given is false):
 * what both parsers hand a command's input, so neither sees an undefined the other would not.
 */
export function withDefaults<S extends CommandSpec>(spec: S, given: Record<string, unknown>): Parsed<S>['flags'] {
  const flags: Record<string, unknown> = {}
  for (const [name, flag] of Object.entries(spec.flags)) {
    flags[name] = given[name] !== undefined ? given[name] : 'default' in flag ? flag.default : flag.type === 'boolean' ? false : undefined
  }
  return flags as Parsed<S>['flags']
}

/** Pure: the argv (after the command's name) by the spec, or null where only oclif may answer. */
export function parseSimple<S extends CommandSpec>(argv: readonly string[], spec: S): Parsed<S> | null {
  const flags: Record<string, string | number | boolean> = {}
  const words: string[] = []
  const byChar = new Map(Object.entries(spec.flags).flatMap(([name, f]) => ('char' in f && f.char ? [[f.char, name] as const] : [])))
  // bg: only the words before the first `--` are pk's; the rest is the command, byte for byte.
  const split = spec.command ? argv.indexOf('--') : -1
  const own = split === -1 ? argv : argv.slice(0, split)
  for (let i = 0; i < own.length; i++) {
    const token = own[i]!
    if (!token.startsWith('-')) {
      words.push(token)
      continue
    }
    const long = /^--([a-z][a-z-]*)(?:=(.*))?$/s.exec(token)
    // `--no-NAME` for a flag that allows it (oclif's allowNo): NAME false.
    const negated = long !== null && long[2] === undefined && long[1]!.startsWith('no-') && !Object.hasOwn(spec.flags, long[1]!)
    const name = long ? (negated ? long[1]!.slice(3) : long[1]!) : /^-[a-zA-Z]$/.test(token) ? byChar.get(token[1]!) : undefined
    const flag = name === undefined || !Object.hasOwn(spec.flags, name) ? undefined : spec.flags[name]
    if (name === undefined || flag === undefined || name in flags) return null
    if (negated && !(flag.type === 'boolean' && flag.allowNo)) return null
    if (flag.type === 'boolean') {
      if (long?.[2] !== undefined) return null
      flags[name] = !negated
      continue
    }
    const value = long?.[2] ?? own[++i]
    if (value === undefined || value === '' || (long?.[2] === undefined && value.startsWith('-'))) return null
    const taken = valueOf(flag, value)
    if (taken === null) return null
    flags[name] = taken
  }
  const {min, max} = wordsOf(spec)
  if (words.length < min || words.length > max) return null
  if (spec.exclusive?.some((group) => group.filter((f) => f in flags).length > 1)) return null
  return {flags: withDefaults(spec, flags), words, argv}
}

function valueOf(flag: Exclude<FlagSpec, {type: 'boolean'}>, value: string): string | number | null {
  if (flag.type === 'string') return value
  if (flag.type === 'option') return flag.options.includes(value) ? value : null
  if (!/^\d{1,15}$/.test(value)) return null
  const n = Number(value)
  return n >= flag.min ? n : null
}

/**
 * Pure: the first word of `argv` (before a `--`) that gives a boolean flag a value (`--enter=false`,
 * `-f=0`), with the flag's name; null when there is none. A boolean flag takes no value: oclif took
 * `--force=false` for `--force` and the word `false`, so "false" meant true. `--no-NAME` says no.
 */
export function booleanGivenValue(argv: readonly string[], booleans: readonly {name: string; char?: string}[]): {token: string; name: string} | null {
  for (const token of argv) {
    if (token === '--') return null
    const long = /^--([a-z][a-z0-9-]*)=/s.exec(token)?.[1]
    const short = /^-([a-zA-Z])=/.exec(token)?.[1]
    const found =
      long !== undefined
        ? (booleans.find((b) => b.name === long) ?? booleans.find((b) => long.startsWith('no-') && b.name === long.slice(3)))
        : booleans.find((b) => b.char !== undefined && b.char === short)
    if (found) return {token, name: found.name}
  }
  return null
}
