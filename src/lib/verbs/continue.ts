import {setTimeout as sleep} from 'node:timers/promises'
import {readdirSync} from 'node:fs'
import {join} from 'node:path'

import {readDialog} from '../agents/dialogs.js'
import {LimitShown, readLimit} from '../agents/limits.js'
import {Context} from '../config/context.js'
import {LimitsConfig, NotifyChannel} from '../config/config.js'
import {ContinueFile, MAX_IN_A_ROW, continueMessage, continuingAllowed, planContinue} from '../limits/plan.js'
import {newContinueFile, readContinueFile, writeContinueFile} from '../limits/store.js'
import {Listing, collectSessions, listingIdentity} from '../listing/sessions.js'
import {resolveId} from '../listing/resolve.js'
import {SessionLimit, SessionRow} from '../model/contract.js'
import {PkError, describeError} from '../model/errors.js'
import {DEFAULT_CHANNELS, SessionLink, claimEvent, deliver, eventOf, toldEvent} from '../notify/notify.js'
import {mayWrite, withWriteAccess} from '../registry/ownership.js'
import {StateDir} from '../registry/state-dir.js'
import {capturePane, sendKeys} from '../tmux/pane-io.js'
import {Deadline, watchScreen} from './deadline.js'
import {LiveRow, checkLive} from './attach.js'
import {sendText} from './send.js'
import {arrangeWake, cancelWake, wakeAlive} from './wake.js'

/**
 * Sessions at a usage limit, carried on at the reset (docs/limits.md): the writer arranges one wake-up per
 * limit (arrangeContinues, from pk notify), the wake-up continues the session once (continueSession with
 * `wake`), and `pk continue` does it now, moves the moment, or turns it off. What pk keeps about it is
 * limits/store.ts's file; who continues it, limits/plan.ts.
 */

export interface ContinueResult {
  id: string
  agent: string | null
  /** `continued`: pk typed the continue (its message, or the limit dialog's choice); `at`: a moment set; `off`; `skipped` (a wake-up that found nothing to do). */
  done: 'continued' | 'at' | 'off' | 'skipped'
  /** What pk typed or chose. */
  typed: string | null
  /** When pk continues it now (`at`). */
  continueAt: string | null
  /** Why a wake-up did nothing, in words. */
  why: string | null
}

const identityOf = (listing: Listing, row: SessionRow) => listingIdentity(listing)(row)

/** The file about this row's process, or a fresh one (another process in the same place is another session). */
function fileFor(state: StateDir, row: SessionRow, who: {pid: number; startTime: number}): ContinueFile {
  const file = readContinueFile(state, row.id)
  return file !== null && file.pid === who.pid && file.startTime === who.startTime ? file : newContinueFile(row.id, who)
}

/** Whether a turn ended (or a dialog came) between two moments: the notified/ markers of that session's events between them. */
function turnBetween(state: StateDir, id: string, from: number, to: number): boolean {
  try {
    return readdirSync(join(state.root, 'notified')).some((name) => {
      const m = /^([0-9a-f]{8})-(\d+)$/.exec(name)
      return m !== null && m[1] === id && Number(m[2]) > from && Number(m[2]) < to
    })
  } catch {
    return false
  }
}

/**
 * The writer's part, before it tells: for each session at a limit, take a new episode in (one more limit
 * in a row unless a turn ended since pk last continued it; the third in a row stops pk), then arrange the
 * wake-up its plan asks for, or cancel one it no longer does. Returns the rows with their plans as they now
 * stand, for the telling. Only a pk that may write does anything.
 */
