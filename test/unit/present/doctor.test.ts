import {describe, expect, it} from 'vitest'

import {checkLine, doctorText} from '../../../src/lib/present/doctor.js'

const check = (id: string, status: 'pass' | 'warn' | 'fail' | 'skip', message: string, fix: string | null = null) => ({
  id,
  title: id,
  status,
  message,
  fix,
  fixable: false,
})

describe('pk doctor for people', () => {
  it('says each check on one line: a fixed-width mark, the id, what it found, and the fix', () => {
    expect(checkLine(check('tmux', 'pass', 'tmux 3.4'))).toBe('ok   tmux: tmux 3.4\n')
    expect(checkLine(check('state-dir', 'fail', 'loose', 'chmod 700 /s'))).toBe('FAIL state-dir: loose (fix: chmod 700 /s)\n')
  })
  it('puts what --fix did first, then every check, then each host under its name', () => {
    const text = doctorText({fixes: ['chmod 700 /s'], checks: [check('tmux', 'pass', 'ok'), check('servers', 'warn', 'one stopped', 'kill -CONT 4')]}, [
      {host: 'box', ok: false, checks: [check('tmux', 'fail', 'tmux 2.9')], problem: null},
      {host: 'gone', ok: false, checks: [], problem: {code: 'host-unreachable', message: 'ssh: no route'}},
    ])
    expect(text).toBe(
      'fixed chmod 700 /s\nok   tmux: ok\nwarn servers: one stopped (fix: kill -CONT 4)\n== box: FAIL\nFAIL tmux: tmux 2.9\n== gone: FAIL ssh: no route\n',
    )
  })
})
