import {Check} from '../types.js'

/**
 * The wake-ups that continue sessions at a usage limit's reset (docs/limits.md): each one, and whether it
 * still waits. A sleeping pk that is gone (killed, the machine rebooted) continues nothing: warn, with the
 * command that arranges it again. pk changes nothing here.
 */
export const wakeupsCheck: Check = {
  id: 'wake-ups',
  title: 'sessions at a usage limit are continued at the reset',
  judge(facts) {
    const wakeups = facts.wakeups ?? []
    if (wakeups.length === 0) return {status: 'pass', message: 'none arranged', fix: null, fixable: false}
    // (gone with its session at another limit or none: the agent or someone continued it; nothing to arrange)
    const lost = wakeups.filter((w) => w.alive === false && w.sessionLive && w.stillAtLimit !== false)
    const lines = wakeups.map((w) => {
      const how = w.kind === 'systemd' ? 'a systemd user timer' : `a sleeping pk (pid ${w.pid})${w.alive === false ? ', gone' : ''}`
      const over = !w.sessionLive
        ? ' (the session is over: it will do nothing)'
        : w.stillAtLimit === false
          ? ' (the session is past that limit: nothing to do)'
          : ''
      return `session ${w.id} at ${w.at} by ${how}${over}`
    })
    return {
      status: lost.length > 0 ? 'warn' : 'pass',
      message: lines.join('; '),
      fix: lost.length > 0 ? lost.map((w) => `pk continue ${w.id} --at TIME (or pk continue ${w.id} now)`).join('; ') : null,
      fixable: false,
    }
  },
}
