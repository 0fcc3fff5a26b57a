import {isZone} from '../model/clock.js'

/**
 * Pure: an agent stopped at its plan's usage limit (or its API's rate limit), read from its screen as the
 * real releases draw it (test/fixtures/panes/*.limited.*.txt, captured through the fake model API of
 * test/agents), and when the limit resets, where the agent says so. A limit the agent retries by itself in
 * place (Claude's "retrying in 6s · attempt 5/10", opencode's "[retrying in 44s attempt #1]", Pi's
 * "Retrying (2/3)") is not read here: the agent works, and its pane rules say so.
 *
 * Each reading holds only when the limit is the last thing the agent said: the lines between it and the
 * agent's input (or its own dialog at the bottom) are the limit's own. A limit further up, with a turn
 * after it, is history.
 */

/** A reset time as the agent wrote it: a clock time, with a date and a zone where it gives them. */
export interface ResetSpec {
  hour: number
  minute: number
  /** 1-12, with `day`, where the agent writes a date (a reset further away than today). */
  month?: number
  day?: number
  year?: number
  /** The zone the agent names: an IANA name ("UTC", "Europe/Paris") or an abbreviation ("PST"), else none. */
  zone?: string
}

export interface LimitShown {
  /** Which limit, in the agent's words: "5-hour limit", "weekly limit", "usage limit", "rate limit". */
  what: string
  /** The reset as shown ("5:09am (UTC)"), or null where the agent shows none. */
  resetText: string | null
  reset: ResetSpec | null
  /** Claude Code continues by itself at the reset ("Continuing automatically at 5:09am · Esc to cancel"). */
  agentContinues: boolean
  /**
   * How the session is continued: the message typed at its prompt, or a choice of the limit's own dialog
   * (Gemini CLI's "1. Keep trying"); `dismiss` is a menu to close first (Claude Code's /rate-limit-options,
   * whose "Esc to cancel" leaves its prompt).
   */
  continueBy: {kind: 'message'} | {kind: 'choice'; n: number; label: string}
  dismiss?: 'Escape'
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const isBlank = (line: string) => line.trim() === ''
const isRule = (line: string) => /^\s*[\u2500\u2501]{10,}\s*$/.test(line)

/**
 * Pure: a reset as the agents write it: "5:09am (UTC)", "Dec 10, 4:19am (UTC)", "5am" (Claude Code);
 * "5:10 AM", "Dec 9th, 2026 6:11 AM" (Codex); "5:14 AM UTC" (Gemini CLI). Null for anything else.
 */
export function parseReset(text: string): ResetSpec | null {
  const m =
    /^(?:([A-Za-z]{3})[a-z]*\.? (\d{1,2})(?:st|nd|rd|th)?,? (?:(\d{4}),? )?)?(\d{1,2})(?::(\d{2}))? ?([ap])\.?m\.?(?: \(([A-Za-z_+\-/0-9]+)\)| ([A-Z]{2,5}(?:[+-]\d{1,2}(?::\d{2})?)?))?$/i.exec(
      text.trim(),
    )
  if (!m) return null
  let hour = Number(m[4])
  const minute = m[5] === undefined ? 0 : Number(m[5])
  if (hour < 1 || hour > 12 || minute > 59) return null
  if (hour === 12) hour = 0
  if (m[6]!.toLowerCase() === 'p') hour += 12
  const spec: ResetSpec = {hour, minute}
  if (m[1] !== undefined) {
    const month = MONTHS.indexOf(m[1].toLowerCase()) + 1
    const day = Number(m[2])
    if (month === 0 || day < 1 || day > 31) return null
    spec.month = month
    spec.day = day
    if (m[3] !== undefined) spec.year = Number(m[3])
  }
  const zone = m[7] ?? m[8]
  if (zone !== undefined) spec.zone = zone
  return spec
}

/** Claude Code's limit line: "You've hit your 5-hour limit · resets 5:09am (UTC)" (under ⎿). */
const CLAUDE_LIMIT = /^\s*(?:\u23BF\s+)?You['\u2019]ve hit your (.+?) \u00B7 resets (.+?)\s*$/
/** Without a reset it shows ("You've hit your monthly spend limit."): a limit, told, continued by nobody. */
const CLAUDE_LIMIT_PLAIN = /^\s*(?:\u23BF\s+)?You['\u2019]ve hit your ([^\u00B7.]+?)\.?\s*$/
/**
 * Claude's mark for its own status lines: `●` up to 2.1.332; 2.1.337 draws API errors (and so the 429) with
 * `∷` (test/fixtures/panes/claude-2.1.337.*). Tool calls keep `●` on both.
 */
const CLAUDE_MARK = String.raw`[\u25CF\u2237]`
/** On an API key, Claude's last word after its own ten tries: the API's 429. */
const CLAUDE_API_429 = new RegExp(String.raw`^\s*${CLAUDE_MARK} API Error: Request rejected \(429\)`)
/** Lines Claude writes after a limit about that same limit (its hints, its auto-continue). */
const CLAUDE_LIMIT_TAIL = new RegExp(
  String.raw`^\s*(\/upgrade to |\/extra-usage|${CLAUDE_MARK} Usage limit reached \u00B7 set to continue automatically|${CLAUDE_MARK} Automatic continue cancelled|\u276F \/rate-limit-options\s*$)`,
)
const CLAUDE_MENU_QUESTION = /^\s*What do you want to do\?\s*$/
const CLAUDE_MENU_FOOTER = /^\s*Enter to confirm \u00B7 Esc to cancel\s*$/

function claudeLimit(lines: string[]): LimitShown | null {
  // The bottom: its input box (a rule, the prompt, a rule, the footer), or the limit's menu under one rule.
  let end = lines.length - 1
  while (end >= 0 && isBlank(lines[end]!)) end--
  const menu = end >= 0 && CLAUDE_MENU_FOOTER.test(lines[end]!)
  let top = -1
  if (menu) {
    const question = lastIndex(lines, CLAUDE_MENU_QUESTION, end)
    if (question === -1 || !lines.slice(question, end).some((l) => /Stop and wait for limit to reset/.test(l))) return null
    top = question - 1
    while (top >= 0 && isBlank(lines[top]!)) top--
    if (top < 0 || !isRule(lines[top]!)) return null
  } else {
    const lower = lastIndex(lines, /^[\u2500]{10,}\s*$/, end)
    top = lower === -1 ? -1 : lastIndex(lines, /^[\u2500]{10,}\s*$/, lower - 1)
    if (top === -1 || lower - top > 8) return null
  }
  const at = lastIndex(lines, (l) => CLAUDE_LIMIT.test(l) || CLAUDE_LIMIT_PLAIN.test(l) || CLAUDE_API_429.test(l), top - 1)
  if (at === -1) return null
  // Only the limit's own lines between it and the box: a turn after it (a prompt, an answer, "Usage limit
  // reset · Continuing automatically") means it is history.
  const api = CLAUDE_API_429.test(lines[at]!)
  for (let i = at + 1; i < top; i++) {
    const line = lines[i]!
    if (isBlank(line) || CLAUDE_LIMIT_TAIL.test(line)) continue
    // (the API error's own words, wrapped under it, are indented)
    if (/^\s{2,}\S/.test(line) && !/^\s*[\u23BF\u25CF\u2237\u276F\u273B]/.test(line) && lines.slice(at + 1, i).every((l) => !isBlank(l))) continue
    return null
  }
  const footer = lines.slice(top + 1, end + 1)
  const cancelled = lines.slice(at, end + 1).some((l) => /Automatic continue cancelled|automatic continue cancelled/.test(l))
  const agentContinues = !menu && !cancelled && footer.some((l) => /^\s*Continuing automatically at .+ \u00B7 Esc to cancel\s*$/.test(l))
  const limit = CLAUDE_LIMIT.exec(lines[at]!)
  const what = api ? 'rate limit' : (limit?.[1] ?? CLAUDE_LIMIT_PLAIN.exec(lines[at]!)![1]!)
  const resetText = limit?.[2] ?? null
  return {
    what,
    resetText,
    reset: resetText === null ? null : parseReset(resetText),
    agentContinues,
    continueBy: {kind: 'message'},
    ...(menu ? {dismiss: 'Escape' as const} : {}),
  }
}

/** Codex's limit: "■ You’ve hit your usage limit. … try again at 5:10 AM." (wrapped by Codex itself). */
const CODEX_LIMIT = /^\u25A0 You['\u2019]ve hit your usage limit\b/

function codexLimit(lines: string[]): LimitShown | null {
  const at = lastIndex(lines, CODEX_LIMIT, lines.length - 1)
  if (at === -1) return null
  let next = at + 1
  while (next < lines.length && !isBlank(lines[next]!) && !/^[\u203A\u2022\u25A0\u2500]/.test(lines[next]!)) next++
  const paragraph = lines
    .slice(at, next)
    .map((l) => l.trim())
    .join(' ')
  // Then its prompt (what the user may have typed there), and below it only its footer.
  while (next < lines.length && isBlank(lines[next]!)) next++
  if (next >= lines.length || !lines[next]!.startsWith('\u203A')) return null
  if (lines.slice(next + 1).some((l) => !isBlank(l) && !/^\s{2}\S/.test(l))) return null
  const reset = /try again at (.+?)\.?\s*$/.exec(paragraph)?.[1] ?? null
  return {what: 'usage limit', resetText: reset, reset: reset === null ? null : parseReset(reset), agentContinues: false, continueBy: {kind: 'message'}}
}

/** Gemini CLI's limit dialog: "Usage limit reached for all Pro models." over "● 1. Keep trying / 2. Stop", in a box at the bottom. */
function geminiLimit(lines: string[]): LimitShown | null {
  let end = lines.length - 1
  while (end >= 0 && isBlank(lines[end]!)) end--
  if (end < 0 || !/^\u2570/.test(lines[end]!.trim())) return null
  const inBox = (l: string) => l.replace(/[\u2502]/g, ' ').trim()
  const boxTop = lastIndex(lines, (l) => /^\u256D/.test(l.trim()), end)
  if (boxTop === -1) return null
  const body = lines.slice(boxTop + 1, end).map(inBox)
  const head = body.findIndex((l) => /^Usage limit reached for (.+)\.$/.test(l))
  const keep = body.findIndex((l) => /^(?:\u25CF\s*)?1\. Keep trying$/.test(l))
  const stop = body.findIndex((l) => /^(?:\u25CF\s*)?2\. Stop$/.test(l))
  if (head === -1 || keep === -1 || stop !== keep + 1 || body.slice(stop + 1).some((l) => l !== '')) return null
  const reset =
    body
      .slice(head, keep)
      .map((l) => /^Access resets at (.+)\.$/.exec(l)?.[1])
      .find((r) => r !== undefined) ?? null
  return {
    what: `usage limit for ${/^Usage limit reached for (.+)\.$/.exec(body[head]!)![1]}`,
    resetText: reset,
    reset: reset === null ? null : parseReset(reset),
    agentContinues: false,
    continueBy: {kind: 'choice', n: 1, label: 'Keep trying'},
  }
}

/** Pi's last word after its own three tries: "Error: Retry failed after 3 attempts: 429: {…}", over its editor's rules. */
function piLimit(lines: string[]): LimitShown | null {
  const at = lastIndex(lines, /^\s*Error: Retry failed after \d+ attempts: 429\b/, lines.length - 1)
  if (at === -1) return null
  let next = at + 1
  while (next < lines.length && !isBlank(lines[next]!) && !isRule(lines[next]!)) next++
  while (next < lines.length && isBlank(lines[next]!)) next++
  // Its editor (between two rules) follows at once: nothing was said or typed since.
  if (next >= lines.length || !isRule(lines[next]!)) return null
  return {what: 'rate limit', resetText: null, reset: null, agentContinues: false, continueBy: {kind: 'message'}}
}

function lastIndex(lines: string[], test: RegExp | ((line: string) => boolean), from: number): number {
  const matches = typeof test === 'function' ? test : (l: string) => test.test(l)
  for (let i = Math.min(from, lines.length - 1); i >= 0; i--) if (matches(lines[i]!)) return i
  return -1
}

const READERS: Record<string, (lines: string[]) => LimitShown | null> = {claude: claudeLimit, codex: codexLimit, gemini: geminiLimit, pi: piLimit}

/** The agents whose limits pk reads off their screens. */
export const LIMIT_AGENTS: ReadonlySet<string> = new Set(Object.keys(READERS))

/** Pure: the limit an agent's screen shows as its last word, or null. */
export function readLimit(agent: string | null, screen: string): LimitShown | null {
  const reader = agent === null ? undefined : READERS[agent]
  if (reader === undefined) return null
  return reader(screen.split('\n').map((l) => l.trimEnd()))
}

/**
 * Pure: a limit named in the words of an agent's hook (Claude Code's StopFailure carries the line it showed
 * as `last_assistant_message`): which limit, and its reset.
 */
export function limitFromMessage(message: string): Pick<LimitShown, 'what' | 'resetText' | 'reset'> | null {
  const line = message.split('\n').find((l) => CLAUDE_LIMIT.test(l) || CLAUDE_LIMIT_PLAIN.test(l) || /\b429\b|rate limit/i.test(l))
  if (line === undefined) return null
  const m = CLAUDE_LIMIT.exec(line)
  if (m) return {what: m[1]!, resetText: m[2]!, reset: parseReset(m[2]!)}
  const plain = CLAUDE_LIMIT_PLAIN.exec(line)
  return {what: plain ? plain[1]! : 'rate limit', resetText: null, reset: null}
}

/** Pure: the zone a reset is read in: the one the agent names where it is a zone; else the agent's own. */
export function resetZone(spec: ResetSpec, agentZone: string): string {
  if (spec.zone === undefined) return agentZone
  if (/^(UTC|GMT)$/i.test(spec.zone)) return 'UTC'
  const offset = /^(?:UTC|GMT)([+-])(\d{1,2})(?::(\d{2}))?$/i.exec(spec.zone)
  // (Etc/GMT+N counts the other way round: GMT+2 is Etc/GMT-2; whole hours only)
  if (offset && offset[3] === undefined) return `Etc/GMT${offset[1] === '+' ? '-' : '+'}${Number(offset[2])}`
  // (an abbreviation, "PST" or "CET", is the agent's own clock's name for its zone: node knows some of them
  // as zones of their own, without the rules of the place)
  if (/^[A-Z]{2,5}$/.test(spec.zone)) return agentZone
  return isZone(spec.zone) ? spec.zone : agentZone
}

/** Pure: the wall clock of an instant in a zone. */
function wallClock(instant: number, zone: string): {year: number; month: number; day: number; hour: number; minute: number; second: number} {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(instant)
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value)
  return {year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second')}
}

/** Pure: the instant a wall-clock time in a zone names (the earlier one where a clock change repeats it). */
export function zonedInstant(year: number, month: number, day: number, hour: number, minute: number, zone: string): number {
  const wanted = Date.UTC(year, month - 1, day, hour, minute)
  const offsetAt = (instant: number) => {
    const w = wallClock(instant, zone)
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(instant / 1000) * 1000
  }
  let instant = wanted - offsetAt(wanted)
  instant = wanted - offsetAt(instant)
  return instant
}

/**
 * Pure: when a reset shown at `shownAt` happens: the next such moment after it was shown, in `zone` (a
 * clock time past midnight is tomorrow's; a date without a year is the next such date). A minute of slack:
 * an agent that shows "5:10 AM" at 5:10:20 means 5:10 today (its reset came as it spoke), not tomorrow.
 */
export function resetInstant(spec: ResetSpec, shownAt: number, zone: string): number {
  const now = wallClock(shownAt, zone)
  const slack = 60_000
  if (spec.month !== undefined && spec.day !== undefined) {
    if (spec.year !== undefined) return zonedInstant(spec.year, spec.month, spec.day, spec.hour, spec.minute, zone)
    const thisYear = zonedInstant(now.year, spec.month, spec.day, spec.hour, spec.minute, zone)
    return thisYear >= shownAt - slack ? thisYear : zonedInstant(now.year + 1, spec.month, spec.day, spec.hour, spec.minute, zone)
  }
  const today = zonedInstant(now.year, now.month, now.day, spec.hour, spec.minute, zone)
  if (today >= shownAt - slack) return today
  // Tomorrow's date in that zone (noon today plus a day never lands on a clock change's gap).
  const tomorrow = wallClock(zonedInstant(now.year, now.month, now.day, 12, 0, zone) + 24 * 3600_000, zone)
  return zonedInstant(tomorrow.year, tomorrow.month, tomorrow.day, spec.hour, spec.minute, zone)
}
