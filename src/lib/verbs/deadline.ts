import {setTimeout as sleep} from 'node:timers/promises'

import {PkError} from '../model/errors.js'
import {TMUX_DEADLINE_MS} from '../tmux/exec.js'
import {unanswered} from '../tmux/pane-io.js'

/**
 * A command's own deadline (`pk send --timeout`, `pk answer --timeout`, `pk logs`): within it, slow is
 * waiting. Every tmux call the command makes may take what is left of it (never less than tmux's own
 * default, so a call made at the very end still gets a fair chance); the 2 s default applies only where no
 * caller gave a deadline.
 */
export class Deadline {
  readonly end: number
  constructor(
    readonly ms: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.end = clock() + ms
  }
  left(): number {
    return Math.max(0, this.end - this.clock())
  }
  passed(): boolean {
    return this.clock() >= this.end
  }
  /** How long one tmux call may take now. */
  callMs(): number {
    return Math.max(TMUX_DEADLINE_MS, this.left())
  }
  /** The deadline in words, for messages: "30 s". */
  toString(): string {
    return `${Math.round(this.ms / 100) / 10} s`
  }
}

/** A look that took longer than this was slow (tmux kept pk waiting): a window to watch the screen counts from its answer. */
const SLOW_LOOK_MS = 1000
/** How long a screen is still watched once a slow tmux server answered again (the agent redraws after the server passes it what was typed). */
const AFTER_SLOW_MS = 1500
const POLL_MS = 100

/**
 * Poll until `test` holds or `ms` of answered looks pass; whether it held. A look that tmux was slow to
 * answer (a loaded machine, a stopped server) shows the screen late: the window then goes on from that
 * answer, as far as the caller's deadline.
 */
export async function watchScreen(test: () => Promise<boolean>, ms: number, deadline: Deadline): Promise<boolean> {
  let end = Date.now() + ms
  for (;;) {
    const asked = Date.now()
    if (await test()) return true
    if (Date.now() - asked > SLOW_LOOK_MS) end = Math.max(end, Math.min(Date.now() + AFTER_SLOW_MS, deadline.end))
    if (Date.now() >= end) return false
    await sleep(Math.min(POLL_MS, Math.max(0, end - Date.now())))
  }
}

/**
 * A step before anything was typed: a tmux server that did not answer within the caller's deadline means
 * nothing was done (exit 124, safe to try again); anything else is as it was.
 */
export async function beforeTyping<T>(step: Promise<T>, deadline: Deadline, what: string, nothing = 'nothing was typed'): Promise<T> {
  try {
    return await step
  } catch (error) {
    if (unanswered(error))
      throw new PkError('timeout', `${what}: its tmux server did not answer within ${deadline} (stopped or very busy); ${nothing}, try again`)
    throw error
  }
}