export async function arrangeContinues(ctx: Context, listing: Listing, rows: SessionRow[], settings: LimitsConfig | undefined): Promise<SessionRow[]> {
  const state = ctx.readState()
  if (state === null || !mayWrite(state) || !rows.some((r) => r.limit !== null && r.limit.since !== null)) return rows
  const records = new Map(listing.snapshot.records.map((s) => [s.file, s.record]))
  const out: SessionRow[] = []
  for (const row of rows) {
    const who = identityOf(listing, row)
    if (row.limit === null || row.limit.since === null || who === null || !row.verified) {
      out.push(row)
      continue
    }
    const limit = row.limit
    const record = row.record === null ? null : (records.get(row.record) ?? null)
    const planned = await withWriteAccess(state, async () => {
      const file = fileFor(state, row, who)
      if (file.episode !== limit.since) {
        const since = Date.parse(limit.since!)
        const inARow = file.lastContinuedAt !== null && !turnBetween(state, row.id, Date.parse(file.lastContinuedAt), since) ? file.inARow : 0
        if (file.wake !== null) await cancelWake(file.wake, ctx.env)
        Object.assign(file, {episode: limit.since, at: null, off: false, offWhy: null, wake: null, inARow, gaveUp: inARow >= MAX_IN_A_ROW})
      }
      const plan = planContinue(limit, continuingAllowed(row, settings, record), file)
      await keepWake(ctx, file, plan)
      await writeContinueFile(state, file)
      return plan
    })
    out.push({...row, limit: {...limit, ...planned}})
  }
  return out
}

/** The wake-up the plan asks for: one at its moment, alive; none where pk does not continue it. */
async function keepWake(ctx: Context, file: ContinueFile, plan: Pick<SessionLimit, 'continuedBy' | 'continueAt'>): Promise<void> {
  const wanted = plan.continuedBy === 'pk' && plan.continueAt !== null ? Date.parse(plan.continueAt) : null
  const current = file.wake
  if (current !== null && (wanted === null || Date.parse(current.at) !== wanted || wakeAlive(current) === false)) {
    await cancelWake(current, ctx.env)
    file.wake = null
  }
  if (wanted !== null && file.wake === null) file.wake = await arrangeWake(file.id, wanted, ctx.env)
}

/** The session named, looked at now, with what the listing knows of its process. */
async function look(ctx: Context, idArg: string): Promise<{listing: Listing; row: SessionRow}> {
  const listing = await collectSessions(ctx)
  return {listing, row: resolveId(idArg, listing.rows)}
}

const limitedOnly = (row: SessionRow): SessionLimit => {
  if (row.state !== 'limited' || row.limit === null)
    throw new PkError('not-limited', `session ${row.id}${row.agent ? ` (${row.agent})` : ''} is ${row.state}, not at a usage limit; nothing was typed`)
  return row.limit
}

/** `pk continue ID --at TIME`: continue this limit at that moment (and not before); `--off`: not at all. */
export async function scheduleContinue(ctx: Context, idArg: string, change: {at: number} | {off: true}): Promise<ContinueResult> {
  const {listing, row} = await look(ctx, idArg)
  checkLive(row, 'continue')
  const limit = limitedOnly(row)
  const who = identityOf(listing, row)
  const state = ctx.writeState()
  if (who === null) throw new PkError('not-continued', `session ${row.id}'s process cannot be read just now; nothing was changed`)
  if (limit.since === null)
    throw new PkError('not-limited', `session ${row.id}'s limit has not been dated yet (pk saw it only a moment ago); try again in a few seconds`)
  const settings = (await ctx.config()).config.limits
  const plan = await withWriteAccess(state, async () => {
    const file = fileFor(state, row, who)
    if (file.episode !== limit.since) Object.assign(file, {episode: limit.since, at: null, off: false, offWhy: null, gaveUp: false})
    if ('off' in change) Object.assign(file, {off: true, offWhy: null, at: null})
    else Object.assign(file, {off: false, offWhy: null, at: new Date(change.at).toISOString(), gaveUp: false})
    const planned = planContinue(limit, continuingAllowed(row, settings, null), file)
    await keepWake(ctx, file, planned)
    await writeContinueFile(state, file)
    return planned
  })
  return {id: row.id, agent: row.agent, done: 'off' in change ? 'off' : 'at', typed: null, continueAt: plan.continueAt, why: plan.why}
}

