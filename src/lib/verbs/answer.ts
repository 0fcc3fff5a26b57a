import {Answer, choose, Dialog, dialogDigest, readDialog} from '../agents/dialogs.js'
import {Context} from '../config/context.js'
import {SessionRow} from '../model/contract.js'
import {describeError, PkError} from '../model/errors.js'
import {capturePane, sendKeys, unanswered} from '../tmux/pane-io.js'
import {beforeTyping, Deadline, watchScreen} from './deadline.js'
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
/** How long pk answer waits, by default, for a tmux server slow to answer (--timeout). */
export const ANSWER_TIMEOUT_MS = 30_000

/**
 * Pure: the dialog pk answer would answer on this screen of this row: only an agent waiting on the user
 * shows one (a look-alike on an idle screen is text), and only at the bottom of its screen (readDialog).
 * The page of pk serve offers exactly this, so it offers what pk answer accepts.
 */
export function dialogOf(row: Pick<SessionRow, 'agent' | 'state'>, screen: string): Dialog | null {
  return row.agent !== null && row.state === 'waiting' ? readDialog(row.agent, screen) : null
}

const liveToAnswer: (row: Parameters<typeof checkLive>[0]) => asserts row is LiveRow = (row) => checkLive(row, 'answer')

/**
 * `pk answer ID yes|always|no|N`: answer the permission dialog an agent shows, by the keys that agent
 * takes (read from its screen: the dialog must be on it, and the answer one of its choices), then check
 * that the dialog went away. A screen that shows no dialog pk knows gets nothing typed.
 */
export async function answerDialog(
  idArg: string,
  ctx: Context,
  answer: Answer,
  opts: {timeoutMs: number; dialog?: string} = {timeoutMs: ANSWER_TIMEOUT_MS},
): Promise<AnswerResult> {
  const deadline = new Deadline(opts.timeoutMs)
  const row = await resolveChecked(idArg, ctx, liveToAnswer, {waitMs: deadline.left()})
  const {socket, pane} = row.tmux
  // A dialog is the agent's own frame, in the state its hook or its screen says: an agent that is not
  // waiting on the user shows none, whatever text on its screen looks like one.
  if (row.agent !== null && row.state !== 'waiting')
    throw new PkError('no-dialog', `session ${row.id} (${row.agent}) is ${row.state}, not waiting on a dialog; nothing was typed (pk attach ${row.id} to look)`)
  const screen =
    row.agent === null ? '' : await beforeTyping(capturePane(socket, pane, deadline.callMs()), deadline, `session ${row.id}'s screen cannot be read`)
  const dialog = dialogOf(row, screen)
  if (dialog === null)
    throw new PkError(
      'no-dialog',
      `session ${row.id}${row.agent ? ` (${row.agent}, ${row.state})` : ''} shows no permission dialog pk knows how to answer; nothing was typed (pk attach ${row.id} to look)`,
    )
  checkShown(row, dialog, opts.dialog)
  const picked = choose(dialog, answer)
  if ('refuse' in picked) throw new PkError('no-such-choice', `${picked.refuse}; nothing was typed`)
  const result = {id: row.id, agent: row.agent!, question: dialog.question, choice: {n: picked.n, label: picked.label}, confirmed: false}
  const unconfirmed = (why: string) =>
    Object.assign(
      new PkError('not-confirmed', `answered choice ${picked.n} in session ${row.id}, but ${why} (not typed again); see it with pk attach ${row.id}`),
      {
        result,
      },
    )
  // From the keys on, they may be in the agent: never exit 1, never typed twice.
  let confirmed: boolean
  try {
    if (dialog.focused !== undefined && !(await focusChoice(row, dialog, picked.n, deadline)))
      throw unconfirmed(`pk could not see ${row.agent}'s mark on that choice (it moved it, Enter was not pressed)`)
    await sendKeys(socket, pane, picked.keys, deadline.callMs())
    confirmed = await dialogGone(socket, pane, row.agent!, dialog, deadline)
  } catch (error) {
    if (error instanceof PkError && error.code === 'not-confirmed') throw error
    throw unconfirmed(unanswered(error) ? `its tmux server did not answer within ${deadline}` : describeError(error).message)
  }
  if (!confirmed) throw unconfirmed(`${row.agent}'s dialog was still on its screen after ${ANSWER_CONFIRM_MS / 1000} s`)
  return {...result, confirmed}
}

/** What a caller pins an answer to when it saw a question pk reads no dialog of (the page's words): no dialog now either. */
export const NO_DIALOG = 'none'

/**
 * The dialog on the screen is the one the caller answers (`--dialog DIGEST`, what the page showed; `none`:
 * it saw none): else nothing is typed. A tap on the page answers only the dialog the person saw; one that
 * changed since (the agent asked about another command) is refused. The refusal is in pk's words only: what
 * the dialog now asks is the agent's text, shown marked as such by pk logs --screen --json.
 */
export function checkShown(row: Pick<SessionRow, 'id' | 'agent'>, dialog: Dialog | null, digest: string | undefined): void {
  if (digest === undefined || (dialog !== null && dialogDigest(dialog) === digest) || (dialog === null && digest === NO_DIALOG)) return
  throw new PkError(
    'dialog-changed',
    dialog === null
      ? `session ${row.id} shows no dialog now, not the one answered (${digest}); nothing was typed`
      : `${row.agent}'s dialog in session ${row.id} is not the one answered: it is ${dialogDigest(dialog)} now, not ${digest}; nothing was typed: look at it again (pk logs ${row.id} --screen --json)`,
  )
}

/**
 * Move a question's mark (❯) to choice `n`, one ↑/↓ at a time, each seen on the screen before the next:
 * an agent that takes a move and Enter sent together as Enter would pick the wrong choice. True once the
 * screen shows the mark there; false when the question left or the mark did not move.
 */
export async function focusChoice(row: LiveRow, asked: Dialog, n: number, deadline: Deadline): Promise<boolean> {
  const {socket, pane} = row.tmux
  let now: Dialog | null = asked
  for (let moves = 0; moves <= asked.choices.length; moves++) {
    if (now === null || now.question !== asked.question || now.focused === undefined) return false
    const from = now.focused
    if (from === n) return true
    await sendKeys(socket, pane, [n > from ? 'Down' : 'Up'], deadline.callMs())
    let seen: Dialog | null = now
    await watchScreen(
      async () => {
        seen = readDialog(row.agent, await capturePane(socket, pane, deadline.callMs()))
        return seen?.focused !== from
      },
      2000,
      deadline,
    )
    now = seen
  }
  return false
}

/**
 * Whether the dialog asked left the screen. An agent that asks once more after the answer ("allow always:
 * confirm?", opencode) is confirmed too, once: the person asked for it already.
 */
async function dialogGone(socket: string, pane: LiveRow['tmux']['pane'], agent: string, asked: Dialog, deadline: Deadline): Promise<boolean> {
  let confirmedAgain = false
  return watchScreen(
    async () => {
      const now = readDialog(agent, await capturePane(socket, pane, deadline.callMs()))
      if (now?.confirms && !confirmedAgain) {
        const yes = choose(now, 'yes')
        if ('keys' in yes) await sendKeys(socket, pane, yes.keys, deadline.callMs())
        confirmedAgain = true
        return false
      }
      // The same question about another command is the next tool call's dialog: this one was answered.
      return now === null || (!now.confirms && (now.question !== asked.question || now.body !== asked.body))
    },
    ANSWER_CONFIRM_MS,
    deadline,
  )
}
