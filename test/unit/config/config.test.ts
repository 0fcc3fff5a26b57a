import {describe, expect, it} from 'vitest'

import {findPreset, resumeArgv} from '../../../src/lib/agents/presets.js'
import {PROJECT_PLACES, USER_PLACES, checkProjectConfig, layerConfigs, mergePresets, validateConfig} from '../../../src/lib/config/config.js'
import {schema} from '../../../src/lib/config/config-validator.generated.js'
import {RULE_STATES} from '../../../src/lib/model/states.js'

describe('config', () => {
  it('accepts presets, overrides and defaults', async () => {
    const config = await validateConfig(
      {
        socket: 'work',
        defaultAgent: 'mine',
        agents: {
          mine: {
            command: ['my-agent', '--tui'],
            executables: ['my-agent'],
            resume: ['my-agent', '--resume', '{id}'],
            paneRules: [{state: 'waiting', pattern: '\\[y/N\\]'}],
          },
          claude: {command: ['claude', '--model', 'opus']},
        },
      },
      '/c/.pkrc',
    )
    const presets = mergePresets(config)
    expect(findPreset('mine', presets)!.command).toEqual(['my-agent', '--tui'])
    expect(findPreset('claude', presets)!.command).toEqual(['claude', '--model', 'opus'])
    expect(findPreset('claude', presets)!.paneRules).toEqual(findPreset('claude')!.paneRules)
    expect(resumeArgv('mine', 'c1', presets)).toEqual(['my-agent', '--resume', 'c1'])
  })
  it('limits: yours only (a project cannot make pk type into your sessions), and a message is one line of text', async () => {
    expect(() => checkProjectConfig({limits: {continue: 'all'}}, '/p/.pkrc')).toThrow(/limits/)
    await expect(validateConfig({limits: {continue: 'all', message: 'go on', messages: {codex: 'carry on'}}}, '/u')).resolves.toMatchObject({
      limits: {continue: 'all'},
    })
    await expect(validateConfig({limits: {continue: 'sometimes'}}, '/u')).rejects.toThrow(/limits\.continue: must be started, all or off/)
    await expect(validateConfig({limits: {message: 'go\non'}}, '/u')).rejects.toThrow(
      /limits\.message: must be a non-empty line of text without control characters/,
    )
    await expect(validateConfig({limits: {messages: {codex: '  '}}}, '/u')).rejects.toThrow(/limits\.messages\.codex/)
  })

  it("a project's usage rules add to yours, key by key", async () => {
    const user = await validateConfig({usage: {rates: {a: {input: 1}}, attention: {cost: 5}}}, '/u')
    const project = await validateConfig({usage: {rates: {b: {input: 2}}, contextWindows: {b: 1000}, attention: {context: 90}}}, '/p', user)
    expect(layerConfigs(user, project).usage).toEqual({rates: {a: {input: 1}, b: {input: 2}}, contextWindows: {b: 1000}, attention: {cost: 5, context: 90}})
  })
  it.each([
    [{colour: true}, /\/c\/\.pkrc: colour: unknown key/],
    [{socket: ''}, /socket: must be a non-empty string/],
    [{agents: {x: {command: 'x --y'}}}, /agents\.x\.command: must be a non-empty array/],
    [{agents: {x: {}}}, /agents\.x\.command: a new preset needs a command/],
    [{agents: {claude: {paneRules: [{state: 'busy', pattern: 'x'}]}}}, /agents\.claude\.paneRules\[0\]\.state: must be working, waiting or idle/],
    [{agents: {claude: {paneRules: [{state: 'idle', pattern: '('}]}}}, /agents\.claude\.paneRules\[0\]\.pattern: is not a valid regular expression/],
    [{agents: {claude: {resume: ['claude', '--resume']}}}, /agents\.claude\.resume: must be null or an argv array with \{id\}/],
    [{defaultAgent: 'nope'}, /defaultAgent: no preset named "nope"/],
    [{agents: {'Bad Name': {command: ['x']}}}, /agents\.Bad Name: preset names/],
    [[1, 2], /\(top level\): must be an object/],
    [{usage: {attention: {context: 120}}}, /usage\.attention\.context: must be a percent of the context window, more than 0 and at most 100/],
    [{usage: {attention: {cost: -1}}}, /usage\.attention\.cost: must be dollars spent in one session/],
    [{usage: {attention: {tokens: 5}}}, /usage\.attention\.tokens: unknown key/],
    [{usage: {contextWindows: {m: 0}}}, /usage\.contextWindows\.m: must be more than 0 tokens/],
    [{usage: {budget: 5}}, /usage\.budget: unknown key/],
  ])('rejects %j naming the file and key', async (data, message) => {
    await expect(validateConfig(data, '/c/.pkrc')).rejects.toThrow(message)
  })
})

