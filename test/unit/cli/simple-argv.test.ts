import {describe, expect, it} from 'vitest'

import {sendCommand} from '../../../src/descriptors/send.js'
import {waitCommand} from '../../../src/descriptors/wait.js'
import {booleanGivenValue, CommandSpec, parseSimple} from '../../../src/lib/cli/simple-argv.js'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {ROOT} from '../../helpers/sandbox.js'

const spec: CommandSpec = {
  flags: {
    n: {type: 'integer', char: 'n', min: 1, default: 200, description: 'n'},
    json: {type: 'boolean', description: 'json'},
    by: {type: 'option', options: ['a', 'b'], default: 'a', description: 'by'},
    since: {type: 'string', description: 'since'},
  },
  args: [{name: 'id', description: 'id', required: true}],
}

describe('parseSimple: the plain forms, or null for oclif', () => {
  it('takes long and short flags, with a value after a space or an =, and fills the defaults', () => {
    expect(parseSimple(['ab12'], spec)).toEqual({flags: {n: 200, json: false, by: 'a', since: undefined}, words: ['ab12'], argv: ['ab12']})
    const argv = ['--json', 'ab12', '-n', '5', '--by=b', '--since', '3d']
    expect(parseSimple(argv, spec)).toEqual({flags: {n: 5, json: true, by: 'b', since: '3d'}, words: ['ab12'], argv})
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
    expect(parseSimple(['ab12', 'hi', '--no-enter'], sendCommand.spec)?.flags.enter).toBe(false)
    expect(parseSimple(['ab12', 'hi'], sendCommand.spec)?.flags.enter).toBe(true)
    expect(parseSimple(['ab12', 'hi', '--no-enter', '--enter'], sendCommand.spec)).toBeNull()
    expect(parseSimple(['ab12', 'hi', '--no-json'], sendCommand.spec)).toBeNull()
    expect(parseSimple(['ab12', 'hi', '--no-enter=x'], sendCommand.spec)).toBeNull()
  })
  it('refuses flags oclif refuses together', () => {
    expect(parseSimple(['ab12', '--all', '--any'], waitCommand.spec)).toBeNull()
    expect(parseSimple(['ab12', '--any'], waitCommand.spec)?.flags.any).toBe(true)
  })
})

describe('booleanGivenValue: a boolean flag given a value is found before anything is done', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
    commands: Record<string, {flags: Record<string, {type: string; char?: string}>}>
  }
  it('every boolean flag of every command, with =false, =true, =0 and =no, long and short', () => {
    let checked = 0
    for (const spec of Object.values(manifest.commands)) {
      const booleans = Object.entries(spec.flags).flatMap(([name, f]) => (f.type === 'boolean' ? [{name, char: f.char}] : []))
      for (const {name, char} of booleans)
        for (const value of ['false', 'true', '0', 'no']) {
          expect(booleanGivenValue(['x', `--${name}=${value}`], booleans)).toEqual({token: `--${name}=${value}`, name})
          if (char) expect(booleanGivenValue([`-${char}=${value}`], booleans)).toEqual({token: `-${char}=${value}`, name})
          checked++
        }
    }
    expect(checked).toBeGreaterThan(150)
  })

  it('--no-NAME=..., a flag named no-NAME, and nothing after --', () => {
    const booleans = [{name: 'enter'}, {name: 'no-headers'}, {name: 'force', char: 'f'}]
    expect(booleanGivenValue(['--no-enter=1'], booleans)).toEqual({token: '--no-enter=1', name: 'enter'})
    expect(booleanGivenValue(['--no-headers=false'], booleans)).toEqual({token: '--no-headers=false', name: 'no-headers'})
    expect(booleanGivenValue(['--', '--force=false'], booleans)).toBeNull()
    expect(booleanGivenValue(['--force', 'false', '--timeout=3', '--cwd=/x'], booleans)).toBeNull()
  })
})
