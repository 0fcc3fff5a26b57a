import {describe, expect, it} from 'vitest'

import {serversCheck} from '../../../../src/lib/doctor/checks/servers.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'
import {pane, server} from '../../../helpers/fixtures.js'

describe('the servers check', () => {
  it('skips without tmux, and passes when every server answered and was verified', () => {
    expect(serversCheck.judge(doctorFacts({tmuxVersion: {ok: false, reason: 'missing'}, servers: []})).status).toBe('skip')
    expect(serversCheck.judge(doctorFacts({servers: [server('/s/a', []), server('/s/b', [])]}))).toMatchObject({
      status: 'pass',
      message: '2 server(s) answered and were verified',
    })
  })
  it('names each server that is stopped, refuses you, or cannot be verified, with a fix that ends nothing', () => {
    const result = serversCheck.judge(
      doctorFacts({
        servers: [
          server('/s/stopped', [], {status: 'unresponsive'}),
          server('/s/theirs', [], {status: 'access-denied'}),
          server('/s/boxed', [pane({paneId: '%12', panePid: 7})], {verified: false, unverifiedReason: 'its pid is in another pid namespace'}),
          server('/s/empty-unverified', [], {verified: false, unverifiedReason: 'x'}),
        ],
      }),
    )
    expect(result.status).toBe('warn')
    expect(result.message).toBe(
      '/s/stopped does not answer (the server is stopped or wedged); /s/theirs refuses you (access not allowed); /s/boxed answers, but its pid is in another pid namespace; its panes are shown unverified and pk will not act on them',
    )
    expect(result.fix).toMatch(/kill -CONT/)
    expect(result.fix).not.toMatch(/kill-server|kill -9/)
  })
})
