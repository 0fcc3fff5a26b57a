import {homedir} from 'node:os'

import {loadPackage} from '../cli/packages.js'
import {PkError} from '../model/errors.js'
import {eachWithProgress, NO_PROGRESS, Progress} from '../model/progress.js'
import {Context} from '../config/context.js'
import {planClaude, claudeSettingsFile} from './claude.js'
import {planCodex, codexConfigFile} from './codex.js'
import {SetupChange, applyChange, hookArgv, pkArgv, readIfExists} from './common.js'
import {geminiSettingsFile, planGemini} from './gemini.js'
import {opencodePluginFile, planOpencode} from './opencode.js'
import {planPi, piExtensionFile} from './pi.js'

export const SETUP_AGENTS = ['claude', 'codex', 'gemini', 'opencode', 'pi'] as const

export async function planSetup(agent: string, env: Record<string, string | undefined>): Promise<SetupChange> {
  const home = env.HOME || homedir()
  const pk = pkArgv()
  if (agent === 'claude') {
    const file = claudeSettingsFile(home)
    return planClaude(readIfExists(file), file, pk)
  }
  if (agent === 'codex') {
    const file = codexConfigFile(home, env)
    const {parse} = loadPackage('smol-toml') as typeof import('smol-toml')
    return planCodex(readIfExists(file), file, pk, (text) => parse(text) as Record<string, unknown>)
  }
  if (agent === 'gemini') {
    const file = geminiSettingsFile(home)
    return planGemini(readIfExists(file), file, pk)
  }
  if (agent === 'opencode') {
    const file = opencodePluginFile(home, env)
    return planOpencode(readIfExists(file), file, pk)
  }
  if (agent === 'pi') {
    const file = piExtensionFile(home, env)
    return planPi(readIfExists(file), file, pk)
  }
  throw new PkError(
    'no-setup',
    `pk setup knows ${SETUP_AGENTS.join(', ')}; ${JSON.stringify(agent)} has no hook system pk can install (its state comes from pane rules)`,
  )
}

/** `pk setup AGENT --mcp [--allow RIGHTS]` (allow null: --remove): pk mcp in the agent's user-scope MCP configuration. */
export async function planMcpSetup(agent: string, env: Record<string, string | undefined>, allow: string | null): Promise<SetupChange> {
  const home = env.HOME || homedir()
  const mcp = await import('./mcp.js')
  const argv = allow === null ? null : mcp.mcpArgv(pkArgv(), allow)
  if (agent === 'claude') {
    const file = mcp.claudeUserConfig(home, env)
    return mcp.planClaudeMcp(readIfExists(file), file, argv)
  }
  if (agent === 'codex') {
    const file = codexConfigFile(home, env)
    const {parse} = loadPackage('smol-toml') as typeof import('smol-toml')
    return mcp.planCodexMcp(readIfExists(file), file, argv, (text) => parse(text) as Record<string, unknown>)
  }
  if (agent === 'gemini') {
    const file = mcp.geminiUserSettings(home)
    return mcp.planGeminiMcp(readIfExists(file), file, argv)
  }
  if (agent === 'opencode') {
    const file = mcp.opencodeUserConfig(home, env)
    return mcp.planOpencodeMcp(readIfExists(file), file, argv)
  }
  throw new PkError('no-setup', `pk setup --mcp knows ${mcp.MCP_AGENTS.join(', ')}; ${JSON.stringify(agent)} has no MCP client configuration pk can write`)
}

/**
 * The agents whose settings name a pk hook, and whether it is this pk's (after an upgrade or a move, an old
 * path would run another pk, or nothing).
 */
export function installedHooks(env: Record<string, string | undefined>): {agent: string; file: string; thisPk: boolean}[] {
  const home = env.HOME || homedir()
  const mine = hookArgv(pkArgv(), 'x')[0]!
  const files: [string, string][] = [
    ['claude', claudeSettingsFile(home)],
    ['codex', codexConfigFile(home, env)],
    ['gemini', geminiSettingsFile(home)],
    ['opencode', opencodePluginFile(home, env)],
    ['pi', piExtensionFile(home, env)],
  ]
  return files.flatMap(([agent, file]) => {
    let text: string | null = null
    try {
      text = readIfExists(file)
    } catch {
      text = null
    }
    if (text === null || !/pk-hook\.sh|\bhook (claude|codex|gemini|opencode|pi)\b/.test(text)) return []
    return [{agent, file, thisPk: text.includes(mine) || text.includes(JSON.stringify(mine).slice(1, -1))}]
  })
}

/** The state directory, made and enrolled, so the installed hook has somewhere to write. */
export async function enrolStateDir(ctx: Context): Promise<void> {
  const {enrol} = await import('../registry/ownership.js')
  await enrol(ctx.writeState())
}

export interface SetupResult {
  change: SetupChange
  /** The backup of the file it changed, or null (unchanged, or nothing was there); absent when it failed. */
  backup?: string | null
  /** Why it could not be written (a settings file that is not JSON, a notify program of yours...). */
  error?: unknown
}

/**
 * `pk setup AGENT...`: plan every agent's change first (a name pk does not know, or a file it will not
 * touch, stops everything before anything is written), then write each, one after another; one that fails
 * does not stop the rest. The state directory is made and enrolled once something was installed.
 */
export async function setupAgents(
  ctx: Context,
  agents: readonly string[],
  progress: Progress = NO_PROGRESS,
  plan: (agent: string) => Promise<SetupChange> = (agent) => planSetup(agent, ctx.env),
): Promise<SetupResult[]> {
  const changes: SetupChange[] = []
  for (const agent of new Set(agents)) changes.push(await plan(agent))
  const title = (change: SetupChange) => `${change.agent}: ${change.file}`
  const results = await eachWithProgress(
    changes,
    title,
    async (change) => (change.changed ? applyChange(change) : null),
    progress,
    (backup) => (backup ? `backup ${backup}` : undefined),
  )
  // The agent's hook writes into pk's state directory only once it exists and names its owner.
  if (results.some((r) => r.ok && r.item.changed)) await enrolStateDir(ctx).catch(() => {})
  return results.map((r) => (r.ok ? {change: r.item, backup: r.value} : {change: r.item, error: r.error}))
}

export {applyChange}
export type {SetupChange}
