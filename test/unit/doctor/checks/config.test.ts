import {describe, expect, it} from 'vitest'

import {configCheck} from '../../../../src/lib/doctor/checks/config.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'

describe('the config check', () => {
  it('fails on a config that does not load, naming why, before anything about hooks', () => {
    const stale = [{agent: 'claude', file: '/h/.claude/settings.json', thisPk: false}]
    expect(configCheck.judge(doctorFacts({configError: 'invalid config in /p/.pkrc: socket: must be a non-empty string', hooks: stale}))).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/socket: must be/),
      fixable: false,
    })
  })
  it('warns about hooks that run another pk, with the command that points them here', () => {
    const hooks = [
      {agent: 'claude', file: '/h/.claude/settings.json', thisPk: false},
      {agent: 'pi', file: '/h/.pi/agent/extensions/pk.ts', thisPk: true},
      {agent: 'codex', file: '/h/.codex/config.toml', thisPk: false},
    ]
    expect(configCheck.judge(doctorFacts({configError: null, hooks}))).toEqual({
      status: 'warn',
      message: 'installed hooks run another pk (moved or upgraded?): claude in /h/.claude/settings.json, codex in /h/.codex/config.toml',
      fix: 'pk setup claude; pk setup codex',
      fixable: false,
    })
  })
  it('passes, naming the hooks that run this pk', () => {
    expect(configCheck.judge(doctorFacts({configError: null, hooks: [{agent: 'gemini', file: 'f', thisPk: true}]}))).toMatchObject({
      status: 'pass',
      message: 'configuration loads; hooks of gemini run this pk',
    })
    expect(configCheck.judge(doctorFacts({})).message).toBe('configuration loads')
  })
})
