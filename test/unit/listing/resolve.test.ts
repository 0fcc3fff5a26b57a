import {describe, expect, it} from 'vitest'

import {checkIdForm, resolveId} from '../../../src/lib/listing/resolve.js'
import {SessionRow} from '../../../src/lib/model/contract.js'
import {exitCodeOf, sessionRow} from '../../helpers/fixtures.js'

/** A row with this id, as the lookups see it. */
const row = (id: string, over: Partial<SessionRow> = {}): SessionRow => sessionRow({id, agent: null, command: ['x'], record: null, ...over})
const exitOf = exitCodeOf

describe('resolveId', () => {
  const rows = [row('abc12345'), row('abd00000'), row('ffff0000')]
  it('finds a unique prefix or a full id', () => {
    expect(resolveId('abc', rows).id).toBe('abc12345')
    expect(resolveId('FFFF0000', rows).id).toBe('ffff0000')
  })
  it.each([
    ['', 2],
    ['xyz', 2],
    ['abc123456', 2],
    ['../x', 2],
    ['ab\n', 4],
    ['ab', 4],
    ['0', 3],
  ])('%j exits %i', (id, code) => {
    expect(exitOf(() => resolveId(id, rows))).toBe(code)
  })
  it('refuses a label where the id goes (exit 2), naming the sessions that carry it by id', () => {
    const labelled = [row('abc12345', {label: 'lead', agent: 'claude', cwd: '/w'}), row('ffff0000', {label: 'lead'}), row('abd00000', {label: 'other'})]
    expect(exitOf(() => resolveId('lead', labelled))).toBe(2)
    expect(() => resolveId('lead', labelled)).toThrow(
      /"lead" is a label, not a session id.*The sessions labelled so:\n {2}abc12345 {2}claude {2}\/w\n {2}ffff0000/s,
    )
    expect(() => resolveId('nobody', labelled)).toThrow(/"nobody" is not a session id: ids are/)
  })
  it('refuses an id that two rows carry (exit 4), whichever one comes first', () => {
    const twice = [row('abc12345', {tmux: null}), row('abc12345')]
    expect(exitOf(() => resolveId('abc12345', twice))).toBe(4)
    expect(exitOf(() => resolveId('abc', [...twice].reverse()))).toBe(4)
  })
  it('lists the candidates of an ambiguous prefix', () => {
    expect(() => resolveId('ab', rows)).toThrow(/abc12345[\s\S]*abd00000/)
  })
})

describe('checkIdForm', () => {
  it('takes an id or prefix in any case, trimmed; refuses anything else with exit 2', () => {
    expect(checkIdForm(' AB12 ')).toBe('ab12')
    for (const bad of ['', 'g', 'ab12cd34e', '-1', 'ab 12']) expect(exitOf(() => checkIdForm(bad))).toBe(2)
  })
})
