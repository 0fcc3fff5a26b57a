import {setTimeout as sleep} from 'node:timers/promises'

import {LiveRow, checkLive, resolveChecked} from './attach.js'
import {SessionRow} from '../model/contract.js'
import {describeError, PkError} from '../model/errors.js'
import {checkSendText} from './lifecycle.js'
import {beforeTyping, Deadline, watchScreen} from './deadline.js'
import {lookDeadline} from '../listing/watch.js'

import {collectSessions} from '../listing/sessions.js'
import {capturePane, cursorAndScreen, pasteText, pressEnter, unanswered} from '../tmux/pane-io.js'
import {checkShown, focusChoice} from './answer.js'
import {inputEmpty, inputHolds, readDraft, readsDrafts, typedTail} from '../agents/drafts.js'
import {Dialog, readDialog} from '../agents/dialogs.js'
import {readLimit} from '../agents/limits.js'
import {AgentPreset, BUILTIN_PRESETS} from '../agents/presets.js'
import {Context} from '../config/context.js'

/**
 * `pk send`: type text into an agent and have it submitted, or say that it was not. Agents take a paste
 * as it arrives and swallow an Enter that comes while they still take it (Claude Code, Gemini CLI), and
 * right after `pk bg` they have no input box yet: so pk waits until the agent is ready, pastes, waits
 * until the paste shows and a little more, presses Enter, and confirms that the screen took it.
 */

/** How long after the paste shows before Enter: Claude Code and Gemini CLI took the Enter after a 0.3 s pause; with room to spare. */
export const PASTE_SETTLE_MS = 500
/** How long the screen has to change after Enter (a submitted prompt leaves the input box) before a second Enter. */
export const CONFIRM_MS = 2500
/** How much longer pk looks, pressing nothing, for an agent that takes its time to show it took the text. */
export const SLOW_CONFIRM_MS = 7500

export interface SendOptions {
  enter: boolean
  /** How long to wait for the agent to be ready for input (ms). */
  timeoutMs: number
  /** Also wait for a running turn to end. */
  whenIdle: boolean
  /**
   * `pk answer --text`: the text answers a question the session waits on (an agent's question tool), so a
   * waiting session is what it types into, not what it refuses; a permission dialog takes a choice instead.
   */
  answering?: boolean
  /** With `answering`: the question answered (its digest, `pk answer --dialog`): another on the screen gets nothing. */
  dialog?: string
  /**
   * Asked while the send waits and right before anything is typed: throws to stop it, nothing typed (pk mcp's
   * kill switch, turned off while a call waited for its session to be ready).
   */
  check?: () => void
}

export interface SendResult {
  id: string
  bytes: number
  enter: boolean
  /** Whether the agent took the Enter (the screen changed after it); null when no Enter was pressed. */
  submitted: boolean | null
  /** How many times Enter was pressed (a second time when the first was swallowed). */
  enters: number
  /** The state the session was in when the text went in. */
  state: string
}

/**
 * Pure: what to do about a session before typing into it: `go`, `wait` (not ready yet), or a reason to
 * refuse. An agent that waits on a dialog (trust, sign-in, permission) would take the text as an answer.
 */
export function readiness(row: SessionRow, whenIdle: boolean, answering = false, plain = row.agent === null): 'go' | 'wait' | {refuse: string} {
  if (plain) return 'go' // a plain command (or a preset that reads no state: pk bg shell): nothing tells when it is ready, so now
  if (answering)
    return row.state === 'waiting'
      ? 'go'
      : {refuse: `${row.agent} in session ${row.id} is ${row.state}, not waiting on a question; nothing was typed (pk send ${row.id} TEXT types a new message)`}
  if (row.state === 'waiting')
    return {
      refuse: `${row.agent} in session ${row.id} is waiting on a dialog (a question, a permission, a sign-in); nothing was typed. Answer it first: ${howToAnswer(row.id, null)}`,
    }
  // (at a usage limit its prompt takes text, which meets the limit again until the reset: the caller's
  // choice; a limit that asks a choice instead is refused from its screen, in sendText)
  if (row.state === 'idle' || row.state === 'limited') return 'go'
  if (row.state === 'working') return whenIdle ? 'wait' : 'go'
  return 'wait' // unknown: still starting, no prompt on its screen yet
}

