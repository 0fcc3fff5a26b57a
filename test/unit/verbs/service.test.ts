import {describe, expect, it} from 'vitest'

import {surviveCheck} from '../../../src/lib/doctor/checks/survive.js'
import {DoctorFacts} from '../../../src/lib/doctor/types.js'
import {cronLine, editCrontab, parseKillUserProcesses, systemdUnit} from '../../../src/lib/verbs/service.js'

describe('service manager data', () => {
  it("reads logind's KillUserProcesses as systemd does: [Login] only, the last file wins, unset is unknown", () => {
    expect(parseKillUserProcesses([])).toBeNull()
    expect(parseKillUserProcesses(['[Login]\n#KillUserProcesses=yes\n'])).toBeNull()
    expect(parseKillUserProcesses(['[Login]\nKillUserProcesses=yes\n'])).toBe(true)
    expect(parseKillUserProcesses(['[Login]\nKillUserProcesses=yes\n', '[Login]\nKillUserProcesses=no\n'])).toBe(false)
    expect(parseKillUserProcesses(['[Other]\nKillUserProcesses=yes\n'])).toBeNull()
  })
  it('writes a unit and a crontab line that run exactly pk restore, with paths quoted', () => {
    const pk = ['/usr/bin/node', "/opt/my pk/bin/run.js"]
    const unit = systemdUnit(pk, {PK_STATE_DIR: '/s', HOME: '/h'})
    expect(unit).toContain("ExecStart=/usr/bin/node '/opt/my pk/bin/run.js' restore --yes --autostart")
    expect(unit).toContain('Environment=PK_STATE_DIR=/s')
    expect(cronLine(pk, {})).toBe("@reboot env /usr/bin/node '/opt/my pk/bin/run.js' restore --yes --autostart >/dev/null 2>&1")
  })
  it("edits a crontab: pk's entry once, the user's lines untouched", () => {
    const mine = 'MAILTO=me\n0 3 * * * backup\n'
    const once = editCrontab(mine, '@reboot x')
    expect(editCrontab(once, '@reboot x')).toBe(once)
    expect(once.startsWith(mine)).toBe(true)
    expect(editCrontab(once, null)).toBe(mine)
    expect(editCrontab('', null)).toBe('')
  })
})

describe('the survive check', () => {
  const facts = (over: Partial<DoctorFacts>) => ({restorable: 0, ...over}) as DoctorFacts
  const login = {systemd: true, killUserProcesses: null, linger: false, user: 'me'}
  it('says what the machine does, and the command that changes it', () => {
    expect(surviveCheck.judge(facts({login, autostart: {installed: null, last: null}}))).toMatchObject({status: 'pass', fix: 'pk setup autostart'})
    const killing = surviveCheck.judge(facts({login: {...login, killUserProcesses: true}, autostart: {installed: 'systemd', last: null}}))
    expect(killing).toMatchObject({status: 'warn', fix: expect.stringContaining('loginctl enable-linger me')})
    const failed = surviveCheck.judge(facts({login: {...login, linger: true}, autostart: {installed: 'cron', last: {at: 'then', ok: false, summary: '0 restored, 0 skipped, 1 failed'}}}))
    expect(failed).toMatchObject({status: 'warn', message: expect.stringMatching(/FAILED/)})
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
