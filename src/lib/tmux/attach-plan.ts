import {PaneId} from '../model/ids.js'
import {realpathSync} from 'node:fs'

import {shellQuote} from '../model/shell.js'
import {tmuxArgv} from './exec.js'

type Env = Record<string, string | undefined>

export type AttachPlan = {mode: 'attach'; argv: string[]} | {mode: 'switch'; argv: string[]} | {mode: 'popup'; argv: string[]}

function sameSocket(a: string, b: string): boolean {
  if (a === b) return true
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return false
  }
}

/**
 * Pure given the environment: how to reach the pane. Outside tmux: attach a client. Inside tmux on the same
 * server: switch this client. Inside tmux on another server: a popup on the current server holding a nested
 * client, so the user's own session stays where it is and closing the popup (detach) returns to it.
 */
export function planAttach(target: {socket: string; pane: PaneId}, env: Env): AttachPlan {
  const focus = [
    ['select-window', '-t', target.pane],
    ['select-pane', '-t', target.pane],
  ]
  const callerSocket = env.TMUX ? env.TMUX.split(',')[0]! : null
  if (callerSocket === null) {
    return {mode: 'attach', argv: tmuxArgv(target.socket, [...focus, ['attach-session', '-t', target.pane]])}
  }
  if (sameSocket(callerSocket, target.socket)) {
    return {mode: 'switch', argv: tmuxArgv(target.socket, [...focus, ['switch-client', '-t', target.pane]])}
  }
  const nested = ['env', '-u', 'TMUX', '-u', 'TMUX_PANE', 'tmux', ...tmuxArgv(target.socket, [...focus, ['attach-session', '-t', target.pane]])]
  const shellCommand = `exec ${nested.map(shellQuote).join(' ')}`
  return {mode: 'popup', argv: tmuxArgv(callerSocket, [['display-popup', '-E', '-w', '90%', '-h', '90%', shellCommand]])}
}
