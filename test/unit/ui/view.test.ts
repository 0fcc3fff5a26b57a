import {describe, expect, it} from 'vitest'

import {SessionRow} from '../../../src/lib/model/contract.js'
import {UiState, moveSelection, reconcileSelection, renderScreen, splitKeys, visibleRows} from '../../../src/lib/ui/view.js'
import {workingRow} from '../../helpers/fixtures.js'

const row = workingRow
const base = (rows: SessionRow[], over: Partial<UiState> = {}): UiState => ({
  rows,
  problems: [],
  selected: rows[0]?.id ?? null,
  filter: '',
  filtering: false,
  message: null,
  ...over,
})
const layout = {width: 100, height: 12, colour: false, now: Date.parse('2026-11-29T12:00:00Z'), home: '/home/u', branchOf: () => 'main'}

describe('dashboard view', () => {
  const rows = [row('aaaa1111', {attention: true, state: 'waiting'}), row('bbbb2222', {agent: 'codex', cwd: '/srv/api'}), row('cccc3333', {label: 'docs'})]

  it('moves, filters, and keeps the selection on the same session', () => {
    let state = base(rows)
    state = moveSelection(state, 1)
    expect(state.selected).toBe('bbbb2222')
    state = moveSelection(state, 5)
    expect(state.selected).toBe('cccc3333')
    state = moveSelection(state, -9)
    expect(state.selected).toBe('aaaa1111')
    const filtered = reconcileSelection({...base(rows), filter: 'codex'})
    expect(visibleRows(filtered).map((r) => r.id)).toEqual(['bbbb2222'])
    expect(filtered.selected).toBe('bbbb2222')
    // A refresh that reorders rows keeps the selected id; one that drops it falls back to the first.
    expect(reconcileSelection({...base([rows[2]!, rows[1]!]), selected: 'bbbb2222'}).selected).toBe('bbbb2222')
    expect(reconcileSelection({...base([rows[2]!]), selected: 'bbbb2222'}).selected).toBe('cccc3333')
  })

  it('a session at its usage limit shows its reset whole (the STATE column widens for it)', () => {
    // (a reset within the day reads as a clock time: the table reads it against the real clock)
    const resetsAt = new Date(Date.now() + 2 * 3600_000).toISOString()
    const limit = {
      what: '5-hour limit',
      resetsAt,
      shown: '2:10pm (UTC)',
      since: '2026-11-29T11:00:00.000Z',
      continuedBy: 'pk' as const,
      continueAt: resetsAt,
      why: null,
    }
    const limited = row('dddd4444', {state: 'limited', stateSource: 'hook', limit})
    const text = renderScreen(base([limited, ...rows]), {...layout, width: 140}).join('\n')
    expect(text).toMatch(/limited · resets \d\d:\d\d \(hook\)/)
  })

  it('renders exactly the terminal size, without colour when not asked', () => {
    const lines = renderScreen(base(rows), layout)
    expect(lines).toHaveLength(12)
    expect(lines.every((l) => l.length <= 100)).toBe(true)
    expect(lines.join('\n')).not.toContain('\u001B[')
    expect(lines[0]).toBe('pk — 3 session(s), 1 need you'.padEnd(100))
    expect(lines.find((l) => l.includes('aaaa1111'))).toMatch(/^> aaaa1111 claude +! waiting \(hook\) +2h +- +main +~\/app/)
    expect(lines.at(-1)).toContain('q quit')
  })

  it("shows a row with the table's own cells: the label as pk ls writes it, a plain command, usage with its context share", () => {
    const usage = {
      model: 'm',
      input: 30_000,
      output: 11_000,
      cacheRead: 0,
      cacheWrite: 0,
      contextTokens: 41_000,
      contextWindow: 50_000,
      cost: null,
      costSource: null,
      unpriced: 'm',
      source: 'f',
      updatedAt: null,
      skippedLines: 0,
      attention: null,
    }
    const lines = renderScreen(base([row('aaaa1111', {label: 'docs', usage}), row('bbbb2222', {agent: null, command: ['/bin/sleep', '9']})]), layout)
    expect(lines[1]).toMatch(/AGENT +STATE +AGE +USAGE +ACTIVE/)
    expect(lines.find((l) => l.includes('aaaa1111'))).toMatch(/claude \(docs\) +working \(hook\) +2h +41k ctx 82%/)
    expect(lines.find((l) => l.includes('bbbb2222'))).toMatch(/\$ sleep +working/)
  })

  it('shows what each session changed where pk measured it, wide and on a phone', () => {
    const changes = {files: 3, insertions: 120, deletions: 4, commits: 2, dirty: true}
    const rows = [row('aaaa1111', {changes}), row('bbbb2222', {changes: null}), row('cccc3333')]
    const lines = renderScreen(base(rows), {...layout, width: 140})
    expect(lines[1]).toMatch(/BRANCH +CHANGES +CWD/)
    expect(lines.find((l) => l.includes('aaaa1111'))).toMatch(/main +3f \+120 -4 2c \* /)
    expect(lines.find((l) => l.includes('bbbb2222'))).toMatch(/main +\? /)
    expect(lines.find((l) => l.includes('cccc3333'))).toMatch(/main +- /)
    // Not measured yet anywhere: no column at all.
    expect(renderScreen(base([row('cccc3333')]), layout)[1]).not.toContain('CHANGES')
    const phone = renderScreen(base(rows), {...layout, width: 40, height: 12})
    expect(phone.join('\n')).toContain('3f +120 -4 2c *')
  })

  it('scrolls to keep the selection visible, copes with tiny terminals, shows problems in the footer', () => {
    const many = Array.from({length: 30}, (_, i) => row(`id${String(i).padStart(6, '0')}`))
    const lines = renderScreen(base(many, {selected: 'id000029'}), layout)
    expect(lines.some((l) => l.startsWith('> id000029'))).toBe(true)
    expect(renderScreen(base(many), {...layout, width: 20, height: 4})).toEqual(['too small           ', '', '', ''])
    const withProblem = renderScreen(base(rows, {problems: [{code: 'conflict', message: 'two records claim pid 9'}]}), layout)
    expect(withProblem.at(-2)).toContain('! conflict: two records claim pid 9')
    expect(renderScreen(base(rows), {...layout, colour: true}).join('')).toContain('\u001B[7m')
  })

  it('splits typed input into keys', () => {
    expect(splitKeys('\u001B[Ajk\r')).toEqual(['\u001B[A', 'j', 'k', '\r'])
    expect(splitKeys('\u001Bq')).toEqual(['\u001B', 'q'])
    expect(splitKeys('\u001BOB')).toEqual(['\u001B[B'])
  })
})

