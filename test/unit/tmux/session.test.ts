import {describe, expect, it} from 'vitest'

import {
  candidateNames,
  environmentFlags,
  formatLiteral,
  paneTail,
  parseEnvironmentNames,
  safeSessionName,
  variablesToUnset,
} from '../../../src/lib/tmux/session.js'

describe('session helpers', () => {
  it.each([
    ['my "odd" name;', 'my-odd-name'],
    ['a.b:c', 'a-b-c'],
    ['line\nbreak', 'line-break'],
    ['', 'pk'],
    [';;;', 'pk'],
    ['x'.repeat(80), 'x'.repeat(40)],
  ])('makes %j a safe tmux name', (label, name) => expect(safeSessionName(label)).toBe(name))

  it('passes the caller environment but not its tmux client', () => {
    const flags = environmentFlags({PATH: '/bin', TMUX: '/tmp/x,1,0', TMUX_PANE: '%1', KEY: 'a;b\nc', UNSET: undefined})
    expect(flags).toEqual(['-e', 'PATH=/bin', '-e', 'KEY=a;b\nc'])
  })

  it('removes from the pane what only the server environment has', () => {
    expect(parseEnvironmentNames('PATH=/bin\n-GONE\nODD=a=b\n\n')).toEqual(['PATH', 'ODD'])
    expect(variablesToUnset(['PATH', 'SECRET', 'TMUX', 'bad-name', 'LINES'], {PATH: '/bin', LINES: '40'})).toEqual(['SECRET', 'LINES'])
  })

  it('never runs out of session names, and keeps # literal in a start directory', () => {
    const names = candidateNames('claude', () => 'abc123')
    expect(names.slice(0, 3)).toEqual(['claude', 'claude-2', 'claude-3'])
    expect(names.at(-1)).toBe('claude-abc123')
    expect(formatLiteral('/tmp/#(touch x)/#{pane_id}')).toBe('/tmp/##(touch x)/##{pane_id}')
  })

  it('drops the dead-pane banner from captured output', () => {
    expect(paneTail('boom\n\n\nPane is dead (status 3, Sun Nov 29)\n\n')).toBe('boom')
  })
})
