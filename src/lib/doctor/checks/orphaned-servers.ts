import {existsSync} from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'

import {isTmuxProcess} from '../../tmux/stale-sockets.js'
import {Check} from '../types.js'

export const orphanedServersCheck: Check = {
  id: 'orphaned-servers',
  title: 'no tmux servers without a socket',
  judge(facts) {
    if (!facts.tmuxVersion.ok) return {status: 'skip', message: 'tmux is missing, so servers cannot be asked who they are', fix: null, fixable: false}
    if (facts.orphans.length === 0) return {status: 'pass', message: 'every tmux server of yours is reachable through its socket', fix: null, fixable: false}
    const lines = facts.orphans.map((o) => {
      const where = o.reason === 'socket-missing' ? `its socket ${o.socket} was deleted` : `its socket ${o.socket} now belongs to another server`
      return `tmux server pid ${o.pid} still runs ${o.panes} pane(s) (${o.recordedPanes} pk session(s)), but ${where}`
    })
    const recoverable = facts.orphans.some((o) => o.reason === 'socket-missing')
    const taken = facts.orphans.find((o) => o.reason === 'socket-taken')
    // Both servers keep running: the one now at the path answers at the new name it is moved to.
    const moveAside = taken
      ? `the path is taken by another server: mv ${taken.socket} ${taken.socket}.moved (that server keeps running; reach it with tmux -S ${taken.socket}.moved), then kill -USR1 ${taken.pid}`
      : null
    return {
      status: 'fail',
      message: `your sessions are alive but unreachable: ${lines.join('; ')}`,
      fix: [recoverable ? 'pk doctor --fix sends the server SIGUSR1, which makes tmux recreate its socket' : null, moveAside].filter(Boolean).join('; '),
      fixable: recoverable,
    }
  },
  async fix(facts) {
    const done: string[] = []
    for (const orphan of facts.orphans) {
      if (orphan.reason !== 'socket-missing' || existsSync(orphan.socket)) continue
      // A process that is not tmux holding a deleted socket would likely die of SIGUSR1: left alone.
      if (!isTmuxProcess(orphan.pid)) {
        done.push(`left pid ${orphan.pid} alone: it holds ${orphan.socket} but is not tmux`)
        continue
      }
      process.kill(orphan.pid, 'SIGUSR1')
      for (let i = 0; i < 50 && !existsSync(orphan.socket); i++) await sleep(20)
      done.push(
        existsSync(orphan.socket)
          ? `recreated ${orphan.socket} for tmux server pid ${orphan.pid} (SIGUSR1)`
          : `sent SIGUSR1 to tmux server pid ${orphan.pid}, but ${orphan.socket} did not come back`,
      )
    }
    return done
  },
}
