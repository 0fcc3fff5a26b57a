import {unlinkQuietly} from '../../registry/atomic.js'
import {forgetSocketCache, listServer} from '../../tmux/servers.js'
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
    forgetSocketCache()
    const done: string[] = []
    for (const server of facts.servers.filter((s) => s.status === 'stale-socket')) {
      // Ask again right before removing: a server may have started there meanwhile.
      const again = await listServer(server.socket)
      if (again.status !== 'stale-socket') continue
      unlinkQuietly(server.socket)
      done.push(`removed stale socket ${server.socket}`)
    }
    return done
  },
}
