import {setTimeout as sleep} from 'node:timers/promises'

import {isListedByDefault, sortRows} from './pairing.js'
import {JSON_SCHEMA_VERSION, schemaHead, SessionRow} from '../model/contract.js'
import {ServerListing} from '../tmux/servers.js'
import {resolveId} from './resolve.js'
import {PkError} from '../model/errors.js'

import {ScreenWatch, watchPass} from '../events/observe.js'
import {WatchCache} from './watch-cache.js'
import {collectSessions, laggingBehind, listingIdentity} from './sessions.js'
import {pendingSenders} from '../events/spool.js'
import {Context} from '../config/context.js'
import {TMUX_DEADLINE_MS} from '../tmux/exec.js'
import {useSpawner} from '../exec/spawner.js'

export type WatchEvent =
  | {type: 'snapshot'; $schema: 'urn:pk:watch-event'; schema: typeof JSON_SCHEMA_VERSION; sessions: SessionRow[]; problems: unknown[]}
  | {type: 'added' | 'changed'; session: SessionRow}
  | {type: 'removed'; id: string}
  | {type: 'heartbeat'}

/**
 * What counts as a change: everything but the window's last-activity clock, which ticks with any output,
 * and the mark of a row kept from the last look while its server is slow (slow is not a change).
 */
const sameRow = (a: SessionRow, b: SessionRow) =>
  sameJson(a, b, (key, parent) => (key === 'activity' && parent === a.tmux) || (key === 'notVerifiedJustNow' && parent === a))

/** How long a watcher keeps showing a silent tmux server's sessions as they were before it calls the server not answering. */
export const SILENT_BOUND_MS = 30_000

/**
 * A watcher's memory of servers that did not answer in time (a busy machine, a stopped server): for up to
 * SILENT_BOUND_MS it keeps each of their sessions as the last look showed it, marked as not verified just
 * now, so a slow poll flips nothing to `unknown` and emits no change. Past the bound, the sessions show as
 * a one-shot look shows them (from their records, not verified), and the server as not answering.
 */
export class SlowServers {
  private silentSince = new Map<string, number>()

  hold(previous: SessionRow[] | null, rows: SessionRow[], servers: readonly ServerListing[], now: number): SessionRow[] {
    const silent = new Set(servers.filter((s) => s.status === 'unresponsive').map((s) => s.socket))
    for (const socket of this.silentSince.keys()) if (!silent.has(socket)) this.silentSince.delete(socket)
    for (const socket of silent) if (!this.silentSince.has(socket)) this.silentSince.set(socket, now)
    if (previous === null || silent.size === 0) return rows
    const held = new Map<string, SessionRow>()
    for (const row of previous) {
      const socket = row.tmux?.socket
      if (socket === undefined || !silent.has(socket) || now - this.silentSince.get(socket)! >= SILENT_BOUND_MS) continue
      held.set(row.id, {...row, notVerifiedJustNow: `its tmux server (${socket}) did not answer in time; shown as it was at the last look`})
    }
    if (held.size === 0) return rows
    return sortRows([...rows.filter((r) => !held.has(r.id)), ...held.values()])
  }
}

/** Pure: whether two JSON-like values are equal, comparing nothing under a key `skip` names (no text built). */
export function sameJson(a: unknown, b: unknown, skip: (key: string, parent: object) => boolean = () => false): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, i) => sameJson(item, (b as unknown[])[i], skip))
  const keysA = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined)
  const keysB = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined)
  if (keysA.length !== keysB.length) return false
  return keysA.every((k) => skip(k, a) || sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], skip))
}

/** Pure: events that turn the previous listing into the next, one per session. */
export function diffRows(previous: SessionRow[], next: SessionRow[]): WatchEvent[] {
  const before = new Map(previous.map((r) => [r.id, r]))
  const after = new Map(next.map((r) => [r.id, r]))
  const events: WatchEvent[] = []
  for (const row of next) {
    const old = before.get(row.id)
    if (!old) events.push({type: 'added', session: row})
    else if (!sameRow(old, row)) events.push({type: 'changed', session: row})
  }
  for (const row of previous) if (!after.has(row.id)) events.push({type: 'removed', id: row.id})
  return events
}

/**
 * A quiet stream still writes now and then: a write is the only way a writer learns that its reader
 * (say `| head -1`) has gone, so a heartbeat lets pk end on a closed pipe instead of running forever.
 */
export const HEARTBEAT_MS = 5000

