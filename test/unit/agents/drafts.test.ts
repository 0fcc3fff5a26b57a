import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {inputEmpty, inputHolds, readDraft} from '../../../src/lib/agents/drafts.js'

const PANES = join(import.meta.dirname, '..', '..', 'fixtures', 'panes')
const screen = (name: string) => readFileSync(join(PANES, name), 'utf8')

describe("a draft in an agent's input", () => {
  it("reads Codex's typed, unsent text; its dim placeholder is none (captured from Codex 0.171 with colours)", () => {
    expect(readDraft('codex', screen('codex-0.171.0.idle.draft.ansi'))).toBe('fix the flaky test in the parser please')
    expect(readDraft('codex', screen('codex-0.171.0.idle.prompt.ansi'))).toBeNull()
  })
  it('takes the last prompt line (the input), not a message echoed above it; none for an agent pk cannot read', () => {
    const echoed = '\u001B[1m›\u001B[0m create a file\n\n\u001B[1m›\u001B[0m \u001B[2mAsk Codex to do anything\u001B[0m\n  model · /w\n'
    expect(readDraft('codex', echoed)).toBeNull()
    expect(readDraft('codex', '\u001B[1m›\u001B[0m\u001B[39m ' + '\u001B[1mbold draft\u001B[0m\n')).toBe('bold draft')
    expect(readDraft('claude', screen('codex-0.171.0.idle.draft.ansi'))).toBeNull()
    expect(readDraft(null, 'x')).toBeNull()
  })
})

describe("what is left in an agent's input line after Enter", () => {
  it("the text still in Claude's box or Codex's input line is not taken; an empty input line is", () => {
    const claudeBox = (input: string) => `❯ make the tests pass\n● Done.\n${'─'.repeat(20)}\n❯ ${input}\n${'─'.repeat(20)}\n  ? for shortcuts\n`
    expect(inputHolds('claude', claudeBox('make the tests pass'), 'make the tests pass')).toBe(true)
    // Submitted: the box is empty (its message is in the history above, which is not the input).
    expect(inputHolds('claude', claudeBox(''), 'make the tests pass')).toBe(false)
    expect(inputHolds('claude', claudeBox('').replace('❯ \n', '❯\n'), 'make the tests pass')).toBe(false)
    expect(inputHolds('claude', '╭──╮\n│ ❯ fix it now │\n╰──╯\n', 'fix it now')).toBe(true)
    expect(inputHolds('codex', screen('codex-0.171.0.idle.draft.txt'), 'fix the flaky test in the parser please')).toBe(true)
    expect(inputHolds('codex', screen('codex-0.171.0.idle.turn-done.txt'), 'create a file')).toBe(false)
    expect(inputHolds('opencode', 'x', 'y')).toBeNull()
  })
})

describe('the input line of the releases checked on 2026-12-07', () => {
  it('Claude Code 2.1.332: a message queued while it works leaves its input ("Press up to edit queued messages")', () => {
    const queued = screen('claude-2.1.332.working.queued.txt')
    expect(queued).toMatch(/queued by pk\n {2}\u23BF {2}Queued/)
    expect(inputHolds('claude', queued, 'queued by pk')).toBe(false)
    expect(inputEmpty('claude', queued)).toBe(false)
    expect(inputHolds('claude', screen('claude-2.1.332.working.typing.txt'), 'typed by hand')).toBe(true)
    expect(inputEmpty('claude', screen('claude-2.1.332.working.spinner.txt'))).toBe(true)
  })
  it('Gemini CLI 0.61: its input is the line under the rule over its input area; off the screen while it resumes a conversation', () => {
    expect(inputHolds('gemini', screen('gemini-0.61.0.idle.draft.txt'), 'a draft for gemini')).toBe(true)
    expect(inputEmpty('gemini', screen('gemini-0.61.0.idle.draft.txt'))).toBe(false)
    // The placeholder is an empty input; an earlier prompt above the rule is not the input.
    expect(inputEmpty('gemini', screen('gemini-0.61.0.idle.prompt.txt'))).toBe(true)
    const resuming = screen('gemini-0.61.0.unknown.resuming.txt')
    expect(resuming).toMatch(/> resume test 17/)
    expect(inputHolds('gemini', resuming, 'resume test 17')).toBeNull()
    expect(inputEmpty('gemini', resuming)).toBeNull()
    // Codex: its placeholder is told only by its colour.
    expect(inputEmpty('codex', screen('codex-0.171.0.idle.prompt.txt'))).toBeNull()
  })
})