describe('config places', () => {
  it("searches cosmiconfig's places: a project's data files only, and all of the user's own", async () => {
    const {getDefaultSearchPlaces, globalConfigSearchPlaces} = await import('cosmiconfig')
    expect([...PROJECT_PLACES]).toEqual(getDefaultSearchPlaces('pk').filter((p) => !/\.(c|m)?(js|ts)$/.test(p)))
    expect([...USER_PLACES]).toEqual(globalConfigSearchPlaces)
  })

  it("refuses a project's config that names programs, and layers a project over the user's config", async () => {
    expect(() => checkProjectConfig({agents: {claude: {command: ['x']}}}, '/p/.pkrc')).toThrow(/agents\.claude\.command/)
    expect(() => checkProjectConfig({agents: {claude: {resume: ['x', '{id}']}}}, '/p/.pkrc')).toThrow(/agents\.claude\.resume/)
    expect(() => checkProjectConfig({hosts: [{name: 'a', destination: 'b'}]}, '/p/.pkrc')).toThrow(/hosts/)
    // Nor where pk connects or writes, nor regular expressions every pk would run (issue #21).
    expect(() => checkProjectConfig({socket: 'x'}, '/p/.pkrc')).toThrow(/socket: a project's config cannot set/)
    expect(() => checkProjectConfig({worktrees: {dir: '/home/u/.config/pk'}}, '/p/.pkrc')).toThrow(/worktrees\.dir/)
    expect(() => checkProjectConfig({agents: {claude: {paneRules: []}}}, '/p/.pkrc')).toThrow(/agents\.claude\.paneRules/)
    expect(() => checkProjectConfig({defaultAgent: 'claude', worktrees: {branchPrefix: 'x/'}}, '/p/.pkrc')).not.toThrow()
    const user = {socket: 'mine', hosts: [{name: 'a', destination: 'b'}], agents: {mine: {command: ['m'], executables: ['m']}}}
    const layered = layerConfigs(user, {socket: 'project', agents: {mine: {paneRules: [{state: 'idle' as const, pattern: '>'}]}}})
    expect(layered).toEqual({
      socket: 'project',
      hosts: user.hosts,
      agents: {mine: {command: ['m'], executables: ['m'], paneRules: [{state: 'idle', pattern: '>'}]}},
    })
    // A project may pick the user's own preset as its default.
    expect(await validateConfig({defaultAgent: 'mine'}, '/p/.pkrc', user)).toEqual({defaultAgent: 'mine'})
  })
})

describe('the config schema', () => {
  it.each([
    [{hosts: [{name: 'a'}]}, /hosts\[0\]\.destination: must be an ssh destination/],
    [{hosts: {a: 1}}, /hosts: must be an array of \{name, destination/],
    [{hosts: [{name: 'a', destination: 'b', port: 22}]}, /hosts\[0\]\.port: unknown key \(known: name, destination, pk, options, timeout\)/],
    [{notify: [{tmux: true, command: ['x']}]}, /notify\[0\]: must be an array of \{"tmux": true\}/],
    [{notify: [{command: ['x'], timeout: 61}]}, /notify\[0\]\.timeout: must be a number of seconds, more than 0 and at most 60/],
    [{notify: [{desktop: false}]}, /notify\[0\]/],
    [{worktrees: {dir: ''}}, /worktrees\.dir: must be a directory path/],
    [{worktrees: {setup: {'*': []}}}, /worktrees\.setup\.\*: must map a repository path/],
    [{usage: {rates: {m: {input: 'cheap'}}}}, /usage\.rates\.m\.input: must be dollars per million tokens, a number/],
    [{usage: {rates: {m: {tokens: 1}}}}, /usage\.rates\.m\.tokens: unknown key \(known: input, output, cacheRead, cacheWrite\)/],
    [{agents: {x: {command: ['x'], paneRules: [{state: 'idle'}]}}}, /agents\.x\.paneRules\[0\]\.pattern: must be a non-empty regular expression/],
    [{agents: {x: {command: ['x'], paneRules: [{state: 'idle', pattern: '>', lines: 0}]}}}, /agents\.x\.paneRules\[0\]\.lines: must be a whole number/],
    [{agents: {x: {command: ['x'], hooks: 1}}}, /agents\.x\.hooks: must be a string or null/],
    [{'a/b': 1}, /a\/b: unknown key/],
  ])('refuses %j with what the schema says of that key', async (data, message) => {
    await expect(validateConfig(data, '/c/.pkrc')).rejects.toThrow(message)
  })
  it('accepts every kind of notify channel and host, as written', async () => {
    const config = {
      notify: [{tmux: true}, {desktop: true}, {command: ['notify-send', 'pk'], timeout: 5}],
      hosts: [{name: 'box', destination: 'u@box', pk: 'npx pk', options: ['-p', '2222'], timeout: 3}],
    }
    expect(await validateConfig(config, '/c/.pkrc')).toEqual(config)
  })
  it('names the states a pane rule may set as pk knows them', () => {
    const at = (node: unknown, ...keys: string[]) => keys.reduce((n, k) => (n as Record<string, unknown>)[k], node) as {enum: string[]}
    const rule = at(schema, 'properties', 'agents', 'additionalProperties', 'properties', 'paneRules', 'items', 'properties', 'state')
    expect(rule.enum).toEqual([...RULE_STATES])
  })
})

describe('a long-running pk sees a changed config (issue #24: watchers never reloaded it)', () => {
  it('reads the config again once what it read is ten seconds old', async () => {
    const {mkdtempSync, mkdirSync, writeFileSync, rmSync} = await import('node:fs')
    const {tmpdir} = await import('node:os')
    const {join} = await import('node:path')
    const {loadConfig, CONFIG_FRESH_MS} = await import('../../../src/lib/config/config.js')
    const home = mkdtempSync(join(tmpdir(), 'pk-config-'))
    try {
      mkdirSync(join(home, '.config', 'pk'), {recursive: true})
      const file = join(home, '.config', 'pk', 'config.json')
      writeFileSync(file, JSON.stringify({defaultAgent: 'claude'}))
      const env = {HOME: home}
      const t0 = 1_000_000
      expect((await loadConfig(home, env, t0)).config.defaultAgent).toBe('claude')
      writeFileSync(file, JSON.stringify({defaultAgent: 'codex'}))
      expect((await loadConfig(home, env, t0 + 1000)).config.defaultAgent).toBe('claude')
      expect((await loadConfig(home, env, t0 + CONFIG_FRESH_MS + 1)).config.defaultAgent).toBe('codex')
    } finally {
      rmSync(home, {recursive: true, force: true})
    }
  })
})

describe('the schemas pk publishes (issue 62)', () => {
  it("compile in ajv's strict mode, with no keyword of pk's own: the config's messages are kept apart, by each node's pointer", async () => {
    const {readdirSync, readFileSync} = await import('node:fs')
    const {join} = await import('node:path')
    const {Ajv} = await import('ajv')
    const dir = join(import.meta.dirname, '..', '..', '..', 'schemas')
    const schemas = readdirSync(dir)
      .filter((f) => f.endsWith('.schema.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as {$id?: string})
    const ajv = new Ajv({strict: true, strictRequired: false, allowUnionTypes: true})
    for (const schema of schemas) ajv.addSchema(schema)
    for (const schema of schemas) expect(() => ajv.getSchema(schema.$id!), schema.$id).not.toThrow()
    expect(JSON.stringify(schemas)).not.toContain('errorMessage')
  })
})