/**
 * Pure: how to answer what a session waits on: pk answer with the dialog's own choices where pk reads it
 * (numbers, and the words yes / always / no where the dialog has such choices), else pk attach. The
 * choices' labels are the agent's words, not pk's: pk logs --screen shows them, marked as the agent's.
 */
export function howToAnswer(id: string, dialog: Dialog | null): string {
  if (dialog === null) return `pk answer ${id} yes|no|N (pk logs ${id} --screen shows it), or pk attach ${id}`
  const words = (['yes', 'always', 'no'] as const).filter((w) => dialog.choices.some((c) => c.means === w))
  const text = dialog.takesText === undefined ? '' : `, or pk answer ${id} --text WORDS`
  return `pk answer ${id} ${[...words, ...dialog.choices.map((c) => String(c.n))].join('|')}${text} (pk logs ${id} --screen shows the choices)`
}

/** What the pane shows, with where its cursor is and how much has scrolled: a shell's Enter only moves the cursor. */
const screen = (row: LiveRow, deadline: Deadline) => cursorAndScreen(row.tmux.socket, row.tmux.pane, deadline.callMs())

const liveToSend: (row: SessionRow) => asserts row is LiveRow = (row) => checkLive(row, 'send to')

/**
 * Pure: whether a session is a plain command to pk: no agent, or a preset with no pane rules and no hooks
 * (`pk bg shell`, a preset of your own for a REPL), whose state nothing reads: it never turns idle.
 */
export const isPlain = (agent: string | null, presets: readonly AgentPreset[]) => {
  const preset = agent === null ? undefined : presets.find((p) => p.name === agent)
  return agent === null || (preset !== undefined && preset.paneRules.length === 0 && preset.hooks === null)
}

/** Wait until the session is ready for input (within the deadline), verified again just before typing. */
async function ready(idArg: string, ctx: Context, opts: SendOptions, deadline: Deadline, plain: (row: SessionRow) => boolean): Promise<LiveRow> {
  let row: LiveRow = await resolveChecked(idArg, ctx, liveToSend, {waitMs: deadline.left()})
  for (;;) {
    opts.check?.()
    const verdict = readiness(row, opts.whenIdle, opts.answering, plain(row))
    if (verdict === 'go') return row
    if (verdict !== 'wait') throw new PkError('not-ready', await withChoices(row, verdict.refuse, deadline))
    if (deadline.passed()) {
      throw new PkError(
        'timeout',
        `${row.agent} in session ${row.id} is still ${row.state === 'working' ? 'working' : 'not ready for input (its prompt is not on the screen)'} after ${deadline}; nothing was typed (pk send --timeout SECONDS waits longer)`,
      )
    }
    await sleep(Math.min(250, deadline.left()))
    const again = (await collectSessions(ctx, {deadlineMs: lookDeadline(deadline.left())})).rows.find((r) => r.id === row.id)
    if (!again) throw new PkError('gone', `session ${row.id} ended before it was ready for input`)
    // Its server slow for this look: still within our deadline, look again.
    if (again.notVerifiedJustNow !== null && again.state !== 'exited') continue
    liveToSend(again)
    row = again
  }
}

/** A refusal for a dialog, with the dialog's own choices where pk reads them on its screen. */
async function withChoices(row: LiveRow, refusal: string, deadline: Deadline): Promise<string> {
  if (row.state !== 'waiting') return refusal
  const shown = await capturePane(row.tmux.socket, row.tmux.pane, deadline.callMs()).catch(() => null)
  const dialog = shown === null ? null : readDialog(row.agent, shown)
  return dialog === null ? refusal : refusal.replace(howToAnswer(row.id, null), howToAnswer(row.id, dialog))
}

