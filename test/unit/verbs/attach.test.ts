import {describe, expect, it} from 'vitest'

import {checkAttachable} from '../../../src/lib/verbs/attach.js'
import {SessionRow} from '../../../src/lib/model/contract.js'
import {PkError} from '../../../src/lib/model/errors.js'

const row = (id: string, over: Partial<SessionRow> = {}): SessionRow => ({
  id,
  kind: 'recorded',
  agent: null,
  label: null,
  state: 'unknown',
  stateSource: 'none',
  attention: false,
  verified: true,
  conflict: false,
  pid: 1,
  cwd: '/',
  command: ['x'],
  startedAt: null,
  attached: false,
  resume: null,
  record: null,
  exitReason: null,
  agentSource: null,
  exitStatus: null,
  resumedBy: null,
  attentionSince: null,
  worktree: null,
  usage: null,
  notVerifiedJustNow: null,
  tmux: {socket: '/s', session: 'x', sessionId: '$1', window: '@1', pane: '%1', lastAttached: null, lastDetached: null, activity: null},
  ...over,
})

function exitOf(fn: () => unknown): number | undefined {
  try {
    fn()
  } catch (error) {
    return (error as PkError).exitCode
  }
  return undefined
}

describe('checkAttachable', () => {
  it('refuses conflicts (4), exited sessions (3) and unverified ones (5)', () => {
    expect(exitOf(() => checkAttachable(row('a', {conflict: true, verified: false})))).toBe(4)
    expect(exitOf(() => checkAttachable(row('a', {state: 'exited', tmux: null})))).toBe(3)
    expect(exitOf(() => checkAttachable(row('a', {verified: false})))).toBe(5)
    expect(exitOf(() => checkAttachable(row('a')))).toBeUndefined()
  })
})
