import {parse} from 'smol-toml'
import {describe, expect, it} from 'vitest'

import {planCodex} from '../../../src/lib/setup/codex.js'

const PK = ['/usr/bin/node', '/opt/pk/bin/run.js']
const toml = (text: string) => parse(text) as Record<string, unknown>

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
