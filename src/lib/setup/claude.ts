import {join} from 'node:path'

import {usageError} from '../errors.js'
import {SetupChange, hookArgv} from './common.js'

/** The Claude Code events pk listens to; each maps to a state in `pk hook claude`. */
export const CLAUDE_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Notification', 'PermissionRequest', 'Stop', 'StopFailure', 'SessionEnd'] as const

/** Events that match on tool names take a matcher; `*` means every tool. */
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PermissionRequest'])

type HookEntry = {type?: string; command?: string; args?: unknown; [k: string]: unknown}
type HookGroup = {matcher?: string; hooks?: HookEntry[]; [k: string]: unknown}

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

/**
 * Pure: settings.json text -> the same settings with pk's hooks, everything else untouched. Stale pk
 * entries (another install path) are replaced; a second run changes nothing.
 */
export function planClaude(before: string | null, file: string, pk: string[]): SetupChange {
  let settings: Record<string, unknown> = {}
  if (before !== null && before.trim() !== '') {
    try {
      settings = JSON.parse(before)
    } catch (error) {
      throw usageError('bad-settings', `${file} is not valid JSON (${(error as Error).message}); fix it first, pk will not overwrite it`)
    }
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) throw usageError('bad-settings', `${file} is not a JSON object`)
  }
  // The exec form (no shell), and async: Claude does not wait for pk on any event.
  const hooks = (typeof settings.hooks === 'object' && settings.hooks !== null ? {...(settings.hooks as Record<string, unknown>)} : {}) as Record<string, HookGroup[]>
  for (const event of CLAUDE_HOOK_EVENTS) {
    const groups: HookGroup[] = Array.isArray(hooks[event]) ? hooks[event].map((g) => ({...g, hooks: Array.isArray(g.hooks) ? [...g.hooks] : g.hooks})) : []
    // Drop pk's old entries (and groups left empty by that), keep everyone else's.
    const kept = groups
      .map((g) => (Array.isArray(g.hooks) ? {...g, hooks: g.hooks.filter((h) => !isPkClaudeHook(h))} : g))
      .filter((g, i) => !(Array.isArray(g.hooks) && g.hooks.length === 0 && (groups[i]!.hooks?.length ?? 0) > 0))
    const [script, ...args] = hookArgv(pk, 'claude')
    const hook = {type: 'command', command: script!, args, async: true, timeout: 10}
    const ours: HookGroup = TOOL_EVENTS.has(event) ? {matcher: '*', hooks: [hook]} : {hooks: [hook]}
    hooks[event] = [...kept, ours]
  }
  const after = JSON.stringify({...settings, hooks}, null, 2) + '\n'
  const unchanged = before !== null && JSON.stringify(JSON.parse(before || '{}')) === JSON.stringify(JSON.parse(after))
  return {agent: 'claude', file, before, after, changed: !unchanged, notes: unchanged ? ['pk hooks already installed'] : [`hooks for ${CLAUDE_HOOK_EVENTS.join(', ')}`]}
}

export const claudeSettingsFile = (home: string) => join(home, '.claude', 'settings.json')
