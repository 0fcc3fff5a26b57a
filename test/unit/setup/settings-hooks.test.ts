import {describe, expect, it} from 'vitest'

import {HookEntry, planSettingsHooks} from '../../../src/lib/setup/settings-hooks.js'

const spec = {
  agent: 'x',
  events: ['Start', 'PreTool'],
  toolEvents: new Set(['PreTool']),
  entry: {type: 'command', command: '/new/pk-hook.sh', args: ['x']},
  isPk: (h: HookEntry) => typeof h.command === 'string' && h.command.endsWith('pk-hook.sh'),
}

describe("the settings.json hook planner (Claude Code's and Gemini CLI's)", () => {
  it("adds pk's group per event (matching every tool where events name tools) and keeps other keys", () => {
    const plan = planSettingsHooks(spec, '{"theme": "dark"}', '/h/settings.json')
    expect(JSON.parse(plan.after)).toEqual({theme: 'dark', hooks: {Start: [{hooks: [spec.entry]}], PreTool: [{matcher: '*', hooks: [spec.entry]}]}})
    expect(plan).toMatchObject({changed: true, notes: ['hooks for Start, PreTool']})
    expect(planSettingsHooks(spec, plan.after, '/h/settings.json')).toMatchObject({changed: false, notes: ['pk hooks already installed']})
  })
  it("replaces an older pk's entry, keeps the user's own hooks in the same group, and drops a group pk emptied", () => {
    const before = JSON.stringify({
      hooks: {
        Start: [
          {hooks: [{type: 'command', command: '/old/pk-hook.sh'}]},
          {
            hooks: [
              {type: 'command', command: 'notify-me'},
              {type: 'command', command: '/old/pk-hook.sh'},
            ],
          },
        ],
      },
    })
    const after = JSON.parse(planSettingsHooks(spec, before, 'f').after)
    expect(after.hooks.Start).toEqual([{hooks: [{type: 'command', command: 'notify-me'}]}, {hooks: [spec.entry]}])
  })
  it('starts from nothing for a missing or empty file, and refuses a file that is not a JSON object', () => {
    expect(planSettingsHooks(spec, null, 'f').changed).toBe(true)
    expect(planSettingsHooks(spec, '  ', 'f').changed).toBe(true)
    expect(() => planSettingsHooks(spec, '{"a": ', 'f')).toThrow(/f is not valid JSON/)
    expect(() => planSettingsHooks(spec, '[1]', 'f')).toThrow(/not a JSON object/)
  })
})
