import {Check} from '../types.js'

/**
 * Whether sessions survive a logout and come back after a reboot (issue #26). pk changes none of it: it
 * says what the machine does and the command that changes it.
 */
export const surviveCheck: Check = {
  id: 'survive',
  title: 'sessions survive logout and come back after a reboot',
  judge(facts) {
    const login = facts.login
    const auto = facts.autostart
    if (!login || !auto) return {status: 'pass', message: 'not checked', fix: null, fixable: false}
    const notes: string[] = []
    const fixes: string[] = []
    let status: 'pass' | 'warn' = 'pass'
    if (login.platform === 'darwin') notes.push('macOS: no logind ends your processes at logout; the tmux server lives until a reboot')
    else if (login.systemd) notes.push('a systemd user manager answers: pk starts its tmux server in a scope of its own, which a logout does not end')
    else notes.push('no systemd user manager answers: the tmux server lives as long as nothing ends your processes')
    if (login.killUserProcesses === true) {
      notes.push(
        `logind ends every process of ${login.user} when the last login ends (KillUserProcesses=yes)${login.systemd ? '; with lingering the scope pk starts outlives it' : ': your sessions end with your last login'}`,
      )
      if (login.linger !== true) {
        status = 'warn'
        fixes.push(`loginctl enable-linger ${login.user}`)
      }
    }
    if (login.linger === true) notes.push(`lingering is on for ${login.user}: the user manager runs from boot`)
    else if (login.linger === false && auto.installed === 'systemd') {
      notes.push(`lingering is off: pk-restore.service runs at your first login after a reboot, not at boot`)
      fixes.push(`loginctl enable-linger ${login.user} (to restore at boot)`)
    }
    if (auto.installed === null) {
      notes.push('nothing brings sessions back after a reboot')
      fixes.push('pk setup autostart')
      if (status === 'pass' && facts.restorable > 0) status = 'warn'
    } else
      notes.push(
        `autostart is installed (${auto.installed === 'systemd' ? 'systemd user unit pk-restore.service' : auto.installed === 'launchd' ? 'launchd agent pk.restore' : '@reboot crontab entry'})`,
      )
    if (auto.last) {
      notes.push(`its last run, ${auto.last.at}: ${auto.last.ok ? 'ok' : 'FAILED'} (${auto.last.summary})`)
      if (!auto.last.ok) {
        status = 'warn'
        fixes.push('pk restore --dry-run shows what it would do; pk doctor and pk restore say why one failed')
      }
    }
    return {status, message: notes.join('; '), fix: fixes.length > 0 ? [...new Set(fixes)].join('; ') : null, fixable: false}
  },
}
