import {parse} from 'smol-toml'
import {describe, expect, it} from 'vitest'

import {isPkClaudeCommand, planClaude} from '../../../src/lib/setup/claude.js'
import {planCodex} from '../../../src/lib/setup/codex.js'
import {isPkGeminiHook, planGemini} from '../../../src/lib/setup/gemini.js'
import {renderPiExtension} from '../../../src/lib/setup/pi.js'

const PK = ['/usr/bin/node', '/opt/pk/bin/run.js']
const toml = (text: string) => parse(text) as Record<string, unknown>

describe('pk setup claude (pure plan)', () => {
  it('adds pk hooks, keeps other settings and hooks, and is idempotent', () => {
    const before = JSON.stringify({model: 'opus', hooks: {Stop: [{hooks: [{type: 'command', command: 'say done'}]}], PreToolUse: [{matcher: 'Bash', hooks: [{type: 'command', command: 'audit'}]}]}})
    const first = planClaude(before, 'settings.json', PK)
    expect(first.changed).toBe(true)
    const after = JSON.parse(first.after)
    expect(after.model).toBe('opus')
    expect(after.hooks.Stop).toEqual([{hooks: [{type: 'command', command: 'say done'}]}, {hooks: [{type: 'command', command: '/opt/pk/assets/pk-hook.sh', args: ['claude', '/usr/bin/node'], async: true, timeout: 10}]}])
    expect(after.hooks.PreToolUse[0]).toEqual({matcher: 'Bash', hooks: [{type: 'command', command: 'audit'}]})
    expect(after.hooks.PreToolUse[1].matcher).toBe('*')
    expect(Object.keys(after.hooks).sort()).toEqual(['Notification', 'PermissionRequest', 'PostToolUse', 'PreToolUse', 'SessionEnd', 'SessionStart', 'Stop', 'StopFailure', 'UserPromptSubmit'])
    expect(planClaude(first.after, 'settings.json', PK).changed).toBe(false)
  })
  it('replaces an older pk install path instead of adding a second hook', () => {
    const old = planClaude(null, 'settings.json', ['/old/node', '/old/pk/bin/run.js']).after
    const moved = JSON.parse(planClaude(old, 'settings.json', PK).after)
    expect(moved.hooks.Stop).toHaveLength(1)
    expect(moved.hooks.Stop[0].hooks[0].command).toBe('/opt/pk/assets/pk-hook.sh')
    // An install from before the sh hook (node running pk hook claude) is replaced too.
    const nodeForm = JSON.stringify({hooks: {Stop: [{hooks: [{type: 'command', command: '/old/node', args: ['/old/pk/bin/run.js', 'hook', 'claude'], async: true}]}]}})
    expect(JSON.parse(planClaude(nodeForm, 'settings.json', PK).after).hooks.Stop).toHaveLength(1)
    // An install from before the exec form (a shell command) is replaced too.
    const shellForm = JSON.stringify({hooks: {Stop: [{hooks: [{type: 'command', command: "'/old/node' '/old/pk/bin/run.js' hook claude", timeout: 10}]}]}})
    expect(JSON.parse(planClaude(shellForm, 'settings.json', PK).after).hooks.Stop).toHaveLength(1)
    expect(isPkClaudeCommand('pk hook claude')).toBe(true)
    expect(isPkClaudeCommand('say hook claude please')).toBe(false)
  })
  it('refuses to touch a file that is not JSON', () => {
    expect(() => planClaude('{oops', 'settings.json', PK)).toThrow(/not valid JSON/)
  })
})

describe('pk setup gemini (pure plan)', () => {
  it("adds named hooks that run pk's sh hook through Gemini's shell, keeps the rest, is idempotent and replaces a moved pk", () => {
    const before = JSON.stringify({security: {auth: {selectedType: 'gemini-api-key'}}, hooks: {AfterAgent: [{hooks: [{type: 'command', command: 'notify-me'}]}]}})
    const plan = planGemini(before, 'settings.json', ['/usr/bin/node', "/opt/it's pk/bin/run.js"])
    const after = JSON.parse(plan.after)
    expect(after.security).toEqual({auth: {selectedType: 'gemini-api-key'}})
    expect(Object.keys(after.hooks).sort()).toEqual(['AfterAgent', 'BeforeAgent', 'Notification', 'SessionEnd', 'SessionStart'])
    expect(after.hooks.AfterAgent[0]).toEqual({hooks: [{type: 'command', command: 'notify-me'}]})
    // Quoted for sh, an apostrophe in the path included.
    expect(after.hooks.AfterAgent[1].hooks[0]).toMatchObject({name: 'pk', type: 'command', command: `'/opt/it'\\''s pk/assets/pk-hook.sh' gemini /usr/bin/node`, timeout: 5000})
    expect(planGemini(plan.after, 'settings.json', ['/usr/bin/node', "/opt/it's pk/bin/run.js"]).changed).toBe(false)
    const moved = JSON.parse(planGemini(plan.after, 'settings.json', PK).after)
    expect(moved.hooks.AfterAgent.map((g: {hooks: {command: string}[]}) => g.hooks[0]!.command)).toEqual(['notify-me', '/opt/pk/assets/pk-hook.sh gemini /usr/bin/node'])
    expect(isPkGeminiHook({command: 'pk hook gemini'})).toBe(true)
    expect(isPkGeminiHook({command: 'notify-me gemini'})).toBe(false)
  })
})

describe('pk setup codex (pure plan)', () => {
  it('adds a top-level notify before the first table, keeping comments', () => {
    const before = '# mine\nmodel = "o3"\n\n[profiles.fast]\nmodel = "o4-mini"\n'
    const plan = planCodex(before, 'config.toml', PK, toml)
    expect(plan.after).toContain('# mine\n')
    expect(toml(plan.after)).toEqual({model: 'o3', notify: ['/opt/pk/assets/pk-hook.sh', 'codex', '/usr/bin/node'], profiles: {fast: {model: 'o4-mini'}}})
    expect(planCodex(plan.after, 'config.toml', PK, toml).changed).toBe(false)
    expect(toml(planCodex(null, 'config.toml', PK, toml).after)).toEqual({notify: ['/opt/pk/assets/pk-hook.sh', 'codex', '/usr/bin/node']})
    // The notify of a pk from before the sh hook is pk's own, and replaced.
    expect(planCodex(`notify = ${JSON.stringify([...PK, 'hook', 'codex'])}\n`, 'config.toml', PK, toml).changed).toBe(true)
  })
  it("never replaces the user's own notify program", () => {
    expect(() => planCodex('notify = ["terminal-notifier"]\n', 'config.toml', PK, toml)).toThrow(/already has notify/)
  })
})

describe('pk setup pi', () => {
  it('fills pk into the shipped extension', () => {
    expect(renderPiExtension('const PK = __PK_ARGV__', PK)).toBe('const PK = ["/usr/bin/node","/opt/pk/bin/run.js"]')
  })
})
