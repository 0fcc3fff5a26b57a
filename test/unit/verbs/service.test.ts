import {describe, expect, it} from 'vitest'

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
