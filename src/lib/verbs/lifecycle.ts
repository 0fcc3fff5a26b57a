import {accessSync, constants} from 'node:fs'
import {dirname} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {BUILTIN_PRESETS} from '../agents/presets.js'
import {FRESH_LOOK_MS, LiveRow, PaneRow, checkLive, resolveChecked} from './attach.js'
import {resolveId} from '../listing/resolve.js'
import {Started, startSession} from './bg.js'
import {SessionRow} from '../model/contract.js'
import {describeError, PkError} from '../model/errors.js'
import {eachWithProgress, NO_PROGRESS, Progress} from '../model/progress.js'
import {noteAutostartRun} from './service.js'
import {ProcessIdentity, checkLiveness, sessionIdOf} from '../proc/identity.js'
import {processSource} from '../proc/source.js'
import {View} from '../proc/view.js'
import {readView} from '../proc/source.js'
import {readRegularFile} from '../registry/files.js'
import {assertMayWrite, withWriteAccess} from '../registry/ownership.js'
import {SessionRecord, StoredRecord, isStored, parseRecordText, replaceRecord} from '../registry/records.js'
import {StateDir} from '../registry/state-dir.js'
import {Listing, collectSessions} from '../listing/sessions.js'
import {setRemainOnExit} from '../tmux/session.js'
import {ServerListing} from '../tmux/servers.js'
import {capturePane, PaneScreen, PaneView, screenForPage, unanswered, viewAndCapture, viewAndRange} from '../tmux/pane-io.js'
import {dialogOf} from './answer.js'
import {dialogDigest} from '../agents/dialogs.js'
import {beforeTyping, Deadline} from './deadline.js'
import {Context} from '../config/context.js'

/** A session's whole life from a script: stop, resume, restore, send, logs. Each acts on a verified process. */

type Check<T extends SessionRow> = (row: SessionRow) => asserts row is T
const liveFor =
  (doing: string): Check<LiveRow> =>
  (row) =>
    checkLive(row, doing)
/** A live pane, or the dead pane an exited session left: what logs can read. */
const readable: Check<PaneRow> = (row) => {
  if (row.state === 'exited' && !row.conflict && row.tmux !== null) return
  checkLive(row, 'read')
}

/** The identity a live row's id was derived from, read again now: null when that process is gone. */
function identityOf(view: View, row: {id: string; pid: number}): ProcessIdentity | null {
  const stat = processSource().stat(row.pid)
  if (stat === null) return null
  const identity = {bootId: view.bootId, pidNs: view.pidNs, pid: row.pid, startTime: stat.startTime}
  return sessionIdOf(identity) === row.id ? identity : null
}

/** Update a record under the lock, from what the file says now (another writer may have changed it). */
async function updateRecord(ctx: Context, state: StateDir, file: string, change: (record: SessionRecord) => SessionRecord): Promise<void> {
  await withWriteAccess(state, () => {
    const now = parseRecordText(file, readRegularFile(file))
    if (isStored(now)) replaceRecord(file, change(now.record))
  })
}

export interface StopResult {
  id: string
  /** The last signal it took: SIGTERM when it ended cleanly, SIGKILL when it had to be killed. */
  signal: 'SIGTERM' | 'SIGKILL'
  seconds: number
}

/** Wait until the process is gone, or the deadline passes. */
async function goneBy(view: View, identity: ProcessIdentity, deadline: number): Promise<boolean> {
  for (;;) {
    if (!checkLiveness(view, identity).alive) return true
    if (Date.now() >= deadline) return false
    await sleep(50)
  }
}

/** Signal the process and the process group it leads (a pane's process leads its own), if it is still the one. */
function signal(view: View, identity: ProcessIdentity, name: 'SIGTERM' | 'SIGKILL'): void {
  const live = checkLiveness(view, identity)
  if (!live.alive) return
  try {
    process.kill(live.stat.pgrp === identity.pid ? -identity.pid : identity.pid, name)
  } catch {
    // gone in between
  }
}

/** A record pk is about to update: a regular file it may write, or a plain refusal now. */
function assertWritableRecord(file: string): void {
  try {
    parseRecordText(file, readRegularFile(file))
    accessSync(file, constants.W_OK)
    accessSync(dirname(file), constants.W_OK)
  } catch (error) {
    throw new PkError('not-a-file', `cannot write the record ${file} (${error instanceof Error ? error.message : String(error)}); nothing was stopped`)
  }
}

/**
 * What stop may end: a live verified session, or a recorded process whose pane is gone (an agent that
 * outlived its tmux server): its pid and start time are checked against the record all the same.
 */