/**
 * Continue a session at its limit, once: the limit is still the agent's last word on its screen, no other
 * dialog is up, and (for a wake-up) it is the same process at the same limit, pk still the one to continue
 * it, and nobody attached. Then: Gemini CLI's "Keep trying"; Claude Code's limit menu closed (Esc), then
 * the message; else the message (default "continue"), through pk send's checks. What came of it is kept, so
 * pk never continues the same limit twice; a wake-up that fails tells you, once.
 */
export async function continueSession(ctx: Context, idArg: string, opts: {wake?: {at: number}; timeoutMs: number}): Promise<ContinueResult> {
  const {listing, row} = await look(ctx, idArg)
  checkLive(row, 'continue')
  const limit = limitedOnly(row)
  const state = ctx.writeState()
  const who = identityOf(listing, row)
  if (who === null) throw new PkError('not-continued', `session ${row.id}'s process cannot be read just now; nothing was typed`)
  const file = readContinueFile(state, row.id)
  if (opts.wake !== undefined) {
    const refused = wakeRefusal(row, limit, file, who, opts.wake.at)
    // (found attached at the reset, it is theirs: this limit is left to them, and no wake-up comes again for it)
    if (refused === ATTACHED) await leaveTo(state, row, who, limit, 'someone was attached at the reset: left to them')
    if (refused !== null) return {id: row.id, agent: row.agent, done: 'skipped', typed: null, continueAt: null, why: refused}
  }
  const deadline = new Deadline(opts.timeoutMs)
  const screen = await capturePane(row.tmux!.socket, row.tmux!.pane, deadline.callMs())
  const shown = readLimit(row.agent, screen)
  if (shown === null)
    throw new PkError('not-limited', `session ${row.id}'s screen no longer shows its limit as its last word; nothing was typed (pk attach ${row.id} to look)`)
  const dialog = readDialog(row.agent, screen)
  if (dialog !== null)
    throw new PkError(
      'not-continued',
      `${row.agent} in session ${row.id} shows a dialog: answer it first (pk answer ${row.id}; pk logs ${row.id} --screen shows it); nothing was typed`,
    )
  const settings = (await ctx.config()).config.limits
  const message = continueMessage(row.agent, settings)
  const record = (outcome: string) => recordOutcome(ctx, state, row, who, limit, outcome)
  try {
    const typed = await typeContinue(ctx, row as LiveRow, shown, message, deadline)
    await record(`continued at ${new Date().toISOString()}`)
    return {id: row.id, agent: row.agent, done: 'continued', typed, continueAt: null, why: null}
  } catch (error) {
    const why = describeError(error).message
    await record(`not carried on: ${why}`)
    if (opts.wake !== undefined) await tellFailure(ctx, row, why)
    throw error
  }
}

const ATTACHED = 'someone is attached to it: they carry it on'

async function leaveTo(state: StateDir, row: SessionRow, who: {pid: number; startTime: number}, limit: SessionLimit, why: string): Promise<void> {
  await withWriteAccess(state, async () => {
    const file = fileFor(state, row, who)
    if (file.episode !== limit.since) return
    Object.assign(file, {off: true, offWhy: why, wake: null})
    await writeContinueFile(state, file)
  })
}

/** Pure-ish: why a wake-up must not continue this row now, or null. */
function wakeRefusal(row: SessionRow, limit: SessionLimit, file: ContinueFile | null, who: {pid: number; startTime: number}, at: number): string | null {
  if (file === null || file.pid !== who.pid || file.startTime !== who.startTime) return 'another process is in that pane now'
  if (file.wake === null || Date.parse(file.wake.at) !== at) return 'the moment was moved or cancelled'
  if (file.episode !== limit.since) return 'the session is at another limit now'
  if (limit.continuedBy !== 'pk') return `pk does not continue it now${limit.why ? ` (${limit.why})` : ''}`
  if (row.attached) return ATTACHED
  if (Date.now() < at) return 'not yet'
  return null
}

