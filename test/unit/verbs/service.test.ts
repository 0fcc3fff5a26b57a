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
    const pk = ['/usr/bin/node', '/opt/my pk/bin/run.js']
    const unit = systemdUnit(pk, {PK_STATE_DIR: '/s', HOME: '/h'})
    expect(unit).toContain('ExecStart="/usr/bin/node" "/opt/my pk/bin/run.js" "restore" "--yes" "--autostart"')
    expect(unit).toContain('Environment="PK_STATE_DIR=/s"')
    expect(cronLine(pk, {})).toBe("@reboot env /usr/bin/node '/opt/my pk/bin/run.js' restore --yes --autostart >/dev/null 2>&1")
  })
  it("escapes what each format would read otherwise: cron's %, systemd's specifiers, variables, quotes and backslashes", () => {
    const env = {PK_STATE_DIR: '/s/100%/it\'s \\ "x" $HOME', TMUX_TMPDIR: '/t/%h'}
    const unit = systemdUnit(['/usr/bin/node', '/p/%i/run.js'], env)
    expect(unit).toContain('Environment="PK_STATE_DIR=/s/100%%/it\'s \\\\ \\"x\\" $HOME"')
    expect(unit).toContain('Environment="TMUX_TMPDIR=/t/%%h"')
    expect(unit).toContain('ExecStart="/usr/bin/node" "/p/%%i/run.js" "restore"')
    expect(systemdUnit(['/n', '/a$b/run.js'], {})).toContain('"/a$$b/run.js"')
    const line = cronLine(['/usr/bin/node', '/p/run.js'], env)
    expect(line).toBe(
      `@reboot env 'PK_STATE_DIR=/s/100\\%/it'\\''s \\ "x" $HOME' 'TMUX_TMPDIR=/t/\\%h' /usr/bin/node /p/run.js restore --yes --autostart >/dev/null 2>&1`,
    )
    expect(line.split('\n')).toHaveLength(1)
  })
  it('refuses a value with a line end (or any control character) rather than write a second entry', () => {
    for (const env of [{PK_STATE_DIR: '/s\n* * * * * touch /tmp/pwned'}, {TMUX_TMPDIR: '/t\nExecStartPre=/bin/evil'}, {PATH: '/bin\r'}]) {
      expect(() => cronLine(['/n', '/r'], env)).toThrow(/line end or another control character/)
      expect(() => systemdUnit(['/n', '/r'], env)).toThrow(/line end or another control character/)
    }
    expect(() => cronLine(['/n', '/r\u0007'], {})).toThrow(/pk itself/)
  })
  it('--remove takes away every line an earlier pk wrote, also an entry a line end had split', () => {
    const mark = '# pk autostart: bring agent sessions back after a reboot (pk setup autostart --remove takes it away)'
    const split = `MAILTO=me\n${mark}\n@reboot env PK_STATE_DIR=/s\n* * * * * touch /tmp/pwned /usr/bin/node /p/run.js restore --yes --autostart >/dev/null 2>&1\n0 3 * * * backup\n`
    expect(editCrontab(split, null)).toBe('MAILTO=me\n0 3 * * * backup\n')
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