async function resolveStoppable(idArg: string, ctx: Context): Promise<SessionRow & {pid: number}> {
  const paneless = (row: SessionRow): row is SessionRow & {pid: number} =>
    !row.conflict && row.state !== 'exited' && row.tmux === null && row.record !== null && row.pid !== null
  const startedAt = ctx.now()
  const listing = await collectSessions(ctx)
  const first = resolveId(idArg, listing.rows)
  if (!paneless(first)) return resolveChecked(idArg, ctx, liveFor('stop'), {first: {...listing, startedAt}})
  if (ctx.now() - startedAt < FRESH_LOOK_MS) return first
  const again = (await collectSessions(ctx)).rows.find((r) => r.id === first.id)
  if (!again) throw new PkError('gone', `session ${first.id} ended just now`)
  if (!paneless(again)) checkLive(again, 'stop')
  return again as SessionRow & {pid: number}
}

/**
 * End a session's agent: SIGTERM to its process group (how agents stop cleanly when their terminal goes
 * away), then SIGKILL after the timeout, or at once with `force`. The pane goes with the process; the
 * record stays, as exited and stopped, so a conversation can be resumed.
 */
export async function stopSession(idArg: string, ctx: Context, opts: {force: boolean; timeoutMs: number}): Promise<StopResult> {
  const state = ctx.writeState()
  assertMayWrite(state)
  const row = await resolveStoppable(idArg, ctx)
  // What fails from here on names the session by its full id (a script typed a prefix).
  return stopResolved(ctx, row, state, opts).catch((error: unknown) => {
    throw error instanceof PkError ? Object.assign(error, {sessionId: row.id}) : error
  })
}

async function stopResolved(ctx: Context, row: SessionRow & {pid: number}, state: StateDir, opts: {force: boolean; timeoutMs: number}): Promise<StopResult> {
  const {view} = readView()
  const identity = identityOf(view, row)
  if (identity === null) throw new PkError('gone', `session ${row.id} ended just now`)
  // The stop is written down after the signal: make sure it can be (the lock, the record file), or an
  // agent would end with no "stopped" mark and restore would bring it back.
  if (row.record !== null) await withWriteAccess(state, () => assertWritableRecord(row.record!))
  const started = Date.now()
  // Its pane closes with it instead of staying as a dead pane.
  if (row.tmux !== null) await setRemainOnExit(row.tmux.socket, row.tmux.pane, 'off').catch(() => {})
  let last: StopResult['signal'] = opts.force ? 'SIGKILL' : 'SIGTERM'
  signal(view, identity, last)
  if (!(await goneBy(view, identity, Date.now() + (opts.force ? 2000 : opts.timeoutMs)))) {
    last = 'SIGKILL'
    signal(view, identity, last)
    if (!(await goneBy(view, identity, Date.now() + 2000))) throw new PkError('still-alive', `session ${row.id} (pid ${row.pid}) is still alive after SIGKILL`)
  }
  if (row.record !== null) await updateRecord(ctx, state, row.record, (record) => ({...record, stopped: {at: new Date().toISOString(), signal: last}}))
  return {id: row.id, signal: last, seconds: Math.round((Date.now() - started) / 100) / 10}
}

export interface Resumed extends Started {
  resumedFrom: string
}

/** Pure: why a record names no conversation to resume, in words that send nobody the wrong way. */
function noResumeReason(record: SessionRecord): string {
  if (record.agent === null) return 'it was not started as an agent preset'
  if (record.conversationId !== null) return `${record.agent} cannot resume a conversation by id`
  const preset = BUILTIN_PRESETS.find((p) => p.name === record.agent)
  if (preset && preset.hooks === null) return `${record.agent} has no hooks that tell pk its conversation id (start it again with its own resume option)`
  if (preset?.resume === null) return `${record.agent} cannot resume a conversation`
  // Claude, Codex and Pi report it: Codex only when a turn ends, the others when the conversation starts.
  return `${record.agent} never reported a conversation id for it (${record.agent === 'codex' ? 'Codex reports it when a turn ends' : 'it reports one once a conversation starts'}; pk setup ${record.agent} installs the hook if it is missing)`
}