/** Type what continues it: the limit dialog's choice, or (its menu closed first) the message. */
async function typeContinue(ctx: Context, row: LiveRow, shown: LimitShown, message: string, deadline: Deadline): Promise<string> {
  const {socket, pane} = row.tmux
  if (shown.continueBy.kind === 'choice') {
    const {n, label} = shown.continueBy
    await sendKeys(socket, pane, [String(n)], deadline.callMs())
    const gone = await watchScreen(async () => readLimit(row.agent, await capturePane(socket, pane, deadline.callMs())) === null, 3000, deadline)
    if (!gone)
      throw new PkError(
        'not-confirmed',
        `chose "${label}" in session ${row.id}, but its limit dialog was still there after 3 s (not chosen again); see it with pk attach ${row.id}`,
      )
    return label
  }
  if (shown.dismiss !== undefined) {
    await sendKeys(socket, pane, [shown.dismiss], deadline.callMs())
    const closed = await watchScreen(
      async () => readLimit(row.agent, await capturePane(socket, pane, deadline.callMs()))?.dismiss === undefined,
      3000,
      deadline,
    )
    if (!closed) throw new PkError('not-continued', `${row.agent}'s limit menu in session ${row.id} did not close; nothing was typed`)
  }
  await sendText(row.id, ctx, message, {enter: true, timeoutMs: deadline.left(), whenIdle: false})
  return message
}

/** Keep what came of a continue: this limit is not continued again; one more in a row; its wake-up, if another, cancelled. */
async function recordOutcome(
  ctx: Context,
  state: StateDir,
  row: SessionRow,
  who: {pid: number; startTime: number},
  limit: SessionLimit,
  outcome: string,
): Promise<void> {
  const wake = await withWriteAccess(state, async () => {
    const file = fileFor(state, row, who)
    const arranged = file.wake
    if (file.episode !== limit.since) Object.assign(file, {episode: limit.since, at: null, off: false, offWhy: null})
    Object.assign(file, {
      inARow: file.inARow + 1,
      lastContinuedAt: new Date().toISOString(),
      continuedEpisode: limit.since,
      lastOutcome: outcome.slice(0, 300),
      wake: null,
    })
    await writeContinueFile(state, file)
    return arranged
  })
  // (a sleeper that is this very process is ending anyway; a timer that fired is spent)
  if (wake !== null && !(wake.kind === 'sleeper' && wake.pid === process.pid)) await cancelWake(wake, ctx.env)
}

/** A wake-up that could not carry the session on says so, once (a marker of its own, like every event). */
async function tellFailure(ctx: Context, row: SessionRow, why: string): Promise<void> {
  const state = ctx.readState()
  if (state === null) return
  const named = {id: row.id, attentionSince: new Date().toISOString()}
  if (!(await claimEvent(state, named))) return
  toldEvent(state, named)
  const {config} = await ctx.config()
  const channels: NotifyChannel[] = config.notify ?? DEFAULT_CHANNELS
  const link: SessionLink = () => null
  await deliver(eventOf(row, `could not be continued at its limit's reset: ${why}`, named.attentionSince), channels, ctx.env, state, link)
}

/**
 * `pk continue ID --wake MS`, the wake-up itself (a systemd timer's, or a detached pk's): sleep until the
 * moment, a minute at a time, each time looking whether it still stands (moved, cancelled, the session at
 * another limit: then it ends, having done nothing); then continue once.
 */
export async function wakeToContinue(ctx: Context, id: string, at: number): Promise<ContinueResult> {
  const state = ctx.readState()
  for (;;) {
    const file = readContinueFile(state, id)
    if (file === null || file.wake === null || Date.parse(file.wake.at) !== at)
      return {id, agent: null, done: 'skipped', typed: null, continueAt: null, why: 'the moment was moved or cancelled'}
    const left = at - Date.now()
    if (left <= 0) break
    await sleep(Math.min(left, 60_000))
  }
  try {
    return await continueSession(ctx, id, {wake: {at}, timeoutMs: 30_000})
  } catch (error) {
    // (told already where it was a failure to carry it on; a session gone or no longer limited is nothing to tell)
    return {id, agent: null, done: 'skipped', typed: null, continueAt: null, why: describeError(error).message}
  }
}
