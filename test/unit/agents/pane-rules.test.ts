import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {applyPaneRules, bottomLines} from '../../../src/lib/agents/pane-rules.js'
import {findPreset} from '../../../src/lib/agents/presets.js'
import {readLimit} from '../../../src/lib/agents/limits.js'
import {PANE_FIXTURES, paneFixtures, parsePaneFixture} from '../../helpers/pane-fixtures.js'

describe('pane rules against captured screens', () => {
  // AGENT-RELEASE.STATE.WHAT.txt, captured from that release of the agent in tmux; *.synthetic.* written by hand.
  const fixtures = paneFixtures()
  it('names every fixture by its agent, release and state', () => {
    expect(fixtures.filter((f) => f.agent === '?').map((f) => f.file)).toEqual([])
    expect(parsePaneFixture('claude-2.1.332.waiting.permission.txt')).toMatchObject({agent: 'claude', release: '2.1.332', state: 'waiting', what: 'permission'})
    expect(parsePaneFixture('codex.idle.synthetic.txt')).toMatchObject({agent: 'codex', release: null, what: 'synthetic'})
    // (a real capture names its release; only a synthetic one goes without)
    expect(parsePaneFixture('claude.waiting.permission.txt')).toBeNull()
  })
  it('has real captures for claude and pi', () => {
    expect(fixtures.filter((f) => (f.agent === 'claude' || f.agent === 'pi') && f.release !== null).length).toBeGreaterThanOrEqual(8)
  })
  it.each(fixtures.filter((f) => !f.ansi).map((f) => [f.file, f] as const))('%s', (_, fixture) => {
    const screen = readFileSync(join(PANE_FIXTURES, fixture.file), 'utf8')
    // A limit as the agent's last word is read apart (agents/limits.ts), before the rules; no other screen reads as one.
    expect(readLimit(fixture.agent, screen) !== null, 'read as a limit').toBe(fixture.state === 'limited')
    if (fixture.state === 'limited') return
    // (`unknown`: a screen no rule knows, as it must stay: Gemini CLI redrawing everything as it resumes)
    expect(applyPaneRules(screen, findPreset(fixture.agent)!.paneRules)).toBe(fixture.state === 'unknown' ? null : fixture.state)
  })
  it('looks only at the bottom lines, and says nothing when no rule matches', () => {
    expect(bottomLines('a\n\nb  \n\n\nc\n', 2)).toBe('b\nc')
    expect(applyPaneRules('esc to interrupt\n' + 'x\n'.repeat(20), findPreset('claude')!.paneRules)).toBeNull()
    expect(applyPaneRules('', findPreset('pi')!.paneRules)).toBeNull()
  })
})