/** Pure: why this exited session cannot be resumed, or null when it can. */
export function whyNotResumable(row: SessionRow, record: SessionRecord | undefined, liveHolders: SessionRow[]): PkError | null {
  if (row.conflict) return new PkError('conflict', `session ${row.id} is claimed by more than one record; pk will not guess which is right`)
  if (row.state !== 'exited') return new PkError('conversation-taken', `session ${row.id} is still running; attach to it instead (pk attach ${row.id})`)
  if (record === undefined) return new PkError('no-resume', `session ${row.id} has no record to resume from`)
  if (record.resumedBy) return new PkError('conversation-taken', `session ${row.id} was resumed already, as session ${record.resumedBy}`)
  if (row.resume === null) {
    return new PkError('no-resume', `session ${row.id} has nothing to resume: ${noResumeReason(record)}`)
  }
  if (liveHolders.length > 0) {
    return new PkError(
      'conversation-taken',
      `conversation ${record.conversationId} is already live in session ${liveHolders.map((h) => h.id).join(', ')}; two processes writing one transcript corrupt it`,
    )
  }
  return null
}

/** Live sessions whose record holds this conversation. */
function holdersOf(listing: Listing, conversationId: string | null): SessionRow[] {
  if (conversationId === null) return []
  const byFile = new Map(listing.snapshot.records.map((r) => [r.file, r.record]))
  // Recorded, or named by an event still pending (the listing shows it already: its resume argv).
  return listing.rows.filter(
    (r) =>
      r.state !== 'exited' && r.record !== null && (byFile.get(r.record)?.conversationId === conversationId || (r.resume?.includes(conversationId) ?? false)),
  )
}

/**
 * Start an exited session's conversation again, with its preset's resume argv, in the same directory and
 * under the same label, as a new session (new process, new id). The new record names the old one, and
 * the old one names the new: it is no longer offered for resuming.
 */
export async function resumeSession(idArg: string, ctx: Context, listing?: Listing): Promise<Resumed> {
  const state = ctx.writeState()
  assertMayWrite(state)
  const now = listing ?? (await collectSessions(ctx))
  const row = resolveId(idArg, now.rows)
  const stored: StoredRecord | undefined = now.snapshot.records.find((r) => r.file === row.record)
  const refusal = whyNotResumable(row, stored?.record, holdersOf(now, stored?.record.conversationId ?? null))
  if (refusal) throw refusal
  const record = stored!.record
  // A session that had a worktree resumes in it: made again from its branch if the directory is gone.
  if (record.worktree) {
    const {restoreWorktree} = await import('../worktree/worktree.js')
    await restoreWorktree(record.worktree)
  }
  const started = await startSession({
    agent: undefined,
    // The agent's own arguments it was started with (`pk bg claude -- --model opus`) come along.
    extraArgs: [...row.resume!, ...(record.agentArgs ?? [])],
    agentArgs: record.agentArgs ?? undefined,
    cwd: record.cwd,
    name: record.label ?? undefined,
    socket: record.tmux.socket,
    env: ctx.env,
    ctx,
    presets: now.snapshot.presets,
    conversationId: record.conversationId ?? undefined,
    resumedFrom: row.id,
    worktree: record.worktree ?? undefined,
    // The conversation goes on from where it started: what it changed is measured from there still.
    base: record.base ?? null,
    // (and, started with --no-continue, it stays so)
    noContinue: record.continueAtReset === false,
  })
  await updateRecord(ctx, state, stored!.file, (r) => ({...r, resumedBy: started.id}))
  return {...started, resumedFrom: row.id}
}

export interface RestorePlan {
  restore: SessionRow[]
  /** Sessions that were live but cannot be resumed, with why. */
  skip: {row: SessionRow; reason: string}[]
}

/**
 * Pure: the sessions a reboot or a tmux server's death ended, which `pk restore` brings back: recorded,
 * exited because their boot or their server is gone (not stopped, not quit on a running server), and not
 * resumed already. Those whose conversation cannot be resumed are listed, not started.
 */
export function planRestore(rows: SessionRow[], records: StoredRecord[], servers: ServerListing[]): RestorePlan {
  const plan: RestorePlan = {restore: [], skip: []}
  const byFile = new Map(records.map((r) => [r.file, r.record]))
  const serverAlive = (tmux: SessionRecord['tmux']) => servers.some((s) => s.socket === tmux.socket && s.status === 'ok' && s.serverPid === tmux.serverPid)
  for (const row of rows) {
    const record = row.record === null ? undefined : byFile.get(row.record)
    if (row.kind !== 'recorded' || row.state !== 'exited' || row.conflict || record === undefined || record.resumedBy || record.stopped) continue
    if (row.exitReason !== 'other-boot' && serverAlive(record.tmux)) continue
    if (row.resume === null) plan.skip.push({row, reason: whyNotResumable(row, record, [])?.message ?? 'cannot be resumed'})
    else plan.restore.push(row)
  }
  return plan
}

export interface RestoreRun {
  plan: RestorePlan
  restored: {from: string; id: string}[]
  failed: {id: string; message: string}[]
}

