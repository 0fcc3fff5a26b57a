import {LimitsConfig} from '../config/config.js'
import {SessionLimit, SessionRow} from '../model/contract.js'
import {parseReset, resetInstant, zonedInstant} from '../agents/limits.js'

/**
 * Pure: who carries a session at a usage limit on, and when (docs/limits.md). The agent, where it says it
 * continues by itself (Claude Code's "Continuing automatically at 5:09am"); else pk, shortly after the reset
 * or when `pk continue --at` says, where your settings let it (on for sessions pk started, off for the ones
 * you started yourself, unless `limits.continue` says otherwise; never for a `pk bg --no-continue`); else
 * nobody, with the reason.
 */

/**
 * How long after a reset pk continues: the agents show their reset to the minute ("5:10 AM"; the limit may
 * lift at 5:10:59), and a continue typed before it lifts meets the limit again. Claude Code waits about as
 * long before it continues by itself.
 */
export const RESET_GRACE_MS = 90_000

/** After this many limits in a row with no finished turn between them, pk stops continuing and says so. */
export const MAX_IN_A_ROW = 3

/** What pk keeps about one session's continuing (state/continue/ID.json): its process, and the episode's. */
export interface ContinueFile {
  version: 1
  id: string
  /** The process it is about: another one in the same pane (a restarted agent) is another session. */
  pid: number
  startTime: number
  /** The limit episode this file's moment, `off` and `gaveUp` are about (its `since`). */
  episode: string | null
  /** The moment `pk continue --at` set for this episode, else null (shortly after the reset). */
  at: string | null
  /** Not continued this episode: `pk continue --off`, or left to whoever was attached at the reset (`offWhy` says which). */
  off: boolean
  offWhy: string | null
  /** Continued this many times in a row without a finished turn between; `gaveUp` once it reached MAX_IN_A_ROW. */
  inARow: number
  gaveUp: boolean
  /** The wake-up arranged for this episode, and for when. */
  wake: Wake | null
  /** When pk last typed a continue, at which limit (its episode), and what came of it. */
  lastContinuedAt: string | null
  continuedEpisode: string | null
  lastOutcome: string | null
}

/** A one-shot wake-up: a transient timer of the user's systemd, or a small detached pk that sleeps until then. */
export type Wake = {kind: 'systemd'; unit: string; at: string} | {kind: 'sleeper'; pid: number; startTime: number; at: string}

/** Whether pk continues sessions like this one, by your settings and how it was started. */
export function continuingAllowed(
  row: Pick<SessionRow, 'kind'>,
  settings: LimitsConfig | undefined,
  record: {continueAtReset?: boolean} | null,
): {allowed: true} | {allowed: false; why: string} {
  const mode = settings?.continue ?? 'started'
  if (mode === 'off') return {allowed: false, why: 'continuing at a reset is off in your config (limits.continue)'}
  if (record?.continueAtReset === false) return {allowed: false, why: 'started with pk bg --no-continue'}
  if (row.kind !== 'recorded' && mode !== 'all')
    return {allowed: false, why: 'you started it yourself (pk continues those only with limits.continue "all" in your config)'}
  return {allowed: true}
}

/** How far off a reset pk believes: the agents' limits reset within hours, a weekly one within 7 days. */
export const RESET_MAX_AHEAD_MS = 8 * 24 * 3600_000
/** How long past a reset pk still takes it (an agent that showed it and was looked at later). */
export const RESET_MAX_PAST_MS = 24 * 3600_000

/**
 * Pure: why a reset an agent showed is not believed, or null: further away than 8 days (a worker that prints
 * "resets Dec 31, 9999" would buy a wake-up until then), or more than a day before it was shown (1971).
 * Shown as the agent said it, never scheduled.
 */
export function unbelievableReset(limit: Pick<SessionLimit, 'resetsAt' | 'since'>, now = Date.now()): string | null {
  if (limit.resetsAt === null) return null
  const reset = Date.parse(limit.resetsAt)
  const shown = limit.since === null ? now : Date.parse(limit.since)
  if (Number.isNaN(reset)) return 'its reset is no time'
  if (reset - Math.max(shown, now) > RESET_MAX_AHEAD_MS) return `its reset ${limit.resetsAt} is more than 8 days away`
  if (shown - reset > RESET_MAX_PAST_MS) return `its reset ${limit.resetsAt} is more than a day before it was shown`
  return null
}

