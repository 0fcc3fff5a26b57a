import {PaneId, TmuxSessionId, WindowId} from './ids.js'
import {State} from './states.js'

/**
 * The shapes pk promises to scripts: a listed session, a problem, usage, a doctor check. Every layer
 * speaks them (pairing makes rows, presenters print them, hosts send them over ssh), so they live here,
 * below all of them. The JSON schemas in schemas/ say the same.
 */

export type {State} from './states.js'

/** Version of every --json shape (README, "pk ls --json"): adding fields keeps it, renaming or removing bumps it. */
export const JSON_SCHEMA_VERSION = 1 as const

/** The documents pk's --json output follows: each is `schemas/NAME.schema.json`, whose `$id` is `urn:pk:NAME`. */
export type SchemaName =
  | 'answer'
  | 'bg'
  | 'continue'
  | 'diff'
  | 'doctor'
  | 'land'
  | 'logs'
  | 'ls'
  | 'notify'
  | 'prune'
  | 'restore'
  | 'screen'
  | 'send'
  | 'stop'
  | 'usage'
  | 'wait'
  | 'watch-event'

/**
 * The head of every --json document: which schema it follows (`$schema`, the `$id` of its file in schemas/)
 * and the version of the shapes (`schema`), so a script, or a validator, can tell one output from another.
 */
export const schemaHead = <N extends SchemaName>(name: N) => ({$schema: `urn:pk:${name}` as `urn:pk:${N}`, schema: JSON_SCHEMA_VERSION})

/**
 * A --json document as pk prints it: indented for a person at a terminal, one line for a pipe or a file,
 * where scripts read it (as gh does). A thousand sessions are a third fewer bytes that way, and V8 writes
 * them about twice as fast. The shape is the same either way; whitespace is not part of the contract.
 */
export const jsonDocument = (value: unknown, forTerminal: boolean) => jsonText(value, forTerminal ? 2 : undefined) + '\n'

/**
 * Pure: JSON as pk prints it: JSON.stringify's, with the C1 controls (U+0080-U+009F) escaped too, as it
 * escapes C0's: a terminal takes U+009D as the start of an OSC (a clipboard write, a title), and a file name
 * or a label that holds one must reach a terminal as text, as every other output of pk's does.
 */
export const jsonText = (value: unknown, indent?: number) =>
  JSON.stringify(value, null, indent).replace(/[\u0080-\u009f]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)

export type StateSource = 'agent' | 'hook' | 'pane' | 'process' | 'none'

export interface TmuxLocation {
  socket: string
  session: string
  sessionId: TmuxSessionId
  window: WindowId
  pane: PaneId
  /** When a client last attached to the session (seconds since the epoch), or null. */
  lastAttached: number | null
  /** When a client last detached from it (seconds since the epoch), where pk's server keeps it; else null. */
  lastDetached: number | null
  /** Last activity in the pane's window (seconds since the epoch), or null. */
  activity: number | null
}

export interface SessionRow {
  id: string
  /** `recorded`: started by pk; `detected`: an agent found in a pane; `pane`: any other pane (with --all). */
  kind: 'recorded' | 'detected' | 'pane'
  agent: string | null
  label: string | null
  state: State
  stateSource: StateSource
  attention: boolean
  verified: boolean
  /** Two or more records claim this process: nobody is trusted with it. */
  conflict: boolean
  pid: number | null
  cwd: string | null
  command: string[]
  startedAt: string | null
  attached: boolean
  tmux: TmuxLocation | null
  resume: string[] | null
  record: string | null
  /** Why a recorded session counts as ended: `gone`, `pid-reused`, `other-boot`, `zombie`; null otherwise. */
  exitReason: string | null
  /**
   * What says which agent this is: `record` (pk started it as that preset, or its hook said so), `exe`
   * (the executable the kernel reports), `argv` (only the command line, which a process can rewrite:
   * a script run by node or python, or a renamed process); null when no agent is named.
   */
  agentSource: 'record' | 'exe' | 'argv' | null
  /** An exited session's exit status, from its dead pane while tmux keeps it; else null. */
  exitStatus: number | null
  /** The session that started this one (pk bg or pk mcp's start_session run among its processes, by identity); else null. */
  parent: string | null
  /** The id of the session that resumed this one's conversation (then `resume` is null); else null. */
  resumedBy: string | null
  /** When the waiting (or the end of the turn) began, by the report or the screen; else null. Names the event for notifications. */
  attentionSince: string | null
  /** The git worktree pk made for the session, its branch, and whether it has uncommitted changes (null: unknown). */
  worktree: {path: string; branch: string; dirty: boolean | null} | null
  /** What the conversation spent and how full its context is, from the agent's transcript; null when not known. */
  usage: Usage | null
  /**
   * Why this live session could not be checked against its pane just now, though nothing says it is gone:
   * its tmux server did not answer in time (slow is not absent). Shown from its record, not verified, not
   * attachable until the server answers again. Null otherwise.
   */
  notVerifiedJustNow: string | null
  /** At a usage or rate limit (state `limited`): which limit, when it resets, who continues it; else null. */
  limit: SessionLimit | null
  /**
   * What the session changed since its base (pk ls --changes only; absent otherwise): files, lines, its
   * commits, uncommitted work. Null where pk knows no base or git could not say.
   */
  changes?: ChangeSummary | null
}