/**
 * `pk restore`: resume every session the plan names, one `pk resume` each, after `confirm` (with the plan)
 * says yes; one that fails does not stop the rest. With `autostart`, the run is noted for pk doctor.
 */
export async function restoreAll(
  ctx: Context,
  opts: {dryRun: boolean; confirm: (plan: RestorePlan) => Promise<boolean>; progress?: Progress; autostart?: boolean},
): Promise<RestoreRun> {
  const state = ctx.writeState()
  assertMayWrite(state)
  const listing = await collectSessions(ctx)
  const plan = planRestore(listing.rows, listing.snapshot.records, listing.snapshot.servers)
  if (opts.dryRun) return {plan, restored: [], failed: []}
  if (plan.restore.length > 0 && !(await opts.confirm(plan))) throw new PkError('cancelled', 'nothing restored')
  const title = (row: SessionRow) => `resume ${row.id} (${row.agent ?? row.command[0] ?? 'session'}${row.label ? ` ${row.label}` : ''})`
  const results = await eachWithProgress(
    plan.restore,
    title,
    (row) => resumeSession(row.id, ctx),
    opts.progress ?? NO_PROGRESS,
    (resumed) => `now ${resumed.id}`,
  )
  const run: RestoreRun = {
    plan,
    restored: results.flatMap((r) => (r.ok ? [{from: r.item.id, id: r.value.id}] : [])),
    failed: results.flatMap((r) => (r.ok ? [] : [{id: r.item.id, message: describeError(r.error).message}])),
  }
  if (opts.autostart)
    noteAutostartRun(state, run.failed.length === 0, `${run.restored.length} restored, ${plan.skip.length} skipped, ${run.failed.length} failed`)
  return run
}

/** Pure: text that is safe to type: no control characters but newlines and tabs (an ESC could end a bracketed paste). */
export function checkSendText(text: string): string {
  const normal = text.replaceAll('\r\n', '\n')
  // C1 controls too (U+0080-U+009F): a terminal takes U+009B as CSI, the start of an escape sequence.
  // eslint-disable-next-line no-control-regex -- these are exactly what is refused
  const bad = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/.exec(normal)
  if (bad) throw new PkError('bad-text', `the text contains a control character (code ${bad[0].charCodeAt(0)}); pk send types text, not keys`)
  return normal
}

