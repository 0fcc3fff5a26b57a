import {describe, expect, it} from 'vitest'

describe('fast path flags', async () => {
  const {parseLsArgv: parseLsFlags} = await import('../../src/descriptors/ls.js')
  it('takes only the flags it knows, and leaves the rest to oclif', () => {
    const none = {states: null, attention: false, agent: null, ids: false, headers: true, count: false, columns: null, changes: false, tree: false}
    expect(parseLsFlags([])).toEqual({json: false, all: false, format: 'table', color: false, ...none})
    expect(parseLsFlags(['--json', '-a'])).toEqual({json: true, all: true, format: 'table', color: false, ...none})
    expect(parseLsFlags(['--format', 'short', '--color'])).toEqual({json: false, all: false, format: 'short', color: true, ...none})
    expect(parseLsFlags(['--format=short'])).toMatchObject({format: 'short'})
    expect(parseLsFlags(['-o', 'id, STATE,label', '--no-headers'])).toMatchObject({columns: ['id', 'state', 'label'], headers: false})
    expect(parseLsFlags(['--count', '--agent', 'claude'])).toMatchObject({count: true, agent: 'claude'})
    expect(parseLsFlags(['--tree'])).toMatchObject({tree: true})
    // The changes column is measured when it is asked for, --changes or not.
    expect(parseLsFlags(['-o', 'id,changes'])).toMatchObject({columns: ['id', 'changes'], changes: true})
    expect(parseLsFlags(['-o', 'id,state'])).toMatchObject({changes: false})
    for (const argv of [['--watch'], ['--help'], ['--format'], ['--format', 'long'], ['extra'], ['--json=false'], ['-o', 'id,nope'], ['-o', ',']])
      expect(parseLsFlags(argv)).toBeNull()
  })
})
