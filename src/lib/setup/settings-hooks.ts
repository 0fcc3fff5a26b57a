import {PkError} from '../model/errors.js'
import {SetupChange} from './common.js'

/**
 * Claude Code and Gemini CLI keep hooks alike in a settings.json: `hooks.EVENT` is a list of groups
 * (`{matcher?, hooks: [{type: 'command', command, ...}]}`). One planner for both.
 */
export type HookEntry = {type?: string; command?: string; args?: unknown; [k: string]: unknown}
type HookGroup = {matcher?: string; hooks?: HookEntry[]; [k: string]: unknown}

export interface SettingsHooks {
  agent: string
  events: readonly string[]
  /** Events that match on tool names: pk's group gets matcher `*`. */
  toolEvents: ReadonlySet<string>
  /** pk's hook entry. */
  entry: HookEntry
  /** Whether an entry is pk's (this or an older install), to be replaced rather than added to. */
  isPk: (entry: HookEntry) => boolean
}

/** A settings file as a JSON object ({} when there is none yet); one that is not is refused, never overwritten. */
export function parseSettings(before: string | null, file: string): Record<string, unknown> {
  if (before === null || before.trim() === '') return {}
  let settings: unknown
  try {
    settings = JSON.parse(before)
  } catch (error) {
    throw new PkError('bad-settings', `${file} is not valid JSON (${(error as Error).message}); fix it first, pk will not overwrite it`)
  }
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) throw new PkError('bad-settings', `${file} is not a JSON object`)
  return settings as Record<string, unknown>
}

/**
 * Pure: settings.json text -> the same settings with pk's hooks, everything else untouched. Stale pk
 * entries (another install path) are replaced; a second run changes nothing.
 */
export function planSettingsHooks(spec: SettingsHooks, before: string | null, file: string): SetupChange {
  const settings = parseSettings(before, file)
  const hooks = (typeof settings.hooks === 'object' && settings.hooks !== null ? {...(settings.hooks as Record<string, unknown>)} : {}) as Record<
    string,
    HookGroup[]
  >
  for (const event of spec.events) {
    const groups: HookGroup[] = Array.isArray(hooks[event]) ? hooks[event].map((g) => ({...g, hooks: Array.isArray(g.hooks) ? [...g.hooks] : g.hooks})) : []
    // Drop pk's old entries (and groups left empty by that), keep everyone else's.
    const kept = groups
      .map((g) => (Array.isArray(g.hooks) ? {...g, hooks: g.hooks.filter((h) => !spec.isPk(h))} : g))
      .filter((g, i) => !(Array.isArray(g.hooks) && g.hooks.length === 0 && (groups[i]!.hooks?.length ?? 0) > 0))
    const ours: HookGroup = spec.toolEvents.has(event) ? {matcher: '*', hooks: [spec.entry]} : {hooks: [spec.entry]}
    hooks[event] = [...kept, ours]
  }
  const after = JSON.stringify({...settings, hooks}, null, 2) + '\n'
  const unchanged = before !== null && JSON.stringify(JSON.parse(before.trim() || '{}')) === JSON.stringify(JSON.parse(after))
  return {
    agent: spec.agent,
    file,
    before,
    after,
    changed: !unchanged,
    notes: unchanged ? ['pk hooks already installed'] : [`hooks for ${spec.events.join(', ')}`],
  }
}
