/**
 * What an agent publishes about itself (DESIGN.md §1.18): its own word on whether it works, waits or idles,
 * read by identity. Each agent that publishes one has a reader in its own folder (claude/record.ts); this is
 * the shape they all return and the table the listing asks.
 */

/** The states an agent's own word can name: a limit, a failed turn or a dialog's choices are the screen's. */
export type OwnState = 'working' | 'waiting' | 'idle'

export interface OwnWord {
  state: OwnState
  /** Since when the agent has been in this state (ms since the epoch), by its own clock. */
  since: number
  /** What it waits for, in its words ("permission prompt"), or null. */
  detail: string | null
  /** The agent's release, as it writes it, or null. */
  version: string | null
  /** Which of the agent's channels said it, for `pk ls --json`'s stateSource and doctor: `claude-record`. */
  channel: string
}

/** The process a word must be about: pid and kernel start time, in the pid namespace pk reads /proc in. */
export interface OwnIdentity {
  pid: number
  /** /proc/PID/stat field 22 (clock ticks since boot). */
  startTime: number
  /** The pid namespace's inode number, as pk's view names it ('4026531836'). */
  pidNs: string
}

/** Where a reader looks, from the agent process's own environment (HOME, its config folder). */
export interface OwnPlace {
  env: (name: string) => string | null
  /** The user pk runs as: a record must be theirs, in a folder only they can write. */
  uid: number
}

/**
 * A reading: the word, believed; why a record there was not believed (`stale`: left by an earlier process with
 * this pid, as a killed agent leaves it, which is no fault of anyone's); or null where the agent keeps none.
 */
export type OwnReading = {word: OwnWord} | {refused: string; stale?: true} | null

export type OwnStateReader = (who: OwnIdentity, where: OwnPlace) => OwnReading
