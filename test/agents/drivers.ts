import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {MCP_ENV_VARS} from '../../src/lib/setup/mcp.js'
import {PK_BIN} from '../helpers/sandbox.js'

/**
 * How each agent is set up to run against the fake model API with no key and no network: the files a
 * user's first run would have made (sign-in done, the folder trusted, the key approved) and the
 * environment that points the agent at the fake. What each agent is asked to do is in its check.
 */
export interface AgentDriver {
  /** The agent's name in test/agents/package.json's releases (and pk's preset). */
  name: string
  preset: string
  /** The npm package it comes from. */
  pkg: string
  env(api: string): Record<string, string>
  setup(where: {home: string; work: string; api: string; version: string}): void
  /** hook.log lines that put an event on nobody, as the agent is known to send them (Codex's title thread). */
  expectedStrays: RegExp[]
  /**
   * What the agent says of its own state, read as the agent wrote it (not through pk): each step that waits
   * for working, waiting or idle also waits for this to say the same (the agents' own sources, issue 69).
   */
  ownState?(home: string, pid: number): string | null
}

const json = (file: string, value: unknown) => {
  mkdirSync(join(file, '..'), {recursive: true})
  writeFileSync(file, JSON.stringify(value, null, 2))
}

/** A key Claude Code takes for an API key (it approves a key by its last 20 characters). */
const CLAUDE_KEY = 'sk-ant-api03-pk-agents-check-0000000000000000000000000000000000000000'

export const claude: AgentDriver = {
  name: 'claude',
  preset: 'claude',
  pkg: '@anthropic-ai/claude-code',
  env: (api) => ({ANTHROPIC_API_KEY: CLAUDE_KEY, ANTHROPIC_BASE_URL: api, DISABLE_AUTOUPDATER: '1'}),
  setup({home, work, version}) {
    json(join(home, '.claude.json'), {
      hasCompletedOnboarding: true,
      lastOnboardingVersion: version,
      customApiKeyResponses: {approved: [CLAUDE_KEY.slice(-20)], rejected: []},
      projects: {[work]: {hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true}},
    })
    // Manual permission mode, as a careful user keeps it: Claude asks before it acts (and, until answered
    // once, offers to make auto mode the default).
    json(join(home, '.claude', 'settings.json'), {permissions: {defaultMode: 'default'}})
  },
  expectedStrays: [],
  // Claude Code's live record of itself (src/lib/agents/claude/record.ts): busy and shell are working.
  ownState(home, pid) {
    try {
      const status = (JSON.parse(readFileSync(join(home, '.claude', 'sessions', `${pid}.json`), 'utf8')) as {status?: string}).status
      return status === 'busy' || status === 'shell' ? 'working' : (status ?? null)
    } catch {
      return null
    }
  },
}

export const codex: AgentDriver = {
  name: 'codex',
  preset: 'codex',
  pkg: '@openai/codex',
  env: () => ({}),
  setup({home, work, api}) {
    mkdirSync(join(home, '.codex'), {recursive: true})
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      [
        'model = "fake-model"',
        'model_provider = "fake"',
        'approval_policy = "on-request"',
        '',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = "${api}/v1"`,
        'wire_api = "responses"',
        // (a failing server retried twice, as a user sees it do for a while: "Reconnecting...")
        'request_max_retries = 2',
        'stream_max_retries = 2',
        '',
        `[projects."${work}"]`,
        'trust_level = "trusted"',
        '',
        `[projects."${work}-other"]`,
        'trust_level = "trusted"',
        '',
        // pk's tools, as pk setup codex --mcp writes them (its own check calls one as a lead would): in from
        // the start, since every window's daemon reads its MCP servers as it starts.
        '[mcp_servers.pk]',
        `command = ${JSON.stringify(process.execPath)}`,
        `args = ${JSON.stringify([PK_BIN, 'mcp', '--allow', 'read,act'])}`,
        `env_vars = ${JSON.stringify(MCP_ENV_VARS)}`,
        '',
      ].join('\n'),
    )
  },
  // The side thread that writes a conversation's title has no rollout file: its turn is nobody's.
  expectedStrays: [/is not a conversation \(no rollout file\): a side thread/],
}

export const gemini: AgentDriver = {
  name: 'gemini',
  preset: 'gemini',
  pkg: '@google/gemini-cli',
  env: (api) => ({GEMINI_API_KEY: 'pk-agents-check', GOOGLE_GEMINI_BASE_URL: api}),
  setup({home}) {
    json(join(home, '.gemini', 'settings.json'), {security: {folderTrust: {enabled: false}, auth: {selectedType: 'gemini-api-key'}}})
  },
  expectedStrays: [],
}

export const opencode: AgentDriver = {
  name: 'opencode',
  preset: 'opencode',
  pkg: 'opencode-ai',
  env: () => ({}),
  setup({home, api}) {
    json(join(home, '.config', 'opencode', 'opencode.json'), {
      $schema: 'https://opencode.ai/config.json',
      autoupdate: false,
      model: 'fake/fake-model',
      provider: {
        fake: {
          npm: '@ai-sdk/openai-compatible',
          name: 'fake',
          options: {baseURL: `${api}/v1`, apiKey: 'pk-agents-check'},
          models: {'fake-model': {name: 'fake-model'}},
        },
      },
      permission: {bash: 'ask'},
    })
  },
  expectedStrays: [],
}

export const pi: AgentDriver = {
  name: 'pi',
  preset: 'pi',
  pkg: '@earendil-works/pi-coding-agent',
  env: () => ({}),
  setup({home, api}) {
    json(join(home, '.pi', 'agent', 'models.json'), {
      providers: {fake: {baseUrl: `${api}/v1`, api: 'openai-completions', apiKey: 'pk-agents-check', models: [{id: 'fake-model', contextWindow: 128000}]}},
    })
    json(join(home, '.pi', 'agent', 'settings.json'), {defaultProvider: 'fake', defaultModel: 'fake-model'})
  },
  expectedStrays: [],
}

export const DRIVERS: Record<string, AgentDriver> = {claude, codex, gemini, opencode, pi}
