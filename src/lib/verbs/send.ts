import {setTimeout as sleep} from 'node:timers/promises'

import {LiveRow, checkLive, resolveChecked} from './attach.js'
import {SessionRow} from '../model/contract.js'
import {PkError} from '../model/errors.js'
import {checkSendText} from './lifecycle.js'

import {collectSessions} from '../listing/sessions.js'
import {cursorAndScreen, pasteText, pressEnter} from '../tmux/pane-io.js'
import {Context} from '../config/context.js'

/**
 * `pk send`: type text into an agent and have it submitted, or say that it was not. Agents take a paste
 * as it arrives and swallow an Enter that comes while they still take it (Claude Code, Gemini CLI), and
 * right after `pk bg` they have no input box yet: so pk waits until the agent is ready, pastes, waits
 * until the paste shows and a little more, presses Enter, and confirms that the screen took it.
 */

/** How long after the paste shows before Enter: Claude Code and Gemini CLI took the Enter after a 0.3 s pause; with room to spare. */
export const PASTE_SETTLE_MS = 500
/** How long the screen has to change after Enter (a submitted prompt leaves the input box). */
export const CONFIRM_MS = 2500
const POLL_MS = 100

export interface SendOptions {
  enter: boolean
  /** How long to wait for the agent to be ready for input (ms). */
  timeoutMs: number
  /** Also wait for a running turn to end. */
  whenIdle: boolean
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
export function readiness(row: SessionRow, whenIdle: boolean): 'go' | 'wait' | {refuse: string} {
  if (row.agent === null) return 'go' // a plain command: nothing tells when it is ready, so now
  if (row.state === 'waiting')
    return {refuse: `${row.agent} in session ${row.id} is waiting on a dialog (a question, a permission, a sign-in); answer it first: pk attach ${row.id}`}
  if (row.state === 'idle') return 'go'
  if (row.state === 'working') return whenIdle ? 'wait' : 'go'
  return 'wait' // unknown: still starting, no prompt on its screen yet
}

/** What the pane shows, with where its cursor is and how much has scrolled: a shell's Enter only moves the cursor. */
const screen = (row: LiveRow) => cursorAndScreen(row.tmux.socket, row.tmux.pane)

/** Poll until `test` holds or `ms` pass; whether it held. */
async function until(test: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  for (;;) {
    if (await test()) return true
    if (Date.now() >= deadline) return false
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())))
  }
}

const liveToSend: (row: SessionRow) => asserts row is LiveRow = (row) => checkLive(row, 'send to')

/** Wait until the session is ready for input (bounded), verified again just before typing. */
async function ready(idArg: string, ctx: Context, opts: SendOptions): Promise<LiveRow> {
  const deadline = Date.now() + opts.timeoutMs
  let row: LiveRow = await resolveChecked(idArg, ctx, liveToSend, {waitMs: opts.timeoutMs})
  for (;;) {
    const verdict = readiness(row, opts.whenIdle)
    if (verdict === 'go') return row
    if (verdict !== 'wait') throw new PkError('not-ready', verdict.refuse)
    if (Date.now() >= deadline) {
      throw new PkError(
        'timeout',
        `${row.agent} in session ${row.id} is still ${row.state === 'working' ? 'working' : 'not ready for input (its prompt is not on the screen)'} after ${opts.timeoutMs / 1000} s; nothing was typed (pk send --timeout SECONDS waits longer)`,
      )
    }
    await sleep(Math.min(250, Math.max(0, deadline - Date.now())))
    const again = (await collectSessions(ctx)).rows.find((r) => r.id === row.id)
    if (!again) throw new PkError('gone', `session ${row.id} ended before it was ready for input`)
    // Its server slow for this look: still within our deadline, look again.
    if (again.notVerifiedJustNow !== null && again.state !== 'exited') continue
    liveToSend(again)
    row = again
  }
}

/**
 * Pure: whether the text is verifiably still waiting in the input, on a screen after an Enter that changed
 * nothing: its last line (as much of it as a box shows) is on that screen and was not before the paste.
 * Only then is a second Enter safe; a hidden input (a collapsed paste, an agent that does not echo) cannot
 * be told apart from a late redraw of a turn that started, so it gets no second Enter.
 */
export function stillInInput(text: string, beforePaste: string, now: string): boolean {
  const last = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .at(-1)
    ?.trim()
    .slice(0, 24)
  if (last === undefined || last.length < 2) return false
  return now.includes(last) && !beforePaste.includes(last)
}

export async function sendText(idArg: string, ctx: Context, text: string, opts: SendOptions): Promise<SendResult> {
  const clean = checkSendText(text)
  const row = await ready(idArg, ctx, opts)
  const state = row.state
  const bytes = Buffer.byteLength(clean)
  // A plain command: nothing on its screen says whether it took a line (it may not echo), so the text
  // and one Enter go in one tmux call, and pk claims nothing about it (submitted: null). Never twice.
  if (row.agent === null) {
    if (clean !== '' || opts.enter) await pasteText(row.tmux.socket, row.tmux.pane, clean, {enter: opts.enter})
    return {id: row.id, bytes, enter: opts.enter, submitted: null, enters: opts.enter ? 1 : 0, state}
  }
  const beforePaste = await screen(row)
  if (clean !== '') {
    await pasteText(row.tmux.socket, row.tmux.pane, clean)
    // Until the paste shows (an agent may hide its input: then a second at most), then a moment more.
    await until(async () => (await screen(row)) !== beforePaste, 1000)
    if (opts.enter) await sleep(PASTE_SETTLE_MS)
  }
  if (!opts.enter) return {id: row.id, bytes, enter: false, submitted: null, enters: 0, state}
  let enters = 0
  let submitted = false
  let waiting = true
  // A swallowed Enter leaves the screen as it was, the text still in the box: then once more, no more,
  // and only when the text is seen still waiting there (else a late redraw would get the line twice).
  while (!submitted && waiting && enters < 2) {
    const before = await screen(row)
    await pressEnter(row.tmux.socket, row.tmux.pane)
    enters++
    submitted = await until(async () => (await screen(row)) !== before, CONFIRM_MS)
    waiting = clean !== '' && stillInInput(clean, beforePaste, await screen(row))
  }
  const result = {id: row.id, bytes, enter: true, submitted, enters, state}
  if (submitted) return result
  const error = waiting
    ? new PkError(
        'not-submitted',
        `the text is in session ${row.id}'s input, but ${row.agent} did not take the Enter (its screen did not change after ${enters} tries); see it with pk attach ${row.id}`,
      )
    : new PkError(
        'not-confirmed',
        `Enter was pressed in session ${row.id}, but ${row.agent}'s screen did not change within ${CONFIRM_MS / 1000} s and the text is not to be seen in its input: pk cannot tell whether it took it (not pressed again); see it with pk attach ${row.id}`,
      )
  throw Object.assign(error, {result})
}
