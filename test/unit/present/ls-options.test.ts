import {describe, expect, it} from 'vitest'

describe('ls option checks (issue #23)', () => {
  it('refuse what means nothing, on both paths (exit 2), and parse the filters on the fast path', async () => {
    const {checkLsOptions, checkWatchOptions} = await import('../../../src/lib/present/ls-options.js')
    const {parseLsArgv} = await import('../../../src/descriptors/ls.js')
    const {LS_DEFAULTS} = await import('../../../src/lib/present/listing.js')
    expect(() => checkLsOptions({...LS_DEFAULTS, ids: true, json: true})).toThrow(/--json and --ids are two different outputs/)
    expect(() => checkLsOptions({...LS_DEFAULTS, count: true, columns: ['id'], json: true})).toThrow(/--json, --count and -o are 3 different outputs/)
    expect(() => checkLsOptions({...LS_DEFAULTS, headers: false, json: true})).toThrow(/--no-headers goes with the table or -o/)
    expect(() => checkLsOptions({...LS_DEFAULTS, headers: false, columns: ['id']})).not.toThrow()
    expect(() => checkWatchOptions({...LS_DEFAULTS, json: true, count: true})).toThrow(/--count, -o/)
    expect(() => checkLsOptions({...LS_DEFAULTS, states: ['sleepy']})).toThrow(/the states are working, waiting, limited, idle, exited, unknown/)
    expect(() => checkWatchOptions({...LS_DEFAULTS, json: true, format: 'short'})).toThrow(/--watch streams JSON events/)
    expect(() => checkWatchOptions({...LS_DEFAULTS, json: true, states: ['waiting']})).not.toThrow()
    expect(parseLsArgv(['--state', 'waiting, idle', '-q', '--agent', 'claude', '--attention'])).toMatchObject({
      states: ['waiting', 'idle'],
      ids: true,
      agent: 'claude',
      attention: true,
      headers: true,
    })
    expect(parseLsArgv(['--no-headers'])).toMatchObject({headers: false})
  })
})