/**
 * Pure: whether the text is verifiably still waiting in the input, on a screen after an Enter that changed
 * nothing: its last line (as much of it as a box shows) is on that screen and was not before the paste.
 * Only then is a second Enter safe; a hidden input (a collapsed paste, an agent that does not echo) cannot
 * be told apart from a late redraw of a turn that started, so it gets no second Enter.
 */
export function stillInInput(text: string, beforePaste: string, now: string): boolean {
  const last = typedTail(text)
  return last !== null && now.includes(last) && !beforePaste.includes(last)
}

/** Move a question's mark to its field for words, and see it there; else nothing of the text is typed. */
async function toTextField(row: LiveRow, question: Dialog, deadline: Deadline): Promise<void> {
  const notThere = (why: string) =>
    new PkError(
      'not-confirmed',
      `pk moved ${row.agent}'s question in session ${row.id} to its field for words ("Type something."), but ${why}; none of the text was typed (see it with pk attach ${row.id})`,
    )
  try {
    if (!(await focusChoice(row, question, question.takesText!, deadline))) throw notThere('did not see its mark there')
  } catch (error) {
    if (error instanceof PkError && error.code === 'not-confirmed') throw error
    throw notThere(unanswered(error) ? `its tmux server did not answer within ${deadline}` : describeError(error).message)
  }
}

/** How long a paste has to show in the agent's input (an agent may hide its input: then this long at most). */
const PASTE_SHOWS_MS = 1500
/**
 * How much longer pk looks for a paste in an input it can read: an agent slow to draw it (a loaded machine:
 * Claude Code 2.1.337 at load 20-50), or its input off its screen (a redraw going on).
 */
const INPUT_BACK_MS = 5000

/**
 * Pure: what a screen after a paste says of it: `shown` (in the agent's input line, or, where pk reads none,
 * any change of the screen; or, where an empty input reads as such, something else there: a paste the agent
 * shows folded, "[Pasted text #1 +12 lines]"), or null (not yet: the input is empty, or off the screen).
 */
export function pasteShown(agent: string | null, readable: boolean, text: string, beforePaste: string, now: string): 'shown' | null {
  const holds = inputHolds(agent, now, text)
  if (holds === true) return 'shown'
  if (!readable) return now !== beforePaste ? 'shown' : null
  if (holds === null) return null
  const empty = inputEmpty(agent, now)
  // (Codex: its placeholder cannot be told from text without colours: a changed screen, as before)
  return empty === false || (empty === null && now !== beforePaste) ? 'shown' : null
}

/**
 * Paste the text once and wait until it shows (pasteShown). Never a second time: an input that still reads
 * empty may be an agent that has not drawn the paste yet (Claude Code 2.1.337 under load took both, and sent
 * the text twice, joined), and no screen tells that apart from a paste it lost (Gemini CLI redrawing as it
 * resumes). Not seen where pk reads the input: nothing is pressed, and pk says what it typed (exit 6).
 */
async function paste(row: LiveRow, text: string, beforePaste: string, deadline: Deadline, typed: (why: string, error?: unknown) => PkError): Promise<void> {
  const {socket, pane} = row.tmux
  const readable = inputHolds(row.agent, beforePaste, text) !== null
  try {
    await pasteText(socket, pane, text, {deadlineMs: deadline.callMs()})
  } catch (error) {
    if (!unanswered(error)) throw error // tmux refused the call: nothing went in
    throw typed('pk could not see it arrive', error)
  }
  const look = async () => pasteShown(row.agent, readable, text, beforePaste, await screen(row, deadline)) === 'shown'
  try {
    if (await watchScreen(look, PASTE_SHOWS_MS, deadline)) return
    // Where pk cannot read the input, a paste that changed nothing on the screen is hidden, not lost: as before, Enter.
    if (!readable) return
    if (await watchScreen(look, INPUT_BACK_MS, deadline)) return
  } catch (error) {
    throw typed('Enter was not pressed', error)
  }
  throw typed(`pk did not see it in ${row.agent}'s input within ${(PASTE_SHOWS_MS + INPUT_BACK_MS) / 1000} s, so Enter was not pressed`)
}

/** Pure: the first characters of a text, for a message that says what was typed. */
const quoted = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)