/** Pure: the last `n` lines of a capture, without the blank lines below the last output. */
export function lastLines(captured: string, n: number, dead = false): string[] {
  const lines = captured.replace(/\n$/, '').split('\n')
  const trim = () => {
    while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop()
  }
  trim()
  // A dead pane ends in tmux's own banner, below the screen's empty rows: neither is the program's output.
  if (dead && lines.length > 0 && /^Pane is dead( \(|$)/.test(lines.at(-1)!)) {
    lines.pop()
    trim()
  }
  return n === 0 ? [] : lines.slice(-n)
}

/** How long pk logs waits, in all, for a tmux server slow to answer before it says it could not look (exit 124). */
export const LOGS_WAIT_MS = 30_000

/**
 * What a session's pane shows and its scrollback: the last `lines` lines, also of the dead pane an exited
 * session left. With `follow`, then every new line as it is written, until the session ends (or `signal`
 * aborts). Lines that scroll out of a full history (tmux's history-limit) between two looks are missed.
 */
export async function readLogs(
  idArg: string,
  ctx: Context,
  opts: {lines: number; color: boolean; follow: boolean; signal?: AbortSignal; emit: (lines: string[]) => void; wanted?: () => boolean},
): Promise<{id: string; dead: boolean}> {
  const deadline = new Deadline(LOGS_WAIT_MS)
  const row = await resolveChecked(idArg, ctx, readable, {waitMs: deadline.left()})
  const {socket, pane} = row.tmux
  const {view: first, text} = await beforeTyping(
    viewAndCapture(socket, pane, opts.lines, opts.color, deadline.callMs()),
    deadline,
    `session ${row.id}'s pane cannot be read`,
    'nothing was printed',
  )
  opts.emit(lastLines(text, opts.lines, first?.dead ?? false))
  if (!opts.follow || first === null || first.dead) return {id: row.id, dead: first?.dead ?? true}
  // Lines are counted from the top of the history: all lines above the cursor are complete. `known` is the
  // last view: each look asks, in the same tmux call as a new view, for the lines that were complete at
  // the last one, counted from where the history then began. They are those lines exactly when nothing
  // scrolled into the history in between (the history is as long as it was); else the look is made again
  // from the new view. A view and a capture in two calls let output land between them: lines printed
  // twice, or never.
  let known: PaneView = first
  let printed = first.historySize + first.cursorY
  for (let poll = 1; ; poll++) {
    await sleep(500, undefined, {signal: opts.signal}).catch(() => {})
    // Nobody reads any more (`| head -1`, with a quiet pane that would never make us write): done.
    if (opts.wanted && poll % 4 === 0 && !opts.wanted()) return {id: row.id, dead: false}
    let end = opts.signal?.aborted ?? false
    // Slow is not absent: a server that did not answer in time (a busy machine, a stopped server) is asked
    // again at the next poll, and what it has not shown yet stays to be printed.
    for (let tries = 0; tries < 10 && !end; tries++) {
      const complete = known.historySize + known.cursorY
      const range = complete > printed ? {from: printed - known.historySize, to: known.cursorY - 1} : null
      let look: {view: PaneView | null; text: string}
      try {
        look = await viewAndRange(socket, pane, range, opts.color)
      } catch (error) {
        if (unanswered(error)) break
        look = {view: null, text: ''}
      }
      // Only a pane tmux says is gone (or dead) ends the follow.
      if (look.view === null || look.view.dead) {
        end = true
        if (look.view !== null) known = look.view
        break
      }
      if (look.view.historySize !== known.historySize) {
        known = look.view
        continue
      }
      if (range !== null) {
        opts.emit(look.text.replace(/\n$/, '').split('\n'))
        printed = complete
      }
      known = look.view
      break
    }
    if (!end) continue
    // The last lines: up to and with the cursor's line, from the last view (a pane that has ended writes nothing more).
    // (asked again from the new view when the history moved meanwhile: the pane's last output, or tmux's
    // banner for a dead pane, can scroll it once more)
    let rest = ''
    for (let tries = 0; tries < 5; tries++) {
      let last: {view: PaneView | null; text: string}
      try {
        last = await viewAndRange(socket, pane, {from: printed - known.historySize, to: '-'}, opts.color)
      } catch {
        break // gone, or not answering as it ends: what was printed stands
      }
      if (last.view === null) break
      if (last.view.historySize === known.historySize) {
        rest = last.text
        known = last.view
        break
      }
      known = last.view
    }
    if (rest !== '') opts.emit(lastLines(rest, rest.split('\n').length, known.dead))
    return {id: row.id, dead: known.dead || !(opts.signal?.aborted ?? false)}
  }
}

/** What a page shows of a session: its screen with colours and geometry, and what it waits on. */
export interface ScreenLook {
  id: string
  state: SessionRow['state']
  screen: PaneScreen
  /**
   * The permission dialog pk answer would answer on this screen (its question, what it asks to do, its
   * choices with their notes, and its digest: `pk answer --dialog` answers only that dialog), or null.
   */
  dialog: {question: string; body: string; digest: string; choices: {n: number; label: string; means: string; note?: string}[]} | null
  /** Waiting on words: a question that takes them (pk answer --text), with choices (dialog) or none. */
  question: boolean
}

/**
 * A paired row's screen now: the screen in one tmux call, and the dialog read from a plain capture by the
 * same reading as pk answer (so what is offered is what pk answer would accept). Null when the pane is gone.
 */
export async function screenOf(row: PaneRow, deadlineMs: number): Promise<ScreenLook | null> {
  const {socket, pane} = row.tmux
  const screen = await screenForPage(socket, pane, deadlineMs)
  if (screen === null) return null
  const dialog = row.state === 'waiting' && row.agent !== null ? dialogOf(row, await capturePane(socket, pane, deadlineMs)) : null
  return {
    id: row.id,
    state: row.state,
    screen,
    // (a question's field for words is the text box, not a button)
    dialog: dialog && {
      question: dialog.question,
      body: dialog.body,
      digest: dialogDigest(dialog),
      choices: dialog.choices
        .filter((c) => c.n !== dialog.takesText)
        .map(({n, label, means, note}) => ({n, label, means, ...(note === undefined ? {} : {note})})),
    },
    question: row.state === 'waiting' && row.agent !== null && (dialog === null || dialog.takesText !== undefined),
  }
}

/** `pk logs ID --screen`: what the session's pane shows now (the page's view, for a script or another host's page). */
export async function readScreen(idArg: string, ctx: Context): Promise<ScreenLook> {
  const deadline = new Deadline(LOGS_WAIT_MS)
  const row = await resolveChecked(idArg, ctx, readable, {waitMs: deadline.left()})
  const look = await beforeTyping(screenOf(row, deadline.callMs()), deadline, `session ${row.id}'s pane cannot be read`, 'nothing was printed')
  if (look === null) throw new PkError('no-such-session', `session ${row.id}'s pane is gone`)
  return look
}
