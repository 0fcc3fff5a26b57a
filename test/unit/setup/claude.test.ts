import {describe, expect, it} from 'vitest'

import {isPkClaudeCommand, planClaude} from '../../../src/lib/setup/claude.js'

const PK = ['/usr/bin/node', '/opt/pk/bin/run.js']

describe('pk setup claude (pure plan)', () => {
  it('adds pk hooks, keeps other settings and hooks, and is idempotent', () => {
    const before = JSON.stringify({
      model: 'opus',
      hooks: {Stop: [{hooks: [{type: 'command', command: 'say done'}]}], PreToolUse: [{matcher: 'Bash', hooks: [{type: 'command', command: 'audit'}]}]},
    })
    const first = planClaude(before, 'settings.json', PK)
    expect(first.changed).toBe(true)
    const after = JSON.parse(first.after)
    expect(after.model).toBe('opus')
    expect(after.hooks.Stop).toEqual([
      {hooks: [{type: 'command', command: 'say done'}]},
      {hooks: [{type: 'command', command: '/opt/pk/assets/pk-hook.sh', args: ['claude', '/usr/bin/node'], async: true, timeout: 10}]},
    ])
    expect(after.hooks.PreToolUse[0]).toEqual({matcher: 'Bash', hooks: [{type: 'command', command: 'audit'}]})
    expect(after.hooks.PreToolUse[1].matcher).toBe('*')
    expect(Object.keys(after.hooks).sort()).toEqual([
      'Notification',
      'PermissionRequest',
      'PostToolUse',
      'PreToolUse',
      'SessionEnd',
      'SessionStart',
      'Stop',
      'StopFailure',
      'UserPromptSubmit',
    ])
    expect(planClaude(first.after, 'settings.json', PK).changed).toBe(false)
  })
  it('replaces an older pk install path instead of adding a second hook', () => {
    const old = planClaude(null, 'settings.json', ['/old/node', '/old/pk/bin/run.js']).after
    const moved = JSON.parse(planClaude(old, 'settings.json', PK).after)
    expect(moved.hooks.Stop).toHaveLength(1)
    expect(moved.hooks.Stop[0].hooks[0].command).toBe('/opt/pk/assets/pk-hook.sh')
    // An install from before the sh hook (node running pk hook claude) is replaced too.
    const nodeForm = JSON.stringify({
      hooks: {Stop: [{hooks: [{type: 'command', command: '/old/node', args: ['/old/pk/bin/run.js', 'hook', 'claude'], async: true}]}]},
    })
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
