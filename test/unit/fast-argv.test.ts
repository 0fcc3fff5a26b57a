import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {CommandSpec, FAST_COMMANDS, parseSimple} from '../../src/fast-argv.js'

const spec: CommandSpec = {
  flags: {
    n: {type: 'integer', char: 'n', min: 1, default: 200},
    json: {type: 'boolean'},
    by: {type: 'option', options: ['a', 'b'], default: 'a'},
    since: {type: 'string'},
  },
  words: {min: 1, max: 1},
}

describe('parseSimple: the plain forms, or null for oclif', () => {
  it('takes long and short flags, with a value after a space or an =, and fills the defaults', () => {
    expect(parseSimple(['ab12'], spec)).toEqual({flags: {n: 200, json: false, by: 'a', since: undefined}, words: ['ab12']})
    expect(parseSimple(['--json', 'ab12', '-n', '5', '--by=b', '--since', '3d'], spec)).toEqual({
      flags: {n: 5, json: true, by: 'b', since: '3d'},
      words: ['ab12'],
    })
    expect(parseSimple(['ab12', '--n=007', '--since=-3d'], spec)?.flags).toMatchObject({n: 7, since: '-3d'})
  })
  it.each([
    [['ab12', '--help']],
    [['ab12', '-h']],
    [['--', 'ab12']],
    [['ab12', '--nope']],
    [['ab12', '-x']],
    [['ab12', '-n5']],
    [['ab12', '--json', '--json']],
    [['ab12', '--json=true']],
    [['ab12', '-n', '0']],
    [['ab12', '-n', '-1']],
    [['ab12', '-n', '1.5']],
    [['ab12', '-n']],
    [['ab12', '--by', 'c']],
    [['ab12', '--since', '']],
    [['ab12', '--since', '-3d']],
    [[]],
    [['ab12', 'cd34']],
    [['-5']],
    [['ab12', '--constructor']],
  ])('%j goes to oclif', (argv) => {
    expect(parseSimple(argv, spec)).toBeNull()
  })
  it('takes --no-NAME only for a flag that allows it', () => {
    expect(parseSimple(['ab12', 'hi', '--no-enter'], FAST_COMMANDS.send)?.flags.enter).toBe(false)
    expect(parseSimple(['ab12', 'hi'], FAST_COMMANDS.send)?.flags.enter).toBe(true)
    expect(parseSimple(['ab12', 'hi', '--no-enter', '--enter'], FAST_COMMANDS.send)).toBeNull()
    expect(parseSimple(['ab12', 'hi', '--no-json'], FAST_COMMANDS.send)).toBeNull()
    expect(parseSimple(['ab12', 'hi', '--no-enter=x'], FAST_COMMANDS.send)).toBeNull()
  })
  it('refuses flags oclif refuses together', () => {
    expect(parseSimple(['ab12', '--all', '--any'], FAST_COMMANDS.wait)).toBeNull()
    expect(parseSimple(['ab12', '--any'], FAST_COMMANDS.wait)?.flags.any).toBe(true)
  })
})

describe("the fast path's specs say what the oclif commands say", () => {
  const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'oclif.manifest.json'), 'utf8')) as {
    commands: Record<
      string,
      {
        strict?: boolean
        args: Record<string, {required?: boolean}>
        flags: Record<string, {type: string; char?: string; options?: string[]; default?: unknown; exclusive?: string[]; allowNo?: boolean}>
      }
    >
  }
  it.each(Object.keys(FAST_COMMANDS))('%s', async (name) => {
    const fast = FAST_COMMANDS[name as keyof typeof FAST_COMMANDS]
    const oclif = manifest.commands[name]!
    const visible = Object.entries(oclif.flags).filter(([flag]) => flag !== 'help')
    expect([...Object.keys(fast.flags), ...(fast.oclifOnly ?? [])].sort()).toEqual(visible.map(([flag]) => flag).sort())
    // (the manifest leaves out a boolean's default: the command's own definition has it)
    const Command = (await import(`../../src/commands/${name}.ts`)).default as {
      flags: Record<string, {default?: unknown; parse?: (v: string, ...rest: unknown[]) => Promise<unknown>}>
    }
    for (const [flag, def] of visible) {
      if (fast.oclifOnly?.includes(flag)) continue
      const mine = fast.flags[flag]!
      expect({flag, type: mine.type === 'boolean' ? 'boolean' : 'option'}).toEqual({flag, type: def.type})
      expect({flag, char: 'char' in mine ? mine.char : undefined}).toEqual({flag, char: def.char})
      expect({flag, options: 'options' in mine ? [...mine.options] : undefined}).toEqual({flag, options: def.options})
      if (mine.type === 'boolean') expect({flag, default: mine.default ?? false}).toEqual({flag, default: Command.flags[flag]!.default ?? false})
      else expect({flag, default: 'default' in mine ? mine.default : undefined}).toEqual({flag, default: def.default})
      expect({flag, allowNo: 'allowNo' in mine && mine.allowNo === true}).toEqual({flag, allowNo: def.allowNo === true})
      if (def.exclusive) expect(fast.exclusive?.some((group) => group.includes(flag) && def.exclusive!.every((other) => group.includes(other)))).toBe(true)
    }
    const required = Object.values(oclif.args).filter((a) => a.required).length
    expect(fast.words.min).toBe(required)
    // (bg's words after `--` are its command, not oclif's arguments)
    expect(fast.words.max).toBe(oclif.strict === false && !fast.command ? Infinity : Object.keys(oclif.args).length)
    // Integers: oclif's own parser takes the least value the fast path takes, and refuses one less.
    for (const [flag, mine] of Object.entries(fast.flags)) {
      if (mine.type !== 'integer') continue
      const definition = Command.flags[flag]!
      const parse = (value: string) => definition.parse!(value, {}, definition)
      await expect(parse(String(mine.min))).resolves.toBe(mine.min)
      await expect(parse(String(mine.min - 1))).rejects.toThrow()
      await expect(parse('1.5')).rejects.toThrow()
    }
  })
})