/** Poll and emit: a snapshot first, then only what changed. Stops when `signal` aborts. */
export async function watchSessions(opts: {
  ctx: Context
  intervalMs: number
  filter: (row: SessionRow) => boolean
  emit: (event: WatchEvent) => void
  signal: AbortSignal
}): Promise<void> {
  // (a poll for as long as it runs: tmux is asked through a small shell, not a fork of node each time)
  useSpawner()
  let previous: SessionRow[] | null = null
  let lastEmit = Date.now()
  const cache = new WatchCache()
  const screens = new ScreenWatch()
  const slow = new SlowServers()
  let all: SessionRow[] | null = null
  opts.signal.addEventListener('abort', () => cache.close(), {once: true})
  while (!opts.signal.aborted) {
    const listing = await collectSessions(opts.ctx, {cache})
    // A watcher sees what no single look can (a screen's turn ending): it hands that, and whatever needs
    // the user and was not told yet, to the one writer; it writes nothing itself.
    watchPass(screens, listing.rows, listing.snapshot.state, opts.ctx.env, listingIdentity(listing))
    all = slow.hold(all, listing.rows, listing.snapshot.servers, Date.now())
    const rows = all.filter(opts.filter)
    const events: WatchEvent[] =
      previous === null ? [{type: 'snapshot', ...schemaHead('watch-event'), sessions: rows, problems: listing.problems}] : diffRows(previous, rows)
    if (events.length === 0 && Date.now() - lastEmit >= HEARTBEAT_MS) events.push({type: 'heartbeat'})
    for (const event of events) opts.emit(event)
    if (events.length > 0) lastEmit = Date.now()
    previous = rows
    await sleep(opts.intervalMs, undefined, {signal: opts.signal}).catch(() => {})
  }
}

/** `any` (pk mcp's wait_for): it stopped working, whatever it does next: idle, waiting, limited or exited. */
export type WaitTarget = 'waiting' | 'limited' | 'idle' | 'exited' | 'attention' | 'any'
const STOPPED = new Set(['idle', 'waiting', 'limited', 'exited'])

/**
 * Pure: whether a row has reached what `pk wait` waits for; `attention`: it needs the user (the default).
 * A row whose tmux server did not answer just now shows what its agent last reported, not what its screen
 * shows now (a permission dialog may be there): it reaches nothing but `exited`, which the kernel tells.
 */
export const reached = (row: SessionRow, target: WaitTarget) => {
  if (row.notVerifiedJustNow !== null && row.state !== 'exited') return false
  if (target === 'any') return STOPPED.has(row.state)
  return target === 'attention' ? row.attention : row.state === target
}

/** One look at the sessions for a wait: the rows, and those whose state may lag their events (Listing.lagging). */
export interface WaitLook {
  rows: SessionRow[]
  lagging?: ReadonlySet<string>
}

/**
 * Pure: whether a look tells anything of this row's state: not when an event of its may wait unread behind
 * a backlog (its state may be older than its events; whether it exited is the kernel's, and is told).
 */
const told = (look: WaitLook, row: SessionRow) => row.state === 'exited' || !look.lagging?.has(row.id)

export const lookAtSessions =
  (ctx: Context) =>
  async (deadlineMs: number): Promise<WaitLook> => {
    const listing = await collectSessions(ctx, {deadlineMs})
    if (listing.lagging.size === 0) return {rows: listing.rows}
    // Which of them a pending event names: a quiet session stays told while busy ones fill the spool.
    return {rows: listing.rows, lagging: laggingBehind(listing.lagging, listing.rows, listing.snapshot.view, pendingSenders(ctx.readState()))}
  }

export interface WaitOptions {
  ctx: Context
  idArgs: string[]
  target: WaitTarget
  mode: 'all' | 'any'
  timeoutMs: number | null
  intervalMs: number
  /**
   * Only what comes after the wait began (`pk wait --next`): a session counts once it was seen not there
   * and then there, or when what needs you began after the start (a turn that ended between two looks).
   */
  next?: boolean
  /** One look at the sessions, within a tmux deadline (tests hand in a stopped server that costs all of it). */
  look?: (deadlineMs: number) => Promise<WaitLook>
  sleep?: (ms: number) => Promise<unknown>
  /** Instead of ids: the children of this session (`pk wait --children ID`), as the first look lists them. */
  childrenOf?: string
}

/**
 * Pure: the sessions `parent` started (its children, by identity) that a wait waits on: the live ones,
 * and for `exited` or `any` the ended ones too (a worker that is done is there already).
 */
export function childrenToWait(parent: string, rows: readonly SessionRow[], target: WaitTarget): string[] {
  return rows.filter((r) => r.parent === parent && (target === 'exited' || target === 'any' || r.state !== 'exited')).map((r) => r.id)
}

/** A look needs some time to be a look at all, even when the wait's deadline has all but passed. */
export const LOOK_FLOOR_MS = 200
/** Pure: the tmux deadline of one look with `leftMs` of the wait's own left: at most that, never under the floor or over tmux's own. */
export const lookDeadline = (leftMs: number) => Math.max(LOOK_FLOOR_MS, Math.min(TMUX_DEADLINE_MS, leftMs))

/**
 * Block until any session `pk ls` lists (present, or started meanwhile), of `agent` when given, reaches
 * `target`; the ones that did, at that look. Exit 124 on timeout; nothing here is lost by a session ending.
 */