describe('dashboard keys', async () => {
  const {keyAction} = await import('../../../src/lib/ui/view.js')
  const rows = [row('a'), row('b')]

  it('moves, filters, attaches, refreshes and quits', () => {
    expect(keyAction(base(rows), 'j').state.selected).toBe('b')
    expect(keyAction(base(rows, {selected: 'b'}), '\u001B[A').state.selected).toBe('a')
    expect(keyAction(base(rows), '\r').action).toBe('attach')
    expect(keyAction(base(rows), 'r').action).toBe('refresh')
    expect(keyAction(base(rows), 'q').action).toBe('quit')
    const filtering = keyAction(base(rows), '/').state
    expect(filtering.filtering).toBe(true)
    // While filtering, q is a letter of the filter, not quit; Ctrl-C always quits.
    expect(keyAction(filtering, 'q')).toMatchObject({action: 'draw', state: {filter: 'q'}})
    expect(keyAction(filtering, '\u0003').action).toBe('quit')
  })

  it('stops only after y, and any other key cancels; R resumes, l shows logs', () => {
    const asked = keyAction(base(rows), 'x')
    expect(asked).toMatchObject({action: 'draw', state: {confirmStop: 'a', message: expect.stringMatching(/stop a\? y to confirm/)}})
    expect(keyAction(asked.state, 'y')).toMatchObject({action: 'stop'})
    expect(keyAction(asked.state, 'n')).toMatchObject({action: 'draw', state: {confirmStop: null, message: 'not stopped'}})
    expect(keyAction(base(rows), 'R').action).toBe('resume')
    expect(keyAction(base(rows), 'l').action).toBe('logs')
    expect(keyAction(base([]), 'x').state.confirmStop).toBeUndefined()
    const gone = keyAction(base([{...rows[0]!, state: 'exited'}]), 'x')
    expect(gone).toMatchObject({action: 'draw', state: {message: expect.stringMatching(/has exited: nothing to stop/)}})
    expect(gone.state.confirmStop).toBeUndefined()
  })

  it('c continues a session at its usage limit, and says so of any other', () => {
    expect(keyAction(base([{...rows[0]!, state: 'limited'}]), 'c').action).toBe('continue')
    expect(keyAction(base(rows), 'c')).toMatchObject({action: 'draw', state: {message: 'a is not at a usage limit: nothing to continue'}})
  })
})

describe('dashboard keys and colours (issue #23)', async () => {
  const {keyAction, renderScreen, KEYS} = await import('../../../src/lib/ui/view.js')
  const rows = ['a', 'b', 'c', 'd', 'e'].map((id) => row(id))
  it('? shows every key, any key goes back; g/G and the page keys move', () => {
    const help = keyAction(base(rows), '?').state
    const screen = renderScreen(help, {width: 80, height: 20, colour: false, now: 0, branchOf: () => null})
    for (const [key] of KEYS) expect(screen.join('\n')).toContain(key)
    expect(keyAction(help, 'j').state.help).toBe(false)
    expect(keyAction(base(rows), 'G').state.selected).toBe('e')
    expect(keyAction({...base(rows), selected: 'e'}, 'g').state.selected).toBe('a')
    expect(keyAction({...base(rows), page: 2}, '\u001B[6~').state.selected).toBe('c')
  })
  it('colours each row by its state', () => {
    const mixed = [
      {...row('w'), state: 'working' as const},
      {...row('i'), state: 'idle' as const},
    ]
    const screen = renderScreen({...base(mixed), selected: null}, {width: 80, height: 10, colour: true, now: 0, branchOf: () => null}).join('\n')
    expect(screen).toContain('\u001B[32m') // green: working
    expect(screen).toContain('\u001B[34m') // blue: idle
  })
})

describe('a terminal too small for the list', () => {
  it('says so in as few columns as it has, never cut to a word that says nothing', async () => {
    const {renderScreen} = await import('../../../src/lib/ui/view.js')
    const state = {rows: [], problems: [], selected: null, filter: '', filtering: false, message: null}
    for (const width of [5, 9, 15, 21, 22, 29]) {
      const [first] = renderScreen(state, {width, height: 4, colour: false, now: 0, home: undefined} as never)
      expect(first!.length, String(width)).toBeLessThanOrEqual(width)
      expect(['!', 'too small', 'pk: terminal too small'], String(width)).toContain(first!.trim())
    }
  })
})
