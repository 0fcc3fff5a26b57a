import {parse} from 'smol-toml'
import {describe, expect, it} from 'vitest'

import {MCP_ENV_VARS, mcpArgv, planClaudeMcp, planCodexMcp, planGeminiMcp, planOpencodeMcp, withoutCodexTable} from '../../../src/lib/setup/mcp.js'

const ARGV = mcpArgv(['/usr/bin/node', '/opt/pk/bin/run.js'], 'read,act')
const toml = (text: string) => parse(text) as Record<string, unknown>

describe('pk setup AGENT --mcp (pure plans)', () => {
  it("Claude Code: ~/.claude.json's mcpServers.pk, the user's other servers and keys kept; again: unchanged; --remove takes only pk out", () => {
    const before = JSON.stringify({numStartups: 3, mcpServers: {docs: {type: 'stdio', command: 'docs-mcp', args: []}}})
    const plan = planClaudeMcp(before, '.claude.json', ARGV)
    expect(JSON.parse(plan.after)).toEqual({
      numStartups: 3,
      mcpServers: {
        docs: {type: 'stdio', command: 'docs-mcp', args: []},
        pk: {type: 'stdio', command: '/usr/bin/node', args: ['/opt/pk/bin/run.js', 'mcp', '--allow', 'read,act'], env: {}},
      },
    })
    expect(planClaudeMcp(plan.after, '.claude.json', ARGV).changed).toBe(false)
    const removed = planClaudeMcp(plan.after, '.claude.json', null)
    expect(removed).toMatchObject({changed: true, verb: 'took out'})
    expect(JSON.parse(removed.after)).toEqual(JSON.parse(before))
    expect(planClaudeMcp(before, '.claude.json', null).changed).toBe(false)
    expect(planClaudeMcp(null, '.claude.json', null).changed).toBe(false)
  })

  it('Gemini CLI and opencode: their own shapes; a file that is not JSON is refused, never overwritten', () => {
    expect(JSON.parse(planGeminiMcp(null, 'settings.json', ARGV).after)).toEqual({mcpServers: {pk: {command: '/usr/bin/node', args: ARGV.slice(1)}}})
    expect(JSON.parse(planOpencodeMcp('{"$schema": "https://opencode.ai/config.json"}', 'opencode.json', ARGV).after)).toEqual({
      $schema: 'https://opencode.ai/config.json',
      mcp: {pk: {type: 'local', command: ARGV, enabled: true}},
    })
    expect(() => planGeminiMcp('{ // comment\n}', 'settings.json', ARGV)).toThrow(/not valid JSON.*will not overwrite/)
    expect(() => planClaudeMcp('{"mcpServers": []}', '.claude.json', ARGV)).toThrow(/mcpServers is not a JSON object/)
  })

  it("Codex: a [mcp_servers.pk] table after the user's, comments kept, the variables pk needs passed on; again: unchanged; --remove: as before", () => {
    const before = '# mine\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'
    const plan = planCodexMcp(before, 'config.toml', ARGV, toml)
    expect(plan.after.startsWith(before)).toBe(true)
    expect(toml(plan.after)).toEqual({
      model: 'o3',
      mcp_servers: {docs: {command: 'docs-mcp'}, pk: {command: '/usr/bin/node', args: ARGV.slice(1), env_vars: MCP_ENV_VARS}},
    })
    expect(planCodexMcp(plan.after, 'config.toml', ARGV, toml).changed).toBe(false)
    // Other rights: the table is replaced, not added twice.
    const land = planCodexMcp(plan.after, 'config.toml', mcpArgv(['/usr/bin/node', '/opt/pk/bin/run.js'], 'read,act,land'), toml)
    expect((toml(land.after).mcp_servers as {pk: {args: string[]}}).pk.args.at(-1)).toBe('read,act,land')
    expect(land.after.match(/\[mcp_servers\.pk\]/g)).toHaveLength(1)
    const removed = planCodexMcp(plan.after, 'config.toml', null, toml)
    expect(toml(removed.after)).toEqual(toml(before))
    expect(planCodexMcp(before, 'config.toml', null, toml).changed).toBe(false)
    expect(() => planCodexMcp('model = ', 'config.toml', ARGV, toml)).toThrow(/not valid TOML/)
  })

  it("takes out only pk's table and its subtables, quoted or not", () => {
    const text = '[a]\nx = 1\n[mcp_servers."pk"]\ncommand = "x"\n[mcp_servers.pk.env]\nA = "1"\n[mcp_servers.pkx]\ncommand = "y"\n'
    expect(withoutCodexTable(text)).toBe('[a]\nx = 1\n[mcp_servers.pkx]\ncommand = "y"\n')
  })
})
