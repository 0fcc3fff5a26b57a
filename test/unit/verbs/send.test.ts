import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {checkSendText, lastLines} from '../../../src/lib/verbs/lifecycle.js'
import {howToAnswer, isPlain, pasteShown, readiness} from '../../../src/lib/verbs/send.js'
import {BUILTIN_PRESETS} from '../../../src/lib/agents/presets.js'
import {readDialog} from '../../../src/lib/agents/dialogs.js'
import {resumableRow} from '../../helpers/fixtures.js'

const row = resumableRow

describe('pk send text (pure)', () => {
  it('types text, never keys: CRLF becomes LF, tabs and newlines pass, C0 and C1 controls are refused', () => {
    expect(checkSendText('a\r\nb\tc')).toBe('a\nb\tc')
    expect(() => checkSendText('x\u001B[2J')).toThrow(/control character \(code 27\)/)
    expect(() => checkSendText('x\u009B31m')).toThrow(/code 155/)
  })
  it('types into a ready agent, waits for one that works (with --when-idle) or starts, refuses a dialog', () => {
    expect(readiness(row('a', {state: 'idle'}), false)).toBe('go')
    expect(readiness(row('a', {state: 'working'}), false)).toBe('go')
    expect(readiness(row('a', {state: 'working'}), true)).toBe('wait')
    expect(readiness(row('a', {state: 'unknown'}), false)).toBe('wait')
    expect(readiness(row('a', {state: 'waiting'}), false)).toMatchObject({
      refuse: expect.stringMatching(/waiting on a dialog .*nothing was typed\. Answer it first: pk answer a yes\|no\|N .*or pk attach a$/),
    })
    expect(readiness(row('a', {agent: null, state: 'unknown'}), false)).toBe('go')
    // A preset that reads no state (pk bg shell) is a plain command: it never turns idle.
    expect(isPlain('shell', BUILTIN_PRESETS)).toBe(true)
    expect(isPlain('claude', BUILTIN_PRESETS)).toBe(false)
    expect(isPlain('unknown-agent', BUILTIN_PRESETS)).toBe(false)
    expect(readiness(row('a', {agent: 'shell', state: 'unknown'}), false, false, true)).toBe('go')
  })
  it("points a refused send at pk answer with the dialog's own choices, never quoting the agent's words as pk's", () => {
    const panes = join(import.meta.dirname, '..', '..', 'fixtures', 'panes')
    const dialog = readDialog('claude', readFileSync(join(panes, 'claude-2.1.337.waiting.permission.txt'), 'utf8'))
    expect(howToAnswer('ab12', dialog)).toBe('pk answer ab12 yes|always|no|1|2|3|4 (pk logs ab12 --screen shows the choices)')
    expect(howToAnswer('ab12', dialog)).not.toMatch(/proceed|switch to auto mode/)
  })
  it('the last lines of a capture, without the blank screen below the output', () => {
    expect(lastLines('a\nb\nc\n\n\n', 2)).toEqual(['b', 'c'])
  })
})

describe('whether a paste shows (pk send, before its Enter)', () => {
  const panes = join(import.meta.dirname, '..', '..', 'fixtures', 'panes')
  const screen = (name: string) => readFileSync(join(panes, name), 'utf8')
  it('Gemini CLI 0.61 resuming a conversation: its input off the screen, then back empty, is not the paste shown; the text in it is', () => {
    const before = screen('gemini-0.61.0.idle.prompt.txt')
    // (pasted as it drew "Resuming session...": the screen changed, and the text went nowhere)
    expect(pasteShown('gemini', true, 'resume test 18', before, screen('gemini-0.61.0.unknown.resuming.txt'))).toBeNull()
    expect(pasteShown('gemini', true, 'resume test 18', before, before.replace('Auto', 'Auto '))).toBeNull()
    expect(pasteShown('gemini', true, 'a draft for gemini', before, screen('gemini-0.61.0.idle.draft.txt'))).toBe('shown')
  })
  it('a paste an agent folds ("[Pasted text #1 +12 lines]") shows as its input not being empty; where the input cannot be read, any change', () => {
    const box = (input: string) => `❯ earlier\n${'─'.repeat(20)}\n❯\u00A0${input}\n${'─'.repeat(20)}\n  ? for shortcuts\n`
    expect(pasteShown('claude', true, 'line 1\nline 12', box(''), box('[Pasted text #1 +12 lines]'))).toBe('shown')
    expect(pasteShown('claude', true, 'line 1\nline 12', box(''), box(''))).toBeNull()
    expect(pasteShown('opencode', false, 'hi there', 'a', 'b')).toBe('shown')
    expect(pasteShown('opencode', false, 'hi there', 'a', 'a')).toBeNull()
    // Codex: a changed screen, its placeholder not told from text without colours.
    const codex = screen('codex-0.171.0.idle.prompt.txt')
    expect(pasteShown('codex', true, 'a long paste', codex, codex.replace('Ask Codex to do anything', '[Pasted Content 2048 chars]'))).toBe('shown')
  })
})