/** Pure: a row's limit with who continues it and when, given your settings and what pk keeps about it. */
export function planContinue(
  limit: SessionLimit,
  allowed: ReturnType<typeof continuingAllowed>,
  file: ContinueFile | null,
): Pick<SessionLimit, 'continuedBy' | 'continueAt' | 'why'> {
  if (limit.continuedBy === 'agent') return {continuedBy: 'agent', continueAt: null, why: null}
  const nobody = (why: string) => ({continuedBy: 'nobody' as const, continueAt: null, why})
  const mine = file !== null && limit.since !== null && file.episode === limit.since ? file : null
  // Once per limit: a continue that did not carry it on (typed, not confirmed; a draft in the way) is told, not typed again.
  if (file !== null && limit.since !== null && file.continuedEpisode === limit.since)
    return nobody(`pk continued it once at this limit already${file.lastOutcome ? ` (${file.lastOutcome})` : ''}`)
  if (mine?.off) return nobody(mine.offWhy ?? 'turned off for this limit (pk continue --off)')
  if (mine?.gaveUp) return nobody(`${MAX_IN_A_ROW} limits in a row without a finished turn: pk stopped continuing it`)
  if (mine?.at) return {continuedBy: 'pk', continueAt: mine.at, why: null}
  if (!allowed.allowed) return nobody(allowed.why)
  if (limit.resetsAt === null) return nobody('it shows no reset time: pk continue ID --at TIME sets one')
  const doubt = unbelievableReset(limit)
  if (doubt !== null) return nobody(`${doubt}: not believed, so not scheduled; pk continue ID --at TIME sets a moment`)
  return {continuedBy: 'pk', continueAt: new Date(Date.parse(limit.resetsAt) + RESET_GRACE_MS).toISOString(), why: null}
}

/** Pure: the message pk types to continue a session of this agent. */
export function continueMessage(agent: string | null, settings: LimitsConfig | undefined): string {
  return (agent === null ? undefined : settings?.messages?.[agent]) ?? settings?.message ?? 'continue'
}

/** Pure: a file read back, checked field by field: anything else is not pk's and is not trusted. */
export function parseContinueFile(text: string): ContinueFile | null {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return null
  }
  const o = data as Record<string, unknown>
  const date = (v: unknown) => v === null || (typeof v === 'string' && !Number.isNaN(Date.parse(v)))
  const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
  const ok =
    typeof data === 'object' &&
    data !== null &&
    o.version === 1 &&
    typeof o.id === 'string' &&
    count(o.pid) &&
    count(o.startTime) &&
    date(o.episode) &&
    date(o.at) &&
    typeof o.off === 'boolean' &&
    (o.offWhy === null || typeof o.offWhy === 'string') &&
    count(o.inARow) &&
    typeof o.gaveUp === 'boolean' &&
    (o.wake === null || isWake(o.wake)) &&
    date(o.lastContinuedAt) &&
    date(o.continuedEpisode) &&
    (o.lastOutcome === null || typeof o.lastOutcome === 'string')
  return ok ? (data as ContinueFile) : null
}

function isWake(v: unknown): v is Wake {
  const w = v as Record<string, unknown>
  if (typeof v !== 'object' || v === null || typeof w.at !== 'string' || Number.isNaN(Date.parse(w.at))) return false
  if (w.kind === 'systemd') return typeof w.unit === 'string' && /^pk-continue-[\w-]+$/.test(w.unit)
  return w.kind === 'sleeper' && Number.isSafeInteger(w.pid) && Number.isSafeInteger(w.startTime)
}

/**
 * Pure: the moment `pk continue --at` names: a clock time (`00:20`, `5:10am`: the next such moment, in
 * `zone`), a date and time in ISO 8601 (`2026-12-08T00:20`, read in `zone` without an offset), or a while
 * from now (`+90s`, `+20m`, `+2h`). Null for anything else.
 */
export function parseMoment(text: string, now: number, zone: string): number | null {
  const t = text.trim()
  const after = /^\+(\d{1,6})([smh])$/.exec(t)
  if (after) return now + Number(after[1]) * {s: 1000, m: 60_000, h: 3_600_000}[after[2] as 's' | 'm' | 'h']
  const clock = /^(\d{1,2}):(\d{2})$/.exec(t)
  if (clock) {
    const hour = Number(clock[1])
    const minute = Number(clock[2])
    if (hour > 23 || minute > 59) return null
    // (a clock time is the next one: now or later, never a minute ago)
    return resetInstant({hour, minute}, now + 60_000, zone)
  }
  const spec = parseReset(t)
  if (spec !== null && spec.month === undefined) return resetInstant(spec, now + 60_000, zone)
  const iso = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:?\d{2})?$/.exec(t)
  if (!iso) return null
  if (iso[7] !== undefined) {
    const at = Date.parse(t.replace(' ', 'T'))
    return Number.isNaN(at) ? null : at
  }
  return zonedInstant(Number(iso[1]), Number(iso[2]), Number(iso[3]), Number(iso[4]), Number(iso[5]), zone) + Number(iso[6] ?? 0) * 1000
}
