import {describe, expect, it} from 'vitest'

import {isPkGeminiHook, planGemini} from '../../../src/lib/setup/gemini.js'

const PK = ['/usr/bin/node', '/opt/pk/bin/run.js']

describe('pk setup gemini (pure plan)', () => {
  it("adds named hooks that run pk's sh hook through Gemini's shell, keeps the rest, is idempotent and replaces a moved pk", () => {
    const before = JSON.stringify({
      security: {auth: {selectedType: 'gemini-api-key'}},
      hooks: {AfterAgent: [{hooks: [{type: 'command', command: 'notify-me'}]}]},
    })
    const plan = planGemini(before, 'settings.json', ['/usr/bin/node', "/opt/it's pk/bin/run.js"])
    const after = JSON.parse(plan.after)
    expect(after.security).toEqual({auth: {selectedType: 'gemini-api-key'}})
    expect(Object.keys(after.hooks).sort()).toEqual(['AfterAgent', 'BeforeAgent', 'Notification', 'SessionEnd', 'SessionStart'])
    expect(after.hooks.AfterAgent[0]).toEqual({hooks: [{type: 'command', command: 'notify-me'}]})
    // Quoted for sh, an apostrophe in the path included.
    expect(after.hooks.AfterAgent[1].hooks[0]).toMatchObject({
      name: 'pk',
      type: 'command',
      command: `'/opt/it'\\''s pk/assets/pk-hook.sh' gemini /usr/bin/node`,
      timeout: 5000,
    })
    expect(planGemini(plan.after, 'settings.json', ['/usr/bin/node', "/opt/it's pk/bin/run.js"]).changed).toBe(false)
    const moved = JSON.parse(planGemini(plan.after, 'settings.json', PK).after)
    expect(moved.hooks.AfterAgent.map((g: {hooks: {command: string}[]}) => g.hooks[0]!.command)).toEqual([
      'notify-me',
      '/opt/pk/assets/pk-hook.sh gemini /usr/bin/node',
    ])
    expect(isPkGeminiHook({command: 'pk hook gemini'})).toBe(true)
    expect(isPkGeminiHook({command: 'notify-me gemini'})).toBe(false)
  })
})
