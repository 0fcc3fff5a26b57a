import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {applyPaneRules, bottomLines} from '../../../src/lib/agents/pane-rules.js'
import {findPreset} from '../../../src/lib/agents/presets.js'

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'panes')

describe('pane rules against captured screens', () => {
  // Files are AGENT.STATE.WHAT.txt; the real ones were captured from the agents in tmux, *.synthetic.* were written by hand.
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.txt'))
  it('has real captures for claude and pi', () => {
    expect(files.filter((f) => /^(claude|pi)\./.test(f) && !f.includes('synthetic')).length).toBeGreaterThanOrEqual(8)
  })
  it.each(files)('%s', (file) => {
    const [agent, state] = file.split('.') as [string, string]
    const screen = readFileSync(join(FIXTURES, file), 'utf8')
    expect(applyPaneRules(screen, findPreset(agent)!.paneRules)).toBe(state)
  })
  it('looks only at the bottom lines, and says nothing when no rule matches', () => {
    expect(bottomLines('a\n\nb  \n\n\nc\n', 2)).toBe('b\nc')
    expect(applyPaneRules('esc to interrupt\n' + 'x\n'.repeat(20), findPreset('claude')!.paneRules)).toBeNull()
    expect(applyPaneRules('', findPreset('pi')!.paneRules)).toBeNull()
  })
})
