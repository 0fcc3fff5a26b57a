import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {SETUP_AGENTS, applyChange, installedHooks, planSetup} from '../../../src/lib/setup/index.js'

let home: string
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'pk-setup-home-'))
})
afterEach(() => rmSync(home, {recursive: true, force: true}))

describe('pk setup AGENT', () => {
  it('plans a change for each agent in its own file under HOME, and refuses one it has no hooks for', async () => {
    const env = {HOME: home}
    const files = []
    for (const agent of SETUP_AGENTS) {
      const plan = await planSetup(agent, env)
      expect(plan).toMatchObject({agent, before: null, changed: true})
      expect(plan.file.startsWith(home + '/')).toBe(true)
      files.push(plan.file)
    }
    expect(new Set(files).size).toBe(SETUP_AGENTS.length)
    await expect(planSetup('aider', env)).rejects.toMatchObject({code: 'no-setup', exitCode: 2})
  })
  it("finds the hooks it installed, and tells this pk's from another's", async () => {
    const env = {HOME: home}
    expect(installedHooks(env)).toEqual([])
    for (const agent of ['claude', 'gemini'] as const) applyChange(await planSetup(agent, env))
    expect(installedHooks(env)).toEqual([
      {agent: 'claude', file: join(home, '.claude', 'settings.json'), thisPk: true},
      {agent: 'gemini', file: join(home, '.gemini', 'settings.json'), thisPk: true},
    ])
    const {readFileSync, writeFileSync} = await import('node:fs')
    const claude = join(home, '.claude', 'settings.json')
    writeFileSync(claude, readFileSync(claude, 'utf8').replaceAll(/"[^"]*pk-hook\.sh"/g, '"/old/place/assets/pk-hook.sh"'))
    expect(installedHooks(env)[0]).toEqual({agent: 'claude', file: claude, thisPk: false})
  })
})
