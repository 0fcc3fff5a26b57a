import {removeStaleSocket} from '../../tmux/stale-sockets.js'
import {Check} from '../types.js'

export const staleSocketsCheck: Check = {
  id: 'stale-sockets',
  title: 'no stale tmux sockets',
  judge(facts) {
    const stale = facts.servers.filter((s) => s.status === 'stale-socket').map((s) => s.socket)
    if (stale.length === 0) return {status: 'pass', message: 'every socket has a server listening', fix: null, fixable: false}
    return {
      status: 'warn',
      message: `${stale.length} socket(s) with no server listening (the server crashed or was killed): ${stale.join(', ')}`,
      fix: 'pk doctor --fix removes them (a new server can then start there)',
      fixable: true,
    }
  },
  async fix(facts) {
    const done: string[] = []
    for (const server of facts.servers.filter((s) => s.status === 'stale-socket')) {
      const outcome = await removeStaleSocket(server.socket)
      if (outcome === 'removed') done.push(`removed stale socket ${server.socket}`)
      if (outcome === 'recovered') done.push(`a server started at ${server.socket} while it was removed; it made its socket again (SIGUSR1)`)
      if (outcome === 'lost')
        done.push(`a server started at ${server.socket} while it was removed and did not make its socket again; pk doctor finds it as orphaned`)
    }
    return done
  },
}
