import {describe, expect, it} from 'vitest'

import {planLines, pruneText} from '../../../src/lib/present/prune.js'

describe('pk prune for people', () => {
  const items = [
    {kind: 'record' as const, target: '/s/sessions/ab.json', id: 'ab12cd3', reason: 'exited'},
    {kind: 'socket' as const, target: '/tmp/tmux-0/old', id: null, reason: 'stale'},
  ]
  it('says each removal with its id when there is one', () => {
    expect(planLines(items, 'removed')).toBe('removed record ab12cd3 (exited): /s/sessions/ab.json\nremoved socket (stale): /tmp/tmux-0/old\n')
  })
  it('says would remove on a dry run, what it kept and why, and sends problems to stderr', () => {
    const out = pruneText(
      items.slice(0, 1),
      [{id: 'ff00aa1', record: '/s/sessions/ff.json', reason: 'resumable'}],
      [{code: 'corrupt-record', message: '/s/x.json is not JSON'}],
      true,
    )
    expect(out).toEqual({
      stdout: 'would remove record ab12cd3 (exited): /s/sessions/ab.json\nkept ff00aa1 (resumable): /s/sessions/ff.json\n',
      stderr: 'pk: corrupt-record: /s/x.json is not JSON\n',
    })
    expect(pruneText([], [], [], false).stdout).toBe('nothing to prune\n')
  })
})