/**
 * A session stopped at its plan's usage limit or its API's rate limit (docs/limits.md). `since` names the
 * episode: a second limit right after is another one.
 */
export interface SessionLimit {
  /** Which limit, in the agent's words: `5-hour limit`, `weekly limit`, `usage limit`, `rate limit`. */
  what: string
  /** When it resets, where the agent says (read in the agent's time zone, the next such moment after it was shown); else null. */
  resetsAt: string | null
  /** The reset as the agent showed it (`5:09am (UTC)`), or null. */
  shown: string | null
  /** Since when the session is at this limit (its report, or the screen's first sight). */
  since: string | null
  /**
   * Who carries the session on: `agent` (Claude Code continues by itself at the reset), `pk` (at
   * `continueAt`), or `nobody` (no reset known, continuing off for it, or stopped after three limits in a row).
   */
  continuedBy: 'agent' | 'pk' | 'nobody'
  /** When pk continues it (shortly after the reset, or when `pk continue --at` says); null unless `continuedBy` is pk. */
  continueAt: string | null
  /** Why nobody continues it, in words, where nobody does. */
  why: string | null
}

/** The counts of what a session changed since its base (pk ls --changes, the dashboard). */
export interface ChangeSummary {
  files: number
  insertions: number
  deletions: number
  commits: number
  dirty: boolean
}

/** Every code a problem in `pk ls --json` (and prune, watch) can carry; the README lists the same. */
export const PROBLEM_CODES = [
  'conflict',
  'corrupt-record',
  'invalid-record',
  'unknown-version',
  'symlinked-record',
  'unreadable-record',
  'foreign-namespace',
  'bad-owner',
  'no-view',
  'unreachable',
  'unverified-server',
  'foreign-pane',
  'server-unresponsive',
  'server-access-denied',
  'tmux-error',
  'tmux-output',
  'tmux-missing',
  'host-unreachable',
  'host-no-pk',
  'host-pk-incompatible',
  'host-pk-failed',
  'events-pending',
  'unsafe-dir',
  'codex-shared-folder',
  'state-disagrees',
  'own-state-refused',
] as const
export type ProblemCode = (typeof PROBLEM_CODES)[number]

export interface Problem {
  code: ProblemCode
  message: string
  [extra: string]: unknown
}

export interface Usage {
  model: string | null
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  contextTokens: number | null
  contextWindow: number | null
  /** Money spent: the agent's own record (Pi), else from your config's rates for the model; null when neither. */
  cost: number | null
  costSource: 'agent' | 'rates' | null
  /** The model when it has no rate in your config (so its cost is null). */
  unpriced: string | null
  source: string
  updatedAt: string | null
  skippedLines: number
  /** Past a threshold of yours (`usage.attention`): which, since when (the transcript's date), and the threshold. */
  attention: UsageAttention | null
}

export interface UsageAttention {
  reason: 'context' | 'cost'
  since: string
  threshold: number
}

/** A doctor check's verdict. */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip'

/** What one doctor check found. `fix` says what to do, for a person; null when nothing needs doing. */
export interface CheckResult {
  id: string
  title: string
  status: CheckStatus
  message: string
  fix: string | null
  /** `pk doctor --fix` can repair this without losing anything. */
  fixable: boolean
}

/**
 * The address of one session's view on `pk serve`'s page: the session in the fragment, so that it never
 * reaches a server log or a Referer, and the page opens with that session's screen.
 */
export const sessionPageUrl = (origin: string, id: string) => `${origin.replace(/\/+$/, '')}/#session=${encodeURIComponent(id)}`

/**
 * The commit a session started from, and the branch it was made from (null: a detached HEAD or a commit),
 * in `checkout`: a worktree pk made for it, or a plain checkout that others may change too.
 */
export interface SessionBase {
  commit: string
  branch: string | null
  checkout: string
  kind: 'worktree' | 'checkout'
}
