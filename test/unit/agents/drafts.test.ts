import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {readDraft} from '../../../src/lib/agents/drafts.js'

const PANES = join(import.meta.dirname, '..', '..', 'fixtures', 'panes')
const screen = (name: string) => readFileSync(join(PANES, name), 'utf8')

describe("a draft in an agent's input", () => {
  it("reads Codex's typed, unsent text; its dim placeholder is none (captured from Codex 0.171 with colours)", () => {
    expect(readDraft('codex', screen('codex.idle.draft.ansi'))).toBe('fix the flaky test in the parser please')
    expect(readDraft('codex', screen('codex.idle.prompt.ansi'))).toBeNull()
  })
  it('takes the last prompt line (the input), not a message echoed above it; none for an agent pk cannot read', () => {
    const echoed = '\u001B[1m›\u001B[0m create a file\n\n\u001B[1m›\u001B[0m \u001B[2mAsk Codex to do anything\u001B[0m\n  model · /w\n'
    expect(readDraft('codex', echoed)).toBeNull()
    expect(readDraft('codex', '\u001B[1m›\u001B[0m\u001B[39m ' + '\u001B[1mbold draft\u001B[0m\n')).toBe('bold draft')
    expect(readDraft('claude', screen('codex.idle.draft.ansi'))).toBeNull()
    expect(readDraft(null, 'x')).toBeNull()
  })
})
