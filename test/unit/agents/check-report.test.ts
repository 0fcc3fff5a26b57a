import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {drift, readingOf} from '../../agents/report.js'
import {PANE_FIXTURES} from '../../helpers/pane-fixtures.js'

/** The agents' check's drift report (test/agents/report.ts): what a new release reads otherwise is named first. */
describe("the agents' check on a newer release", () => {
  const fixture = (name: string) => readFileSync(join(PANE_FIXTURES, name), 'utf8')
  it("reads a limit as part of a screen's reading: a glyph moved under a limit line reads differently", () => {
    const limit = fixture('claude-2.1.337.limited.api-rate-limit.txt')
    expect(JSON.parse(readingOf('claude', limit))).toMatchObject({limit: {what: 'rate limit'}})
    expect(JSON.parse(readingOf('claude', limit.replace('\u2237 API Error', '\u2042 API Error')))).toMatchObject({limit: null})
  })
  it('names the screen a failed step waited on, against the pinned fixture; screens that read alike are new, not drifted', () => {
    const moved = fixture('claude-2.1.337.limited.api-rate-limit.txt').replace('\u2237 API Error', '\u2042 API Error')
    const standing = new Map([
      ['limited.api-rate-limit', {screen: moved, artifact: 'a/056.txt', failed: true}],
      ['idle.prompt', {screen: fixture('claude-2.1.337.idle.prompt.txt'), artifact: 'a/004.txt'}],
    ])
    expect(drift('claude', '9.9.9', '2.1.337', standing)).toEqual([
      {
        fixture: 'claude-9.9.9.limited.api-rate-limit.txt',
        status: 'reads-differently',
        against: 'claude-2.1.337.limited.api-rate-limit.txt',
        artifact: 'a/056.txt',
        failed: true,
      },
      {fixture: 'claude-9.9.9.idle.prompt.txt', status: 'new', against: 'claude-2.1.337.idle.prompt.txt', artifact: 'a/004.txt'},
    ])
  })
})

describe("a failed step's words", () => {
  it('say what pk said all along the wait, as runs: not only its last look', async () => {
    const {Said} = await import('../../agents/lab.js')
    const said = new Said()
    const look = (at: number, state: string, stateSource: string) => ({at, step: 's', screen: '', row: {state, stateSource} as never})
    said.saw(look(0, 'working', 'hook'))
    said.saw(look(16_000, 'working', 'hook'))
    said.saw(look(16_500, 'idle', 'pane'))
    said.saw(look(18_600, 'idle', 'pane'))
    expect(String(said)).toBe('pk said working (hook) 16 s, then idle (pane) 2 s')
  })
})
