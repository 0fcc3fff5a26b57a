import {describe, expect, it} from 'vitest'

import {BUILTIN_PRESETS} from '../../../src/lib/agents/presets.js'
import {ancestry} from '../../../src/lib/proc/ancestry.js'
import {findCaller} from '../../../src/lib/verbs/handoff.js'
import {VIEW} from '../../helpers/fixtures.js'

describe('finding the session a hook runs in', () => {
  const stats = new Map([
    [40, {ppid: 30, startTime: 400}],
    [30, {ppid: 20, startTime: 300}],
    [20, {ppid: 10, startTime: 200}],
    [10, {ppid: 5, startTime: 100}],
  ])
  const chain = ancestry(40, (pid) => stats.get(pid) ?? null)
  const argv = (pid: number) => ({40: ['pk', 'hook'], 30: ['sh', '-c', 'pk hook claude'], 20: ['claude'], 10: ['bash']})[pid] ?? null

  it('finds the calling agent for a handoff', () => {
    expect(findCaller({chain, view: VIEW, records: [], argv, presets: BUILTIN_PRESETS})).toMatchObject({pid: 20, agent: 'claude'})
    expect(findCaller({chain, view: VIEW, records: [], argv, presets: BUILTIN_PRESETS, agentName: 'pi'})).toBeNull()
  })
})