/**
 * Press Enter and see it taken: the screen changed and the text left the agent's input line. Where pk reads
 * that line, it must be back on the screen without the text: a screen redrawn whole (Gemini CLI resuming)
 * shows no input for a while, and the text may still be there once it is back. Where pk reads no input line,
 * a screen that changed with the text still there was redrawn (opencode after pk resume, Claude after pk
 * restore) or is a spinner turning (a working Claude: its message is queued a moment later). A swallowed
 * Enter leaves the screen as it was, the text still in the box: then once more, no more, and only when the
 * text is seen still waiting there (else a late redraw would get the line twice). `pressed` counts Enters.
 */
async function submit(row: LiveRow, clean: string, beforePaste: string, deadline: Deadline, pressed: {enters: number}) {
  const readable = clean !== '' && inputHolds(row.agent, beforePaste, clean) !== null
  let before = ''
  const taken = async () => {
    const now = await screen(row, deadline)
    const holds = inputHolds(row.agent, now, clean)
    return now !== before && (readable ? holds === false : holds !== true)
  }
  const stillWaiting = async () => clean !== '' && stillInInput(clean, beforePaste, await screen(row, deadline))
  let submitted = false
  let waiting = true
  while (!submitted && waiting && pressed.enters < 2) {
    before = await screen(row, deadline)
    pressed.enters++
    await pressEnter(row.tmux.socket, row.tmux.pane, deadline.callMs())
    submitted = await watchScreen(taken, CONFIRM_MS, deadline)
    waiting = !submitted && (await stillWaiting())
  }
  // An agent slow to redraw (opencode at load 8-12 took more than 2.5 s): looked at longer, nothing pressed.
  if (!submitted) submitted = await watchScreen(taken, SLOW_CONFIRM_MS, deadline)
  return {submitted, waiting: !submitted && (await stillWaiting())}
}

/**
 * `pk send`. Every step waits within the caller's --timeout for a slow tmux server; when the deadline passes
 * (or tmux fails) what happens is named by the step: before anything was typed, nothing was done (exit 124
 * when it was the deadline); from the paste on, the text may be in the agent, so it is never exit 1: exit 6,
 * "typed, not confirmed", with what was typed. A script that retries only on 124 never sends twice.
 */
