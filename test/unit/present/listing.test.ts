import {describe, expect, it} from 'vitest'

import {SessionRow} from '../../../src/lib/model/contract.js'
import {presentListing, LS_DEFAULTS, filterRows, shortSummary, treeOrder} from '../../../src/lib/present/listing.js'
import {listedRow} from '../../helpers/fixtures.js'

const row = listedRow
const now = Date.parse('2026-11-30T12:00:00Z')

describe('ls filters (issue #23)', () => {
  const rows = [
    row({id: 'aaaa0001', state: 'waiting', attention: true}),
    row({id: 'aaaa0002', state: 'idle', attention: true, agent: 'codex'}),
    row({id: 'aaaa0003', state: 'idle'}),
    row({id: 'aaaa0004', state: 'working', agent: 'pi'}),
  ]
  const term = {tty: false, colour: false, now, home: undefined}
  it('keep what a scripter rebuilt with jq: states, attention, agent', () => {
    expect(filterRows(rows, {states: ['waiting', 'idle'], attention: false, agent: null}).map((r) => r.id)).toEqual(['aaaa0001', 'aaaa0002', 'aaaa0003'])
    // "Needs me" is attention, not only waiting: a finished turn needs you too.
    expect(filterRows(rows, {states: null, attention: true, agent: null}).map((r) => r.id)).toEqual(['aaaa0001', 'aaaa0002'])
    expect(filterRows(rows, {states: null, attention: false, agent: 'pi'}).map((r) => r.id)).toEqual(['aaaa0004'])
  })
  it('print ids one per line, or the table without its header', () => {
    expect(presentListing(rows, [], {...LS_DEFAULTS, ids: true, attention: true}, term).stdout).toBe('aaaa0001\naaaa0002\n')
    const table = presentListing(rows, [], {...LS_DEFAULTS, headers: false, agent: 'pi'}, term).stdout
    expect(table.trimEnd().split('\n')).toHaveLength(1)
    expect(table).toMatch(/^aaaa0004 +pi/)
    expect(JSON.parse(presentListing(rows, [], {...LS_DEFAULTS, json: true, states: ['working']}, term).stdout).sessions.map((s: SessionRow) => s.id)).toEqual([
      'aaaa0004',
    ])
  })
  it('print --json on one line into a pipe and indented on a terminal, the same document either way', () => {
    const piped = presentListing(rows, [], {...LS_DEFAULTS, json: true}, term).stdout
    const shown = presentListing(rows, [], {...LS_DEFAULTS, json: true}, {...term, tty: true, columns: 80}).stdout
    expect(piped.split('\n')).toEqual([expect.stringMatching(/^\{"\$schema":"urn:pk:ls","schema":1,"sessions":\[\{"id":"aaaa0001",/), ''])
    expect(shown).toMatch(/^\{\n {2}"\$schema": "urn:pk:ls",\n {2}"schema": 1,\n/)
    expect(JSON.parse(shown)).toEqual(JSON.parse(piped))
  })
})

describe('the short format', () => {
  const line = (id: string, over: Partial<SessionRow> = {}) => row({id, state: 'working', ...over})
  it('summarises for a status bar', () => {
    // Each session counted once; exited and unknown ones not at all.
    expect(
      shortSummary([
        line('a', {state: 'waiting', attention: true}),
        line('b', {state: 'waiting'}),
        line('c'),
        line('d', {state: 'exited'}),
        line('e', {state: 'unknown'}),
      ]),
    ).toBe('1 need you · 1 waiting · 1 working')
    expect(shortSummary([])).toBe('no agents')
    // Readable on tmux's default green bar: no blue-on-green.
    expect(shortSummary([line('c')], true)).toBe('#[bold]1 working#[default]')
    expect(shortSummary([line('i', {state: 'idle'})], true)).toBe('#[default]1 idle#[default]')
  })
})

describe('pk ls --tree (issue 65)', () => {
  const rows = [
    row({id: 'c0000001', parent: 'a0000001', state: 'waiting', attention: true}),
    row({id: 'a0000001', parent: null}),
    row({id: 'b0000001', parent: null}),
    row({id: 'd0000001', parent: 'c0000001'}),
    row({id: 'e0000001', parent: 'ffffffff'}),
  ]
  it('puts each child under its parent, in the listing order; a parent not listed makes a root', () => {
    expect(treeOrder(rows).map((t) => [t.row.id, t.depth])).toEqual([
      ['a0000001', 0],
      ['c0000001', 1],
      ['d0000001', 2],
      ['b0000001', 0],
      ['e0000001', 0],
    ])
    // A loop a hand-edited record could write: every row still once.
    const loop = [row({id: 'a', parent: 'b'}), row({id: 'b', parent: 'a'})]
    expect(treeOrder(loop).map((t) => t.row.id)).toEqual(['a', 'b'])
  })
  it('draws the children indented under it', () => {
    const text = presentListing(rows, [], {...LS_DEFAULTS, tree: true}, {tty: false, colour: false, now, columns: 200, home: '/home/u'} as never).stdout
    const ids = text
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.slice(0, '  └ d0000001'.length).trimEnd())
    expect(ids).toEqual(['a0000001', '└ c0000001', '  └ d0000001', 'b0000001', 'e0000001'])
  })
  it('draws a child with a sibling after it with ├, and carries its line down to that sibling', () => {
    const family = [row({id: 'p'}), row({id: 'k1', parent: 'p'}), row({id: 'g1', parent: 'k1'}), row({id: 'k2', parent: 'p'}), row({id: 'k3', parent: 'p'})]
    expect(treeOrder(family).map((t) => t.branch + t.row.id)).toEqual(['p', '├ k1', '│ └ g1', '├ k2', '└ k3'])
  })
})
