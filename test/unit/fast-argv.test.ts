import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {FAST_COMMANDS} from '../../src/fast-argv.js'

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
