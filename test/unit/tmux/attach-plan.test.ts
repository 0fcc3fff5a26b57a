import {describe, expect, it} from 'vitest'

import {planAttach} from '../../../src/lib/tmux/attach-plan.js'

describe('planAttach', () => {
  const target = {socket: '/tmp/tmux-0/pk', pane: '%7' as const}
  it('attaches a client outside tmux', () => {
    expect(planAttach(target, {})).toEqual({
      mode: 'attach',
      argv: ['-S', '/tmp/tmux-0/pk', 'select-window', '-t', '%7', ';', 'select-pane', '-t', '%7', ';', 'attach-session', '-t', '%7'],
    })
  })
  it('switches the client inside tmux on the same server', () => {
    expect(planAttach(target, {TMUX: '/tmp/tmux-0/pk,123,0'}).mode).toBe('switch')
  })
  it('opens a popup with a nested client from another server', () => {
    const plan = planAttach(target, {TMUX: '/tmp/tmux-0/default,123,0'})
    expect(plan.mode).toBe('popup')
    expect(plan.argv.slice(0, 3)).toEqual(['-S', '/tmp/tmux-0/default', 'display-popup'])
    expect(plan.argv.at(-1)).toBe("exec env -u TMUX -u TMUX_PANE tmux -S /tmp/tmux-0/pk select-window -t %7 ';' select-pane -t %7 ';' attach-session -t %7")
  })
})
