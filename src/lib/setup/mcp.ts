import {join} from 'node:path'

import {PkError} from '../model/errors.js'
import {SetupChange} from './common.js'
import {parseSettings} from './settings-hooks.js'

/**
 * `pk setup AGENT --mcp`: pk mcp registered in each agent's own MCP configuration, at user scope, with the
 * rights given (--allow); `--remove` takes it out. Each file is edited as data (JSON) or as text (Codex's
 * TOML, so comments and layout survive), under the name `pk`; the user's other servers stay as they are.
 */

export const MCP_AGENTS = ['claude', 'codex', 'gemini', 'opencode'] as const

/** The server's argv: this pk, by absolute paths (an agent's PATH may not have it), with its rights. */
export const mcpArgv = (pk: string[], allow: string) => [...pk, 'mcp', '--allow', allow]

/**
 * What pk mcp needs of the agent's environment to find the same state and tmux servers as the pk that
 * started it: Codex passes an MCP server only a short list of variables unless told (env_vars).
 */
export const MCP_ENV_VARS = ['PK_STATE_DIR', 'PK_PROCESS_SOURCE', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME', 'XDG_RUNTIME_DIR', 'TMUX_TMPDIR', 'TMUX', 'TMUX_PANE']

/** Pure: a JSON settings file with `key.pk` set to `entry` (or taken out, with entry null); the rest as it was. */
export function planJsonServer(agent: string, before: string | null, file: string, key: string, entry: object | null): SetupChange {
  const data = parseSettings(before, file)
  const servers = data[key] ?? {}
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) throw new PkError('bad-settings', `${file}: ${key} is not a JSON object`)
  const next = {...(servers as Record<string, unknown>)}
  if (entry === null) delete next.pk
  else next.pk = entry
  const same = JSON.stringify((servers as Record<string, unknown>).pk) === JSON.stringify(entry ?? undefined)
  if (same)
    return {agent, file, before, after: before ?? '', changed: false, notes: [entry === null ? 'pk mcp is not registered' : 'pk mcp already registered']}
  const after = JSON.stringify({...data, [key]: next}, null, 2) + '\n'
  return {agent, file, before, after, changed: true, notes: [`MCP server pk (${key}.pk)`], ...(entry === null ? {verb: 'took out'} : {})}
}

/** Where Claude Code keeps its user-scope MCP servers (`claude mcp add --scope user`): ~/.claude.json, or in CLAUDE_CONFIG_DIR. */
export const claudeUserConfig = (home: string, env: Record<string, string | undefined>) => join(env.CLAUDE_CONFIG_DIR || home, '.claude.json')
export const geminiUserSettings = (home: string) => join(home, '.gemini', 'settings.json')
export const opencodeUserConfig = (home: string, env: Record<string, string | undefined>) =>
  join(env.XDG_CONFIG_HOME || join(home, '.config'), 'opencode', 'opencode.json')

export function planClaudeMcp(before: string | null, file: string, argv: string[] | null): SetupChange {
  return planJsonServer('claude', before, file, 'mcpServers', argv === null ? null : {type: 'stdio', command: argv[0], args: argv.slice(1), env: {}})
}

export function planGeminiMcp(before: string | null, file: string, argv: string[] | null): SetupChange {
  return planJsonServer('gemini', before, file, 'mcpServers', argv === null ? null : {command: argv[0], args: argv.slice(1)})
}

export function planOpencodeMcp(before: string | null, file: string, argv: string[] | null): SetupChange {
  return planJsonServer('opencode', before, file, 'mcp', argv === null ? null : {type: 'local', command: argv, enabled: true})
}

/** Pure: Codex's `[mcp_servers.pk]` table as TOML text. */
export const codexTable = (argv: string[]) =>
  `[mcp_servers.pk]\ncommand = ${JSON.stringify(argv[0])}\nargs = ${JSON.stringify(argv.slice(1))}\nenv_vars = ${JSON.stringify(MCP_ENV_VARS)}\n`

/** Pure: the text with pk's `[mcp_servers.pk]` table (and its subtables) taken out. */
export function withoutCodexTable(text: string): string {
  const lines = text.split('\n')
  const kept: string[] = []
  let inPk = false
  for (const line of lines) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line)
    if (header) inPk = /^mcp_servers\.("pk"|pk)(\.|$)/.test(header[1]!.replace(/\s/g, ''))
    if (!inPk) kept.push(line)
  }
  return kept.join('\n')
}

/** Pure (given a TOML parser): config.toml with pk's MCP server (or without it). */
export function planCodexMcp(before: string | null, file: string, argv: string[] | null, parse: (text: string) => Record<string, unknown>): SetupChange {
  const read = (text: string) => {
    try {
      return parse(text)
    } catch (error) {
      throw new PkError('bad-settings', `${file} is not valid TOML (${(error as Error).message}); fix it first, pk will not overwrite it`)
    }
  }
  const existing = before === null ? undefined : (read(before).mcp_servers as Record<string, unknown> | undefined)?.pk
  const rest = before === null ? '' : withoutCodexTable(before)
  const after = argv === null ? rest : `${rest.replace(/\n*$/, rest.trim() === '' ? '' : '\n\n')}${codexTable(argv)}`
  if (after === (before ?? '') || (argv === null && existing === undefined))
    return {
      agent: 'codex',
      file,
      before,
      after: before ?? '',
      changed: false,
      notes: [argv === null ? 'pk mcp is not registered' : 'pk mcp already registered'],
    }
  // What is written must read back as what was meant.
  const back = (read(after).mcp_servers as Record<string, unknown> | undefined)?.pk as {command?: string; args?: string[]} | undefined
  if (argv !== null && JSON.stringify([back?.command, ...(back?.args ?? [])]) !== JSON.stringify(argv))
    throw new PkError('bad-settings', `${file}: pk could not place its [mcp_servers.pk] table in it cleanly; add it by hand:\n${codexTable(argv)}`)
  return {agent: 'codex', file, before, after, changed: true, notes: ['MCP server pk ([mcp_servers.pk])'], ...(argv === null ? {verb: 'took out'} : {})}
}
