import {Check} from '../types.js'

/** Servers that answered badly or not at all: said as what they are, with a fix that ends nothing. */
export const serversCheck: Check = {
  id: 'servers',
  title: 'every tmux server answers and can be verified',
  judge(facts) {
    if (!facts.tmuxVersion.ok) return {status: 'skip', message: 'tmux is missing', fix: null, fixable: false}
    const lines: string[] = []
    const fixes = new Set<string>()
    for (const server of facts.servers) {
      if (server.status === 'unresponsive') {
        lines.push(`${server.socket} does not answer (the server is stopped or wedged)`)
        fixes.add('a server stopped with kill -STOP resumes with kill -CONT PID; pk lists everything else meanwhile')
      } else if (server.status === 'access-denied') {
        lines.push(`${server.socket} refuses you (access not allowed)`)
        fixes.add("ask the server's owner, or leave it: pk ignores it")
      } else if (server.status === 'ok' && !server.verified && server.panes.length > 0) {
        lines.push(`${server.socket} answers, but ${server.unverifiedReason}; its panes are shown unverified and pk will not act on them`)
        fixes.add('run pk in the pid namespace of that server (for example inside the container that runs it)')
      }
    }
    if (lines.length === 0)
      return {
        status: 'pass',
        message: `${facts.servers.filter((s) => s.status === 'ok').length} server(s) answered and were verified`,
        fix: null,
        fixable: false,
      }
    return {status: 'warn', message: lines.join('; '), fix: [...fixes].join('; '), fixable: false}
  },
}