export async function waitForAnySession(opts: Omit<WaitOptions, 'idArgs' | 'mode'> & {agent: string | null}): Promise<SessionRow[]> {
  const now = () => opts.ctx.now()
  const deadline = opts.timeoutMs === null ? Infinity : now() + opts.timeoutMs
  const lookWithin = opts.look ?? lookAtSessions(opts.ctx)
  const pause = opts.sleep ?? ((ms: number) => sleep(ms))
  const what = opts.target === 'attention' ? 'needing you' : opts.target === 'any' ? 'done working' : opts.target
  for (;;) {
    const look = await lookWithin(lookDeadline(deadline - now()))
    const rows = look.rows.filter((r) => isListedByDefault(r) && !r.conflict && (opts.agent === null || r.agent === opts.agent))
    const done = rows.filter((r) => told(look, r) && reached(r, opts.target))
    if (done.length > 0) return done
    if (now() >= deadline)
      throw new PkError('timeout', `no session${opts.agent === null ? '' : ` of ${opts.agent}`} was ${what} after ${(opts.timeoutMs ?? 0) / 1000} s`)
    await pause(Math.min(opts.intervalMs, Math.max(0, deadline - now())))
  }
}

/**
 * Block until the sessions reach `target`: every one of them (`all`), or any one (`any`). Exit 0 when they
 * do, 124 on timeout, 3 when a session disappears or exits first (for `exited`, disappearing is reaching
 * it: an agent started by hand leaves no record). Returns the sessions that reached it.
 */
export async function waitForStates(opts: WaitOptions): Promise<SessionRow[]> {
  const now = () => opts.ctx.now()
  const deadline = opts.timeoutMs === null ? Infinity : now() + opts.timeoutMs
  const lookWithin = opts.look ?? lookAtSessions(opts.ctx)
  const pause = opts.sleep ?? ((ms: number) => sleep(ms))
  // A stopped tmux server costs each look its deadline: never more than what is left of ours.
  const look = () => lookWithin(lookDeadline(deadline - now()))
  const firstLook = await look()
  const listing = firstLook.rows
  const ids = [...new Set(opts.idArgs.map((arg) => resolveId(arg, listing).id))]
  if (opts.childrenOf !== undefined) {
    const parent = resolveId(opts.childrenOf, listing).id
    ids.push(...childrenToWait(parent, listing, opts.target))
    if (ids.length === 0) throw new PkError('no-children', `session ${parent} has no children to wait on (no session it started is running)`)
  }
  const refuseConflict = (row: SessionRow) => {
    if (row.conflict)
      throw new PkError('conflict', `session ${row.id} is claimed by more than one record; pk will not guess which is right (see pk ls problems)`)
  }
  for (const row of listing) if (ids.includes(row.id)) refuseConflict(row)
  const what = opts.target === 'attention' ? 'needing you' : opts.target === 'any' ? 'done working' : opts.target
  const startedAt = now()
  const away = new Set<string>()
  const arrived = (row: SessionRow) => {
    if (!reached(row, opts.target)) {
      away.add(row.id)
      return false
    }
    return !opts.next || away.has(row.id) || (row.attentionSince !== null && Date.parse(row.attentionSince) >= startedAt)
  }
  for (let first = true; ; first = false) {
    const current = first ? firstLook : await look()
    const rows = current.rows
    const done: SessionRow[] = []
    const lost: string[] = []
    const states = new Map<string, string>()
    for (const id of ids) {
      const row = rows.find((r) => r.id === id)
      if (row) states.set(id, row.state)
      if (!row) {
        // (an agent started by hand leaves no record: gone is exited; its last row stands for it)
        if (opts.target === 'exited') done.push({...(listing.find((r) => r.id === id) as SessionRow), state: 'exited'})
        else lost.push(`session ${id} went away before it was ${what}`)
        continue
      }
      refuseConflict(row)
      // Neither there nor away: its newest event may not have been read (a backlog); the next look tells.
      if (!told(current, row)) {
        states.set(id, `${row.state} as far as pk could read (its newest hook events wait behind a backlog)`)
        continue
      }
      if (arrived(row)) done.push(row)
      else if (row.state === 'exited') lost.push(`session ${id} exited before it was ${what}${opts.next ? ' again' : ''}`)
    }
    if (opts.mode === 'any' ? done.length > 0 : done.length === ids.length) return done
    if (opts.mode === 'all' ? lost.length > 0 : lost.length === ids.length) throw new PkError('gone', lost.join('; '))
    if (now() >= deadline) {
      const left = ids.filter((id) => !done.some((r) => r.id === id))
      const still = left
        .map((id) => `session ${id} is still ${states.get(id) ?? 'gone'}${opts.next && !away.has(id) ? ' from before (nothing new got there)' : ''}`)
        .join('; ')
      throw new PkError(
        'timeout',
        `${still} after ${(opts.timeoutMs ?? 0) / 1000} s (waiting until ${opts.mode === 'any' ? 'any is' : left.length > 1 ? 'all are' : 'it is'} ${what})`,
      )
    }
    await pause(Math.min(opts.intervalMs, Math.max(0, deadline - now())))
  }
}
