import {describe, expect, it} from 'vitest'

import {presentListing, LS_DEFAULTS} from '../../../src/lib/present/listing.js'
import {age, printable, renderTable} from '../../../src/lib/present/table.js'
import {listedRow} from '../../helpers/fixtures.js'

const row = listedRow
const now = Date.parse('2026-11-30T12:00:00Z')

describe('the table', () => {
  it('aligns columns, shortens HOME, marks attention, unverified and conflicts, and never prints control characters', () => {
    const text = renderTable(
      [
        row({attention: true, state: 'waiting'}),
        row({id: 'ffff0000', verified: false, state: 'unknown', label: 'x\u001b[31m', cwd: '/srv'}),
        row({id: 'eeee0000', conflict: true}),
      ],
      {colour: false, now, home: '/home/u'},
    )
    const lines = text.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID +AGENT +STATE +AGE +CWD +TMUX$/)
    expect(lines[1]).toMatch(/^abcd1234 +claude +! waiting +2h +~\/app +pk:claude %12$/)
    expect(lines[2]).toContain('unknown?')
    expect(lines[2]).toContain('claude (x?[31m)')
    expect(lines[3]).toContain('conflict')
    // A plain command cannot be taken for a preset.
    expect(renderTable([row({agent: null, command: ['/usr/bin/sleep', '9']})], {colour: false, now, home: '/home/u'})).toMatch(/\$ sleep/)
  })

  it('says ages and strips control characters', () => {
    expect(age(null, now)).toBe('-')
    expect(age('2026-11-30T11:59:30Z', now)).toBe('30s')
    expect(age('2026-11-28T12:00:00Z', now)).toBe('2d')
    expect(printable('a\nb\u0007')).toBe('a?b?')
  })

  it('puts problems on stderr for people and in the object for scripts', () => {
    const problems = [{code: 'tmux-missing' as const, message: 'no tmux'}]
    const term = {tty: false, colour: false, now, home: undefined}
    const table = presentListing([row({})], problems, LS_DEFAULTS, term)
    expect(table.stderr).toBe('pk: tmux-missing: no tmux\n')
    const json = presentListing([row({})], problems, {...LS_DEFAULTS, json: true}, term)
    expect(JSON.parse(json.stdout)).toMatchObject({schema: 1, problems})
    expect(json.stderr).toBe('')
  })
})

describe('the table on a terminal (issue #23)', () => {
  it('fits the width: the cwd gives way first (keeping its end), then the label; piped, it is as wide as it needs', () => {
    const rows = [row({label: 'a-rather-long-label-for-this', cwd: '/home/u/src/some/deeply/nested/project/directory'})]
    const wide = renderTable(rows, {colour: false, now, home: '/home/u'})
    expect(
      Math.max(
        ...wide
          .trimEnd()
          .split('\n')
          .map((l) => l.length),
      ),
    ).toBeGreaterThan(70)
    const narrow = renderTable(rows, {colour: false, now, home: '/home/u', width: 70})
    for (const line of narrow.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(70)
    expect(narrow).toMatch(/…\S*\/directory/)
    expect(narrow).toContain('abcd1234')
  })
})
