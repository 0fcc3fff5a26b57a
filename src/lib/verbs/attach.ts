import {SessionRow} from '../model/contract.js'
import {ErrorCode, PkError} from '../model/errors.js'
import {resolveId} from '../listing/resolve.js'

import {collectSessions} from '../listing/sessions.js'
import {AttachPlan, planAttach} from '../tmux/attach-plan.js'
import {TMUX_DEADLINE_MS, tmuxMissing} from '../tmux/exec.js'
import {Context} from '../config/context.js'

export type PaneRow = SessionRow & {tmux: NonNullable<SessionRow['tmux']>}
export type LiveRow = PaneRow & {pid: number}

/** Pure: may pk act on this live session? Conflicts, exited and unverified sessions are refused. */
export function checkLive(row: SessionRow, doing = 'act on it'): asserts row is LiveRow {
  // Each refusal names the session in full (a script may have typed a prefix): `sessionId`, as stop reports it.
  const refuse = (code: ErrorCode, message: string) => Object.assign(new PkError(code, message), {sessionId: row.id})
  if (row.conflict) throw refuse('conflict', `session ${row.id} is claimed by more than one record; pk will not guess which is right (see pk ls problems)`)
  if (row.state === 'exited') throw refuse('exited', `session ${row.id} has exited${row.exitReason ? ` (${row.exitReason})` : ''}; nothing to ${doing}`)
  // Slow is not absent: say what is true (not known just now), not that it cannot be verified.
  if (row.notVerifiedJustNow !== null)
    throw refuse('tmux-unresponsive', `session ${row.id} cannot be checked just now: ${row.notVerifiedJustNow}; nothing was done, try again`)
  if (!row.verified || row.tmux === null || row.pid === null) {
    throw refuse('unverified', `session ${row.id} cannot be verified against a live tmux pane from here; refusing to ${doing}`)
  }
}

/** Pure: may pk show this session's pane? A live verified one, or the dead pane an exited session left. */
export function checkAttachable(row: SessionRow): asserts row is PaneRow {
  if (row.state === 'exited' && !row.conflict) {
    if (row.tmux === null) throw new PkError('exited', `session ${row.id} has exited and its pane is gone; pk ls --all shows why`)
    return
  }
  checkLive(row, 'attach')
}

export async function prepareAttach(idArg: string, ctx: Context): Promise<{row: SessionRow; plan: AttachPlan}> {
  const row = await resolveChecked(idArg, ctx, checkAttachable)
  return {row, plan: planAttach({socket: row.tmux.socket, pane: row.tmux.pane}, ctx.env)}
}

/**
 * A look at most this old when the caller acts is its verification: a second look would be as old by the
 * time the caller acts (it takes as long), so it is made only after a first look that was slow (a tmux
 * server that kept pk waiting) or that a caller made a while ago.
 */
export const FRESH_LOOK_MS = 1000

/** A listing, and when the look that made it began (ctx.now()). */
export interface Look {
  rows: SessionRow[]
  problems: {code: string}[]
  startedAt: number
}

/**
 * Resolve an id, verified right before the caller acts: by a look begun less than FRESH_LOOK_MS ago (the
 * caller's own, or one made here), else by another one: panes listed again and /proc read again. The id is
 * derived from the process identity, so finding it again, in the same pane, means the same process is
 * still there. Every verb that acts on a session goes through here.
 */
export async function resolveChecked<T extends PaneRow>(
  idArg: string,
  ctx: Context,
  check: (row: SessionRow) => asserts row is T,
  opts: {waitMs?: number; first?: Look} = {},
): Promise<T> {
  // A caller with a deadline of its own waits within it for a tmux server that is slow to answer.
  const until = ctx.now() + (opts.waitMs ?? 0)
  const look = async (pick: (rows: SessionRow[]) => SessionRow | undefined): Promise<Look> => {
    const startedAt = ctx.now()
    for (let tries = 0; ; tries++) {
      // The first try waits for tmux as a plain look does (so it may take the scan the fast path started);
      // a server slow to answer is asked again, longer, within the caller's deadline.
      const deadlineMs = tries === 0 ? TMUX_DEADLINE_MS : Math.max(TMUX_DEADLINE_MS, Math.min(until - ctx.now(), 3 * TMUX_DEADLINE_MS))
      const listing = await collectSessions(ctx, {deadlineMs})
      const picked = pick(listing.rows)
      // Slow is not absent: a session not found while a server did not answer may be on that server.
      const slow = picked ? picked.notVerifiedJustNow != null : listing.problems.some((p) => p.code === 'server-unresponsive')
      if (!slow || ctx.now() >= until) return {rows: listing.rows, problems: listing.problems, startedAt}
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(0, until - ctx.now()))))
    }
  }
  const listing =
    opts.first ??
    (await look((rows) => {
      try {
        return resolveId(idArg, rows)
      } catch {
        return undefined
      }
    }))
  // Without tmux nothing can be verified, and that is what to say.
  if (listing.problems.some((p) => p.code === 'tmux-missing')) throw tmuxMissing()
  // A caller with a deadline of its own that passed while tmux was slow could not look: that is its
  // timeout (nothing was done, exit 124), not a refusal and not "no such session".
  const waited = `waited ${Math.round((opts.waitMs ?? 0) / 100) / 10} s`
  const checked = (look: Look, pick: () => SessionRow): T => {
    try {
      const row = pick()
      check(row)
      return row
    } catch (error) {
      const slow = look.problems.some((p) => p.code === 'server-unresponsive')
      if (opts.waitMs === undefined || !(error instanceof PkError)) throw error
      if (error.code === 'tmux-unresponsive')
        throw Object.assign(new PkError('timeout', error.message.replace(/; nothing was done, try again$/, ` (${waited}); nothing was done, try again`)), {
          sessionId: (error as {sessionId?: string}).sessionId,
        })
      if (error.code === 'no-such-session' && slow)
        throw new PkError(
          'timeout',
          `${error.message.replace(/; pk ls --all lists them$/, '')}, but a tmux server did not answer (${waited}): it may be there; nothing was done, try again`,
        )
      throw error
    }
  }
  const first = checked(listing, () => resolveId(idArg, listing.rows))
  const id = first.id
  if (ctx.now() - listing.startedAt < FRESH_LOOK_MS) return first
  const second = await look((rows) => rows.find((r) => r.id === id))
  const again = checked(second, () => {
    const found = second.rows.find((r) => r.id === id)
    if (found) return found
    if (second.problems.some((p) => p.code === 'server-unresponsive')) throw new PkError('no-such-session', `session ${id} is not to be seen just now`)
    throw new PkError('gone', `session ${first.id} ended just now`)
  })
  if (again.tmux.socket !== first.tmux.socket || again.tmux.pane !== first.tmux.pane) {
    throw new PkError('moved', `session ${first.id} moved between checks; try again`)
  }
  return again
}
