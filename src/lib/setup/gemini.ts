import {join} from 'node:path'

import {shellQuote} from '../model/shell.js'
import {SetupChange, hookArgv} from './common.js'
import {HookEntry, planSettingsHooks} from './settings-hooks.js'

/** The Gemini CLI events pk listens to (0.61); each maps to a state in hook.ts. */
export const GEMINI_HOOK_EVENTS = ['SessionStart', 'BeforeAgent', 'AfterAgent', 'Notification', 'SessionEnd'] as const

/** A hook entry is pk's when its command runs pk's sh hook for gemini, or `pk hook gemini` (any install path). */
export const isPkGeminiHook = (entry: HookEntry) =>
  typeof entry.command === 'string' && /pk-hook\.sh'?\s+'?gemini'?(\s|$)|(^|[\s/'])(pk|run\.js)'?\s+hook\s+gemini$/.test(entry.command)

/**
 * Pure: ~/.gemini/settings.json with pk's hooks. Gemini runs a hook's command through a shell and waits for
 * it (stdin: the payload); pk's sh hook returns at once, prints nothing (Gemini reads stdout as its answer),
 * and always exits 0. A named entry, so `/hooks disable pk` works.
 */
export function planGemini(before: string | null, file: string, pk: string[]): SetupChange {
  const command = hookArgv(pk, 'gemini').map(shellQuote).join(' ')
  const entry = {name: 'pk', type: 'command', command, timeout: 5000, description: 'tells pk what this session is doing'}
  return planSettingsHooks({agent: 'gemini', events: GEMINI_HOOK_EVENTS, toolEvents: new Set(), entry, isPk: isPkGeminiHook}, before, file)
}

export const geminiSettingsFile = (home: string) => join(home, '.gemini', 'settings.json')
