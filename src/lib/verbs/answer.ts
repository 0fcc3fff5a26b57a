import {setTimeout as sleep} from 'node:timers/promises'

import {Answer, choose, readDialog} from '../agents/dialogs.js'
import {Context} from '../config/context.js'
import {PkError} from '../model/errors.js'
import {capturePane, sendKeys} from '../tmux/pane-io.js'
import {LiveRow, checkLive, resolveChecked} from './attach.js'

export interface AnswerResult {
  id: string
  agent: string
  question: string
  choice: {n: number; label: string}
  /** The dialog left the screen after the keys (else pk exits 6: not confirmed). */
  confirmed: boolean
}

/** How long the dialog has to leave the screen once answered. */
export const ANSWER_CONFIRM_MS = 3000

const liveToAnswer: (row: Parameters<typeof checkLive>[0]) => asserts row is LiveRow = (row) => checkLive(row, 'answer')

/**
 * `pk answer ID yes|always|no|N`: answer the permission dialog an agent shows, by the keys that agent
 * takes (read from its screen: the dialog must be on it, and the answer one of its choices), then check
 * that the dialog went away. A screen that shows no dialog pk knows gets nothing typed.
 */
export async function answerDialog(idArg: string, ctx: Context, answer: Answer): Promise<AnswerResult> {
  const row = await resolveChecked(idArg, ctx, liveToAnswer)
  const {socket, pane} = row.tmux
  const dialog = row.agent === null ? null : readDialog(row.agent, await capturePane(socket, pane))
  if (dialog === null)
    throw new PkError(
      'no-dialog',
      `session ${row.id}${row.agent ? ` (${row.agent}, ${row.state})` : ''} shows no permission dialog pk knows how to answer; nothing was typed (pk attach ${row.id} to look)`,
    )
  const picked = choose(dialog, answer)
  if ('refuse' in picked) throw new PkError('no-such-choice', `${picked.refuse}; nothing was typed`)
  await sendKeys(socket, pane, picked.keys)
  const confirmed = await dialogGone(socket, pane, row.agent!, dialog.question)
  const result = {id: row.id, agent: row.agent!, question: dialog.question, choice: {n: picked.n, label: picked.label}, confirmed}
  if (!confirmed)
    throw Object.assign(
      new PkError(
        'not-confirmed',
        `answered "${picked.label}" in session ${row.id}, but ${row.agent}'s dialog was still on its screen after ${ANSWER_CONFIRM_MS / 1000} s (not typed again); see it with pk attach ${row.id}`,
      ),
      {result},
    )
  return result
}

/**
 * Whether the dialog asked left the screen. An agent that asks once more after the answer ("allow always:
 * confirm?", opencode) is confirmed too, once: the person asked for it already.
 */
async function dialogGone(socket: string, pane: LiveRow['tmux']['pane'], agent: string, question: string): Promise<boolean> {
  const deadline = Date.now() + ANSWER_CONFIRM_MS
  let confirmedAgain = false
  for (;;) {
    const screen = await capturePane(socket, pane).catch(() => null)
    const now = screen === null ? null : readDialog(agent, screen)
    if (now?.confirms && !confirmedAgain) {
      const yes = choose(now, 'yes')
      if ('keys' in yes) await sendKeys(socket, pane, yes.keys)
      confirmedAgain = true
    } else if (now === null || (now.question !== question && !now.confirms)) return true
    if (Date.now() >= deadline) return false
    await sleep(100)
  }
}
