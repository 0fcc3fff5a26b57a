import {existsSync} from 'node:fs'

import {agentsOnPath} from '../facts.js'
import {Check} from '../types.js'

export const serverEnvCheck: Check = {
  id: 'server-env',
  title: "tmux servers' environment can run your agents",
  judge(facts) {
    const mine = agentsOnPath(facts.env.PATH, existsSync, facts.presets)
    const drift: string[] = []
    for (const [socket, serverPath] of facts.serverPaths) {
      if (serverPath === null) continue
      const theirs = agentsOnPath(serverPath, existsSync, facts.presets)
      const missing = [...mine.keys()].filter((exe) => !theirs.has(exe))
      if (missing.length > 0) drift.push(`${socket}: PATH lacks ${missing.map((m) => `${m} (yours: ${mine.get(m)})`).join(', ')}`)
    }
    if (drift.length === 0) return {status: 'pass', message: `${facts.serverPaths.size} server(s) checked`, fix: null, fixable: false}
    return {
      status: 'warn',
      message: `new panes there inherit an old environment: ${drift.join('; ')}. pk bg passes your environment, but new windows and hand-made panes do not`,
      fix: 'tmux -S SOCKET set-environment -g PATH "$PATH"',
      fixable: false,
    }
  },
}
