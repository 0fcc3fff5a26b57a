import {Config} from '@oclif/core'
import {beforeAll, describe, expect, it} from 'vitest'

import type {PkCommand} from '../../src/command-base.js'
import type {Descriptor} from '../../src/descriptors/descriptor.js'
import {DESCRIPTORS} from '../../src/descriptors/index.js'
import {lsOptions, lsSpec} from '../../src/descriptors/ls.js'
import {CommandSpec, FlagSpec, parseSimple, Parsed} from '../../src/lib/cli/simple-argv.js'
import {ROOT} from '../helpers/sandbox.js'

/** Words a command needs besides its flags: an id for each required word. */
const wordsFor = (spec: CommandSpec) => spec.args.filter((a) => a.required).map((_, i) => (i === 0 ? 'ab12' : 'hello'))

/** Every form the fast path takes of one flag: long, short, with `=`, each option, --no-NAME. */
function forms(name: string, flag: FlagSpec): string[][] {
  const short = 'char' in flag && flag.char ? [`-${flag.char}`] : []
  if (flag.type === 'boolean') return [[`--${name}`], ...short.map((s) => [s]), ...(flag.allowNo ? [[`--no-${name}`]] : [])]
  const strings = name === 'output' ? ['id,state', 'label'] : ['some value', '3d'] // (ls -o takes column names)
  const values = flag.type === 'integer' ? [String(flag.min), String(flag.min + 7)] : flag.type === 'option' ? [...flag.options] : strings
  return values.flatMap((v) => [[`--${name}`, v], [`--${name}=${v}`], ...short.map((s) => [s, v])])
}

describe('every flag of every fast command means the same on the fast path and through oclif', () => {
  let config: Config
  beforeAll(async () => {
    config = await Config.load(ROOT)
  })

  /** The descriptor's input from oclif's parse of the command's own flags and args (made from the spec). */
  async function viaOclif(name: string, descriptor: Descriptor, argv: string[]): Promise<unknown> {
    const Command = (await import(`../../src/commands/${name}.ts`)).default as new (argv: string[], config: Config) => PkCommand
    const command = new Command(argv, config) as unknown as {parseBy(d: Descriptor, argv: string[], given: string[]): Promise<{parsed: Parsed}>}
    return descriptor.input((await command.parseBy(descriptor, argv, argv)).parsed)
  }

  // ls: its flags by its spec, its input the presenters' options (its body is the fast path's own).
  const all: Record<string, Descriptor> = {...DESCRIPTORS, ls: {spec: lsSpec, input: lsOptions, looksFirst: true, run: async () => {}} as unknown as Descriptor}

  it.each(Object.keys(all))('%s', async (name) => {
    const descriptor = all[name]!
    const {spec} = descriptor
    const words = wordsFor(spec)
    const argvs = [words, ...Object.entries(spec.flags).flatMap(([flag, def]) => forms(flag, def).map((form) => [...words, ...form]))]
    // (and every flag at once, where they may go together: the first of each exclusive group)
    const together = Object.entries(spec.flags)
      .filter(([flag]) => !spec.exclusive?.some((group) => group.indexOf(flag) > 0))
      .flatMap(([flag, def]) => forms(flag, def)[0]!)
    argvs.push([...words, ...together])
    for (const argv of argvs) {
      const fast = parseSimple(argv, spec)
      expect({argv, fast: fast !== null}).toEqual({argv, fast: true})
      expect({argv, input: await viaOclif(name, descriptor, argv)}).toEqual({argv, input: descriptor.input(fast!)})
    }
    // Flags one refuses together, both refuse.
    for (const group of spec.exclusive ?? []) {
      const argv = [...words, ...group.map((flag) => `--${flag}`)]
      expect(parseSimple(argv, spec)).toBeNull()
      await expect(viaOclif(name, descriptor, argv)).rejects.toThrow()
    }
  })

  it("oclif's command has the spec's flags and those only it serves, no more", async () => {
    const manifest = (await import('../../oclif.manifest.json', {with: {type: 'json'}})).default as {
      commands: Record<string, {flags: Record<string, unknown>; args: Record<string, {required?: boolean}>}>
    }
    for (const [name, {spec}] of Object.entries(all)) {
      const oclif = manifest.commands[name]!
      const flags = Object.keys(oclif.flags).filter((flag) => flag !== 'help')
      expect({name, flags: flags.sort()}).toEqual({name, flags: [...Object.keys(spec.flags), ...(spec.oclifOnly ?? [])].sort()})
      expect({name, args: Object.keys(oclif.args)}).toEqual({name, args: spec.args.map((a) => a.name)})
      for (const flag of spec.oclifOnly ?? []) expect(parseSimple([...wordsFor(spec), `--${flag}`], spec)).toBeNull()
    }
  })
})