export async function sendText(idArg: string, ctx: Context, text: string, opts: SendOptions): Promise<SendResult> {
  const clean = checkSendText(text)
  const deadline = new Deadline(opts.timeoutMs)
  const presets = (await ctx.config().catch(() => null))?.presets ?? BUILTIN_PRESETS
  const plain = (r: SessionRow) => isPlain(r.agent, presets)
  const row = await ready(idArg, ctx, opts, deadline, plain)
  const state = row.state
  const bytes = Buffer.byteLength(clean)
  const {socket, pane} = row.tmux
  let enters = 0
  const typed = (why: string, error?: unknown) => {
    const reason = error === undefined ? '' : `: ${unanswered(error) ? `its tmux server did not answer within ${deadline}` : describeError(error).message}`
    const what = clean === '' ? 'Enter' : `the text ${quoted(clean)}${enters > 0 ? ' and Enter' : ''}`
    return Object.assign(
      new PkError(
        'not-confirmed',
        `${what} went to session ${row.id}, but ${why}${reason}; pk cannot tell whether ${row.agent ?? 'it'} took it (not typed again); see it with pk attach ${row.id}`,
      ),
      {result: {id: row.id, bytes, enter: opts.enter, submitted: null, enters, state}},
    )
  }
  // A plain command: nothing on its screen says whether it took a line (it may not echo), so the text
  // and one Enter go in one tmux call, and pk claims nothing about it (submitted: null). Never twice.
  if (plain(row)) {
    opts.check?.()
    if (clean !== '' || opts.enter) {
      try {
        await pasteText(socket, pane, clean, {enter: opts.enter, deadlineMs: deadline.callMs()})
      } catch (error) {
        if (!unanswered(error)) throw error // tmux refused the call: nothing went in
        enters = opts.enter ? 1 : 0
        throw typed('pk could not see it arrive', error)
      }
    }
    return {id: row.id, bytes, enter: opts.enter, submitted: null, enters: opts.enter ? 1 : 0, state}
  }
  // A permission dialog takes one of its choices, never text: its keys would be read as an answer. A
  // question with choices takes words only in its own field ("Type something."): pk moves there first
  // and sees it focused, or types nothing (typed on the list, the words would pick whatever is marked).
  if (opts.answering) {
    const shown = await beforeTyping(capturePane(socket, pane, deadline.callMs()), deadline, `session ${row.id}`)
    const dialog = readDialog(row.agent, shown)
    checkShown(row, dialog, opts.dialog)
    if (dialog !== null && dialog.takesText === undefined)
      throw new PkError(
        'not-ready',
        `${row.agent} in session ${row.id} shows ${dialog.choices.every((c) => c.means === 'other') ? 'a question' : 'a permission dialog'}, which takes a choice, not text; nothing was typed (pk answer ${row.id} ${dialog.choices.every((c) => c.means === 'other') ? 'N' : 'yes|always|no|N'})`,
      )
    if (dialog !== null) await toTextField(row, dialog, deadline)
  }
  // A limit that asks a choice (Gemini CLI's "Keep trying / Stop", Claude Code's limit menu) would take
  // the text's Enter as its answer.
  if (row.state === 'limited') {
    const shown = readLimit(row.agent, await beforeTyping(capturePane(socket, pane, deadline.callMs()), deadline, `session ${row.id}`))
    if (shown !== null && (shown.continueBy.kind === 'choice' || shown.dismiss !== undefined))
      throw new PkError(
        'not-ready',
        `${row.agent} in session ${row.id} shows its usage limit's ${shown.continueBy.kind === 'choice' ? 'dialog' : 'menu'}, which takes a choice, not text; nothing was typed (pk continue ${row.id} carries it on)`,
      )
  }
  // A draft in the input (typed, not sent) would be sent with the text as one message: say what is there.
  if (clean !== '' && !opts.answering && readsDrafts(row.agent)) {
    const coloured = await beforeTyping(capturePane(socket, pane, deadline.callMs(), {colour: true}), deadline, `session ${row.id}`)
    const draft = readDraft(row.agent, coloured)
    if (draft !== null)
      throw new PkError(
        'not-ready',
        `${row.agent} in session ${row.id} has a draft in its input (${draft.length} characters, not typed by this send): pk send would add to it, and ${row.agent} would take both as one message; nothing was typed (send or clear it: pk attach ${row.id})`,
      )
  }
  const beforePaste = await beforeTyping(screen(row, deadline), deadline, `session ${row.id}`)
  opts.check?.()
  if (clean !== '') {
    await paste(row, clean, beforePaste, deadline, typed)
    if (opts.enter) await sleep(PASTE_SETTLE_MS)
  }
  if (!opts.enter) return {id: row.id, bytes, enter: false, submitted: null, enters: 0, state}
  const pressed = {enters: 0}
  let submitted: boolean
  let waiting: boolean
  try {
    ;({submitted, waiting} = await submit(row, clean, beforePaste, deadline, pressed))
  } catch (error) {
    enters = pressed.enters
    throw typed(enters === 0 ? 'Enter was not pressed' : "pk could not see the agent's screen after Enter", error)
  }
  enters = pressed.enters
  const result = {id: row.id, bytes, enter: true, submitted, enters, state}
  if (submitted) return result
  const error = waiting
    ? new PkError(
        'not-submitted',
        `the text is in session ${row.id}'s input, but ${row.agent} did not take the Enter (its screen did not change after ${enters} tries); see it with pk attach ${row.id}`,
      )
    : new PkError(
        'not-confirmed',
        `Enter was pressed in session ${row.id}, but ${row.agent}'s screen did not change within ${(CONFIRM_MS * enters + SLOW_CONFIRM_MS) / 1000} s and the text is not to be seen in its input: pk cannot tell whether it took it (not pressed again); see it with pk attach ${row.id}`,
      )
  throw Object.assign(error, {result})
}
