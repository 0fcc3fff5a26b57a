import {join} from 'node:path'

import {SetupChange, hookArgv} from './common.js'
import {HookEntry, planSettingsHooks} from './settings-hooks.js'

/** The Claude Code events pk listens to; each maps to a state in `pk hook claude`. */
export const CLAUDE_HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Notification',
  'PermissionRequest',
  'Stop',
  'StopFailure',
  'SessionEnd',
] as const

/** Events that match on tool names take a matcher; `*` means every tool. */
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PermissionRequest'])

/** A hook command is pk's own when it runs `... hook claude` through pk (any install path). */
export const isPkClaudeCommand = (command: unknown) => typeof command === 'string' && /(^|[\s/'])(pk|run\.js)'?\s+hook\s+claude$/.test(command)

/** A hook entry is pk's: the shell form above, or the exec form (`command` + `args` ending in `hook claude`). */
export function isPkClaudeHook(entry: HookEntry): boolean {
  if (Array.isArray(entry.args)) {
    const argv = [entry.command, ...entry.args].map(String)
    if (/(^|\/)pk-hook\.sh$/.test(argv[0]!) && argv[1] === 'claude') return true
    return argv.length >= 3 && argv.at(-2) === 'hook' && argv.at(-1) === 'claude' && argv.slice(0, -2).some((word) => /(^|\/)(pk|run\.js)$/.test(word))
  }
  return isPkClaudeCommand(entry.command)
}

/** Pure: settings.json text -> the same settings with pk's hooks (see settings-hooks.ts). */
export function planClaude(before: string | null, file: string, pk: string[]): SetupChange {
  const [script, ...args] = hookArgv(pk, 'claude')
  // The exec form (no shell), and async: Claude does not wait for pk on any event.
  const entry = {type: 'command', command: script!, args, async: true, timeout: 10}
  return planSettingsHooks({agent: 'claude', events: CLAUDE_HOOK_EVENTS, toolEvents: TOOL_EVENTS, entry, isPk: isPkClaudeHook}, before, file)
}

export const claudeSettingsFile = (home: string) => join(home, '.claude', 'settings.json')
