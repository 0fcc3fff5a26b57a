import {randomBytes} from '../model/random.js'

import {PaneId} from '../model/ids.js'
import {TmuxCommandError, runTmux, tmuxArgv} from './exec.js'

/** Pure: split one tmux call's output into each pane's screen, by the marker line printed before it. */
export function splitCaptures(stdout: string, nonce: string): Map<PaneId, string> {
  const screens = new Map<PaneId, string>()
  const marker = new RegExp(`^@@pk-capture ${nonce} (%\\d+)@@$`)
  let current: PaneId | null = null
  let lines: string[] = []
  const flush = () => {
    if (current !== null) screens.set(current, lines.join('\n'))
  }
  for (const line of stdout.split('\n')) {
    const match = marker.exec(line)
    if (match) {
      flush()
      current = match[1] as PaneId
      lines = []
    } else if (current !== null) {
      lines.push(line)
    }
  }
  flush()
  return screens
}

/**
 * The visible screen of every given pane in ONE tmux call (commands separated by `;`, each capture
 * preceded by a marker line). A pane that vanished meanwhile stops the sequence there: the screens
 * before it are still returned, the rest are simply missing.
 */
export async function capturePanes(socket: string, paneIds: PaneId[]): Promise<Map<PaneId, string>> {
  if (paneIds.length === 0) return new Map()
  const nonce = randomBytes(6).toString('hex')
  // The marker names the pane through tmux's own #{pane_id}, never as literal text: display-message runs
  // its text through strftime, which turns a literal "%5" into padding (and so broke every pane past %4).
  const commands = paneIds.flatMap((paneId) => [
    ['display-message', '-p', '-t', paneId, `@@pk-capture ${nonce} #{pane_id}@@`],
    ['capture-pane', '-p', '-J', '-t', paneId],
  ])
  try {
    return splitCaptures((await runTmux(tmuxArgv(socket, commands))).stdout, nonce)
  } catch (error) {
    if (error instanceof TmuxCommandError) return splitCaptures(error.stdout, nonce)
    throw error
  }
}
