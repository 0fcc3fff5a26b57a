import {describe, expect, it} from 'vitest'

import {findPreset, recognizeAgent} from '../../../src/lib/agents/presets.js'
import {launchArgv} from '../../../src/lib/verbs/bg.js'
import {PkError} from '../../../src/lib/model/errors.js'

function exitOf(fn: () => unknown): number | undefined {
  try {
    fn()
  } catch (error) {
    return (error as PkError).exitCode
  }
  return undefined
}

describe('presets', () => {
  it('launches presets with extra args and plain commands as given', () => {
    expect(launchArgv('codex', ['--model', 'o3'], {})).toEqual({argv: ['codex', '--model', 'o3'], agent: 'codex'})
    expect(launchArgv('shell', [], {SHELL: '/bin/zsh'})).toEqual({argv: ['/bin/zsh'], agent: 'shell'})
    expect(launchArgv(undefined, ['bash', '-c', 'echo "$(x)"'], {})).toEqual({argv: ['bash', '-c', 'echo "$(x)"'], agent: null})
    expect(exitOf(() => launchArgv('nope', [], {}))).toBe(2)
    expect(() => launchArgv('nope', [], {})).toThrow(/pi, claude, codex, gemini, opencode, aider, shell/)
    expect(exitOf(() => launchArgv(undefined, [], {}))).toBe(2)
  })
  it('recognises agent processes by argv, directly or under an interpreter', () => {
    expect(recognizeAgent(['/usr/local/bin/claude', '--resume'])).toBe('claude')
    // What the npm package really runs: a native binary named claude.exe, on Linux too.
    expect(recognizeAgent(['/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe'])).toBe('claude')
    expect(recognizeAgent(['node', '--no-warnings', '/usr/lib/node_modules/@google/gemini-cli/bin/gemini'])).toBe('gemini')
    expect(recognizeAgent(['python3', '/home/u/.local/bin/aider'])).toBe('aider')
    expect(recognizeAgent(['bash'])).toBeNull()
    expect(recognizeAgent(['vim', 'claude'])).toBeNull()
    expect(findPreset('shell')!.executables).toEqual([])
  })
})

describe('agent recognition under interpreters', () => {
  it('takes the first non-option argument as the script, and inline code as none', () => {
    expect(recognizeAgent(['/bin/sh', '/home/u/bin/claude'])).toBe('claude')
    expect(recognizeAgent(['sh', '-c', 'vim notes/claude'])).toBeNull()
    expect(recognizeAgent(['node', '-e', 'require("claude")'])).toBeNull()
    expect(recognizeAgent(['python3', '-m', 'aider'])).toBeNull()
  })
})
