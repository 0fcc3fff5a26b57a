import {Usage, UsageAttention} from '../model/contract.js'
import {Stats, closeSync, constants, fstatSync, mkdirSync, openSync, readSync, readdirSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

import {writeFileAtomic} from '../registry/atomic.js'
import {readRegularFile} from '../registry/files.js'
import {SessionRecord} from '../registry/records.js'
import {Env, StateDir} from '../registry/state-dir.js'

/**
 * What each agent spends and how full its context is, from the agents' own transcripts (issue #25):
 * Claude Code's `~/.claude/projects/…/SESSION.jsonl`, Codex's rollout files, Pi's session files, Gemini
 * CLI's `~/.gemini/tmp/PROJECT/chats/session-*.jsonl` (named by its hooks' transcript_path), and the file
 * pk's opencode plugin keeps of opencode's own counts (opencode stores them in SQLite). No
 * daemon, no network. A transcript is read once: how far it was read, and what it said up to there, are
 * kept per session (`usage/ID.json`, by the writer that applies events); a reader reads only what was
 * appended since, in memory. Unknown stays null, never a made-up zero.
 */

export interface Tokens {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
}

/** Per day (the transcript's own dates), for `pk usage --since` and `--by day`. */
export interface Counted extends Tokens {
  /** The agent's own recorded cost (Pi), where it writes one; else null. */
  cost: number | null
}

/** What a transcript said, up to where it was read: serialisable, so reading can go on from there. */
export interface Accumulated {
  model: string | null
  total: Counted
  days: Record<string, Counted>
  /** Tokens in the context now (the last request's input and output), and the window, where the agent says them. */
  contextTokens: number | null
  contextWindow: number | null
  /** Lines that were not JSON, or not what the agent writes (a torn or foreign line): skipped and counted. */
  skippedLines: number
  /** Claude writes one line per content block, each with the message's whole usage: counted once per message. */
  lastMessageId: string | null
  lastMessageUsage: Tokens | null
  /** The line that counted it: a content block of the same message is written as its child. */
  lastUuid?: string | null
  updatedAt: string | null
  /**
   * When the session passed your thresholds (`usage.attention`), by the transcript's own date of the line
   * that passed it, so every reader names the event alike. A context that falls back under its share
   * (compacted) clears its alert: passing again is a new event.
   */
  alerts?: {context?: string; cost?: string}
}

/**
 * The usage cache's version: a cache of another is read again from the transcript's start. 2: a failed
 * Claude Code turn no longer sets the context to 0, so what was summed by an older pk is summed again.
 */
export const USAGE_CACHE_VERSION = 2

export interface UsageCache {
  version: typeof USAGE_CACHE_VERSION
  file: string
  /** The file's identity and where reading stopped (after the last whole line). */
  ino: number
  offset: number
  acc: Accumulated
  /** The thresholds the alerts were found with: other thresholds read the file again from its start. */
  rules?: string
  /** `offset` is inside a line longer than one read (MAX_READ): what is left of it is passed over, not read. */
  skipping?: true
}

/** Per-model prices in your config (`usage.rates`): dollars per million tokens. */
export type Rates = Record<string, Partial<Tokens>>

/** What your config says about usage: prices, context windows the agent does not write, thresholds. */
export interface UsageRules {
  rates: Rates
  contextWindows: Record<string, number>
  attention: {context?: number; cost?: number}
}

export const NO_RULES: UsageRules = {rates: {}, contextWindows: {}, attention: {}}

/** Pure: the rules from the `usage` key of your config. */
export const rulesOf = (usage: {rates?: Rates; contextWindows?: Record<string, number>; attention?: UsageRules['attention']} | undefined): UsageRules => ({
  rates: usage?.rates ?? {},
  contextWindows: usage?.contextWindows ?? {},
  attention: usage?.attention ?? {},
})

/** Pure: the rules that decide alerts, as a key (a cache found with other ones is read again). */
const rulesKey = (rules: UsageRules) =>
  rules.attention.context === undefined && rules.attention.cost === undefined
    ? ''
    : JSON.stringify([rules.attention, rules.contextWindows, rules.attention.cost === undefined ? {} : rules.rates])

/** Pure: money for tokens at a model's rate, or null without one. */
const priced = (t: Tokens, rate: Partial<Tokens> | undefined) =>
  rate
    ? (t.input * (rate.input ?? 0) + t.output * (rate.output ?? 0) + t.cacheRead * (rate.cacheRead ?? 0) + t.cacheWrite * (rate.cacheWrite ?? 0)) / 1e6
    : null

/** Pure: what the whole conversation cost so far: the agent's own record, else your rate for its model. */
const costSoFar = (acc: Accumulated, rates: Rates) => acc.total.cost ?? (acc.model === null ? null : priced(acc.total, rates[acc.model]))

const windowOf = (acc: Accumulated, rules: UsageRules) => acc.contextWindow ?? (acc.model === null ? null : (rules.contextWindows[acc.model] ?? null))

/** Pure: after a line was counted, whether the session is past your thresholds now (dated by that line). */
function checkAlerts(acc: Accumulated, rules: UsageRules, at: string | null): void {
  const {context, cost} = rules.attention
  if (context !== undefined) {
    const window = windowOf(acc, rules)
    const over = window !== null && acc.contextTokens !== null && acc.contextTokens * 100 >= context * window
    if (!over && acc.alerts?.context) delete acc.alerts.context
    else if (over && !acc.alerts?.context && at !== null) (acc.alerts ??= {}).context = at
  }
  if (cost !== undefined && !acc.alerts?.cost && at !== null) {
    const spent = costSoFar(acc, rules.rates)
    if (spent !== null && spent >= cost) (acc.alerts ??= {}).cost = at
  }
}

const zero = (): Counted => ({input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: null})
export const emptyAcc = (): Accumulated => ({
  model: null,
  total: zero(),
  days: {},
  contextTokens: null,
  contextWindow: null,
  skippedLines: 0,
  lastMessageId: null,
  lastMessageUsage: null,
  updatedAt: null,
})

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0)
const day = (timestamp: unknown) =>
  typeof timestamp === 'string' && /^\d{4}-\d{2}-\d{2}/.test(timestamp)
    ? timestamp.slice(0, 10)
    : typeof timestamp === 'number'
      ? new Date(timestamp).toISOString().slice(0, 10)
      : null

function add(acc: Accumulated, when: string | null, tokens: Tokens, cost: number | null, sign = 1): void {
  for (const bucket of [acc.total, ...(when ? [(acc.days[when] ??= zero())] : [])]) {
    bucket.input += sign * tokens.input
    bucket.output += sign * tokens.output
    bucket.cacheRead += sign * tokens.cacheRead
    bucket.cacheWrite += sign * tokens.cacheWrite
    if (cost !== null) bucket.cost = (bucket.cost ?? 0) + sign * cost
  }
}

type Entry = Record<string, unknown>
const obj = (v: unknown): Entry | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Entry) : null)

/** Pure: one line of a Claude Code transcript. `message.usage` on assistant lines, once per message id. */
function claudeLine(acc: Accumulated, entry: Entry): boolean {
  if (entry.type !== 'assistant') return true
  const message = obj(entry.message)
  const usage = obj(message?.usage)
  if (!message || !usage) return false
  const tokens = {
    input: num(usage.input_tokens),
    output: num(usage.output_tokens),
    cacheRead: num(usage.cache_read_input_tokens),
    cacheWrite: num(usage.cache_creation_input_tokens),
  }
  const id = typeof message.id === 'string' ? message.id : null
  const when = day(entry.timestamp)
  // The same message again (its next content block, written as the child of the last line): its usage
  // replaces what was counted for it.
  if (id !== null && id === acc.lastMessageId && acc.lastMessageUsage && entry.parentUuid === acc.lastUuid) add(acc, when, acc.lastMessageUsage, null, -1)
  add(acc, when, tokens, null)
  acc.lastMessageId = id
  acc.lastMessageUsage = tokens
  acc.lastUuid = typeof entry.uuid === 'string' ? entry.uuid : null
  // A turn that failed ends in a message Claude Code writes itself (model "<synthetic>", "API Error: ...",
  // every count 0): no request was answered, and the context is what the last answered one said.
  if (message.model === '<synthetic>') return true
  if (typeof message.model === 'string') acc.model = message.model
  acc.contextTokens = tokens.input + tokens.cacheRead + tokens.cacheWrite + tokens.output
  if (typeof entry.timestamp === 'string') acc.updatedAt = entry.timestamp
  return true
}

/** Pure: one line of a Codex rollout. `token_count` events carry the running total and the context window. */
function codexLine(acc: Accumulated, entry: Entry): boolean {
  const payload = obj(entry.payload)
  if (entry.type === 'turn_context' && typeof payload?.model === 'string') acc.model = payload.model
  if (entry.type !== 'event_msg' || payload?.type !== 'token_count') return true
  const info = obj(payload.info)
  if (!info) return true // rate limits alone
  const total = obj(info.total_token_usage)
  const last = obj(info.last_token_usage)
  if (!total) return false
  // Codex counts cached input inside input_tokens: the rest is new input.
  const cached = num(total.cached_input_tokens)
  const now = {input: num(total.input_tokens) - cached, output: num(total.output_tokens), cacheRead: cached, cacheWrite: num(total.cache_write_input_tokens)}
  const before = acc.total
  const when = day(entry.timestamp)
  add(
    acc,
    when,
    {
      input: now.input - before.input,
      output: now.output - before.output,
      cacheRead: now.cacheRead - before.cacheRead,
      cacheWrite: now.cacheWrite - before.cacheWrite,
    },
    null,
  )
  if (last) acc.contextTokens = num(last.total_tokens) || num(last.input_tokens) + num(last.output_tokens)
  if (typeof info.model_context_window === 'number') acc.contextWindow = info.model_context_window
  if (typeof entry.timestamp === 'string') acc.updatedAt = entry.timestamp
  return true
}

/** Pure: one line of a Pi session file. Assistant messages carry `usage`, with Pi's own cost. */
function piLine(acc: Accumulated, entry: Entry): boolean {
  if (entry.type !== 'message') return true
  const message = obj(entry.message)
  if (message?.role !== 'assistant') return true
  const usage = obj(message.usage)
  if (!usage) return false
  const cost = obj(usage.cost)
  const tokens = {input: num(usage.input), output: num(usage.output), cacheRead: num(usage.cacheRead), cacheWrite: num(usage.cacheWrite)}
  add(acc, day(entry.timestamp ?? message.timestamp), tokens, cost ? num(cost.total) : null)
  if (typeof message.model === 'string') acc.model = message.model
  acc.contextTokens = num(usage.totalTokens) || tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite
  if (typeof entry.timestamp === 'string') acc.updatedAt = entry.timestamp
  return true
}

/**
 * Pure: one line of a Gemini CLI session file (0.61): `type: gemini` messages carry `tokens` (`input`
 * includes what was `cached`; `thoughts` are billed as output). A message written again with the same
 * id (its tool calls filled in) replaces what was counted for it. `$set` lines and the header change
 * nothing.
 */
function geminiLine(acc: Accumulated, entry: Entry): boolean {
  if (entry.type !== 'gemini') return true
  const t = obj(entry.tokens)
  if (!t) return true // a message still being written, without its tokens yet
  const cached = num(t.cached)
  const tokens = {input: Math.max(0, num(t.input) - cached), output: num(t.output) + num(t.thoughts), cacheRead: cached, cacheWrite: 0}
  const id = typeof entry.id === 'string' ? entry.id : null
  const when = day(entry.timestamp)
  if (id !== null && id === acc.lastMessageId && acc.lastMessageUsage) add(acc, when, acc.lastMessageUsage, null, -1)
  add(acc, when, tokens, null)
  acc.lastMessageId = id
  acc.lastMessageUsage = tokens
  if (typeof entry.model === 'string') acc.model = entry.model
  acc.contextTokens = num(t.total) || tokens.input + cached + tokens.output + num(t.tool)
  if (typeof entry.timestamp === 'string') acc.updatedAt = entry.timestamp
  return true
}

/**
 * Pure: one line of the usage file pk's opencode plugin keeps (opencode keeps its own in SQLite): each
 * finished answer with opencode's `tokens` (`input` without the cache; `reasoning` billed as output) and
 * its own `cost`.
 */
function opencodeLine(acc: Accumulated, entry: Entry): boolean {
  if (entry.type !== 'assistant') return true
  const t = obj(entry.tokens)
  if (!t) return false
  const cache = obj(t.cache)
  const tokens = {input: num(t.input), output: num(t.output) + num(t.reasoning), cacheRead: num(cache?.read), cacheWrite: num(cache?.write)}
  const at = typeof entry.time === 'number' && Number.isFinite(entry.time) ? new Date(entry.time).toISOString() : null
  add(acc, day(at), tokens, typeof entry.cost === 'number' && Number.isFinite(entry.cost) ? entry.cost : null)
  if (typeof entry.modelID === 'string') acc.model = entry.modelID
  acc.contextTokens = num(t.total) || tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite
  if (at !== null) acc.updatedAt = at
  return true
}

const READERS: Record<string, (acc: Accumulated, entry: Entry) => boolean> = {
  claude: claudeLine,
  codex: codexLine,
  pi: piLine,
  gemini: geminiLine,
  opencode: opencodeLine,
}
export const USAGE_AGENTS = Object.keys(READERS)

/** Pure: whole lines of a transcript, applied in order; a line that is not JSON is skipped and counted. */
export function accumulate(agent: string, acc: Accumulated, text: string, rules: UsageRules = NO_RULES): Accumulated {
  const read = READERS[agent]
  if (!read) return acc
  const alerting = rules.attention.context !== undefined || rules.attention.cost !== undefined
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    let entry: Entry | null
    try {
      entry = obj(JSON.parse(line))
    } catch {
      entry = null
    }
    if (entry === null || !read(acc, entry)) acc.skippedLines++
    else if (alerting) checkAlerts(acc, rules, acc.updatedAt)
  }
  return acc
}

/** Pure: what a session's usage is, priced by the agent's own record or your rates. */
export function usageOf(acc: Accumulated, source: string, rules: UsageRules): Usage {
  const t = acc.total
  const cost = costSoFar(acc, rules.rates)
  const costSource: Usage['costSource'] = t.cost !== null ? 'agent' : cost !== null ? 'rates' : null
  const unpriced = cost === null ? acc.model : null
  return {
    model: acc.model,
    input: t.input,
    output: t.output,
    cacheRead: t.cacheRead,
    cacheWrite: t.cacheWrite,
    contextTokens: acc.contextTokens,
    contextWindow: windowOf(acc, rules),
    cost,
    costSource,
    unpriced,
    source,
    updatedAt: acc.updatedAt,
    skippedLines: acc.skippedLines,
    attention: attentionOf(acc, rules),
  }
}

/** Pure: the first threshold still passed (the earlier event first), or null. */
function attentionOf(acc: Accumulated, rules: UsageRules): UsageAttention | null {
  const found: UsageAttention[] = []
  if (rules.attention.context !== undefined && acc.alerts?.context)
    found.push({reason: 'context', since: acc.alerts.context, threshold: rules.attention.context})
  if (rules.attention.cost !== undefined && acc.alerts?.cost) found.push({reason: 'cost', since: acc.alerts.cost, threshold: rules.attention.cost})
  return found.sort((a, b) => Date.parse(a.since) - Date.parse(b.since))[0] ?? null
}

/** `fn` over a regular file opened without blocking (never a FIFO's or a device's), or null when it is none. */
function withRegularFile<T>(file: string, fn: (fd: number, stats: Stats) => T): T | null {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch {
    return null
  }
  try {
    const stats = fstatSync(fd)
    return stats.isFile() ? fn(fd, stats) : null
  } finally {
    closeSync(fd)
  }
}

/** The first bytes of a regular file, or null. */
const readHead = (file: string, bytes: number) =>
  withRegularFile(file, (fd) => {
    const buffer = Buffer.alloc(bytes)
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString('utf8')
  })

/** The most of a transcript read in one go: more waits for the next look (a reader never stalls on one file). */
export const MAX_READ = 64 * 1024 * 1024
/** The most a listing reads of a transcript at one look past what the writer read: the rest is the writer's. */
export const LOOK_MAX_READ = 4 * 1024 * 1024

/**
 * Read a transcript from where the cache stopped (from the start when it is another file or shorter now):
 * whole lines only, never through a link's surprise (a FIFO, a device): a regular file, opened without blocking.
 * A line longer than a whole read holds no usage pk could parse: the offset moves past it (`skipping` until
 * its end), so no later look reads it again (a 5 GB transcript with no line end was read at every look).
 */
export function readOn(agent: string, file: string, cache: UsageCache | null, rules: UsageRules = NO_RULES, maxRead: number = MAX_READ): UsageCache | null {
  return withRegularFile(file, (fd, stats) => {
    const key = rulesKey(rules)
    const same = cache !== null && cache.file === file && cache.ino === stats.ino && cache.offset <= stats.size && (cache.rules ?? '') === key
    const start = same ? cache.offset : 0
    const acc: Accumulated = same ? structuredClone(cache.acc) : emptyAcc()
    const length = Math.min(stats.size - start, maxRead)
    const kept = key === '' ? {} : {rules: key}
    const skipping = same && cache.skipping === true
    const at = (offset: number, stillSkipping: boolean): UsageCache => ({
      version: USAGE_CACHE_VERSION,
      file,
      ino: stats.ino,
      offset,
      acc,
      ...kept,
      ...(stillSkipping ? {skipping: true as const} : {}),
    })
    if (length <= 0) return at(start, skipping)
    const buffer = Buffer.alloc(length)
    let got = 0
    while (got < length) {
      const n = readSync(fd, buffer, got, length - got, start + got)
      if (n === 0) break
      got += n
    }
    // The rest of a line too long to read passes over, up to its end.
    const from = skipping ? buffer.indexOf(0x0a) + 1 : 0
    if (skipping && from === 0) return at(start + got, true)
    // Up to the last whole line: a line still being written is read next time.
    const end = buffer.lastIndexOf(0x0a, got - 1) + 1
    // A whole read with no line end in it: a line longer than any read, passed over from here.
    if (end <= from && got === maxRead) return at(start + got, true)
    if (end > from) accumulate(agent, acc, buffer.subarray(from, end).toString('utf8'), rules)
    return at(start + Math.max(end, from), false)
  })
}

const claudeProjects = (env: Env) => join(env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude'), 'projects')

/** Where a session's transcript is, from what its record says (never the newest file of a directory); null when not known. */
export function transcriptOf(record: SessionRecord, env: Env): string | null {
  const id = record.conversationId
  if (record.agent === null || !USAGE_AGENTS.includes(record.agent)) return null
  if (record.transcript) return record.transcript
  if (id === null) return null
  if (record.agent === 'claude') return join(claudeProjects(env), record.cwd.replaceAll(/[^a-zA-Z0-9]/g, '-'), `${id}.jsonl`)
  if (record.agent === 'codex') return findRollout(id, env)
  if (record.agent === 'gemini') return findGeminiChat(id, env)
  if (record.agent === 'opencode') return opencodeUsageFile(id, env)
  if (record.agent === 'pi') {
    const dir = join(
      env.PI_CODING_AGENT_DIR || join(env.HOME || homedir(), '.pi', 'agent'),
      'sessions',
      `--${record.cwd.replace(/^\//, '').replaceAll(/[/:]/g, '-')}--`,
    )
    try {
      const name = readdirSync(dir).find((n) => n.endsWith(`_${id}.jsonl`))
      return name ? join(dir, name) : null
    } catch {
      return null
    }
  }
  return null
}

/**
 * Gemini CLI's session file of a conversation: `~/.gemini/tmp/PROJECT/chats/session-TIME-ID8.jsonl`, the
 * one whose first line names the whole id (the name holds only its first eight characters).
 */
export function findGeminiChat(id: string, env: Env): string | null {
  const root = join(env.HOME || homedir(), '.gemini', 'tmp')
  const short = id.slice(0, 8)
  let projects: string[]
  try {
    projects = readdirSync(root)
  } catch {
    return null
  }
  for (const project of projects) {
    let names: string[]
    try {
      names = readdirSync(join(root, project, 'chats')).filter((n) => n.endsWith(`-${short}.jsonl`))
    } catch {
      continue
    }
    for (const name of names) {
      const file = join(root, project, 'chats', name)
      try {
        const head = readHead(file, 4096)
        if (head !== null && obj(JSON.parse(head.split('\n')[0]!))?.sessionId === id) return file
      } catch {
        // not a session file of Gemini's: not this one
      }
    }
  }
  return null
}

/** The usage file pk's opencode plugin keeps for a conversation (see assets/opencode-plugin.js). */
export const opencodeUsageFile = (id: string, env: Env) =>
  join(env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share'), 'opencode', 'pk-usage', `${id.replaceAll(/[^A-Za-z0-9_-]/g, '_')}.jsonl`)

export const codexSessions = (env: Env) => join(env.CODEX_HOME || join(env.HOME || homedir(), '.codex'), 'sessions')

/**
 * Codex's rollout file of a thread: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-TIME-THREAD.jsonl`, newest
 * day first (a new thread is found at once; one resumed by hand keeps writing where it began).
 */
export function findRollout(thread: string, env: Env): string | null {
  const root = codexSessions(env)
  const list = (dir: string) => {
    try {
      return readdirSync(dir).sort().reverse()
    } catch {
      return []
    }
  }
  for (const y of list(root))
    for (const m of list(join(root, y)))
      for (const d of list(join(root, y, m))) {
        const name = list(join(root, y, m, d)).find((n) => n.endsWith(`-${thread}.jsonl`))
        if (name) return join(root, y, m, d, name)
      }
  return null
}

const cachePath = (state: StateDir, id: string) => join(state.root, 'usage', `${id}.json`)

export function readCache(state: StateDir | null, id: string): UsageCache | null {
  if (state === null) return null
  try {
    const cache = JSON.parse(readRegularFile(cachePath(state, id), 4 * 1024 * 1024)) as UsageCache
    return cache.version === USAGE_CACHE_VERSION && typeof cache.offset === 'number' && cache.acc ? cache : null
  } catch {
    return null
  }
}

/** The writer's part: remember how far a transcript was read (so readers read only what comes after). */
export function writeCache(state: StateDir, id: string, cache: UsageCache): void {
  mkdirSync(join(state.root, 'usage'), {recursive: true, mode: 0o700})
  writeFileAtomic(cachePath(state, id), JSON.stringify(cache), 'replace')
}

/** A session's usage now: its cache and whatever was appended since (read in memory; nothing written). */
export function sessionUsage(id: string, record: SessionRecord, state: StateDir | null, env: Env, rules: UsageRules): {usage: Usage; cache: UsageCache} | null {
  const file = transcriptOf(record, env)
  if (file === null) return null
  const cache = readOn(record.agent!, file, readCache(state, id), rules, LOOK_MAX_READ)
  return cache === null ? null : {usage: usageOf(cache.acc, file, rules), cache}
}

export type UsageGroup = 'session' | 'agent' | 'day'

export interface UsageLine extends Tokens {
  key: string
  sessions: number
  cost: number | null
  /** Models seen without a price (their cost is not in `cost`). */
  unpriced: string[]
}

/** Pure: `--since 2h`, `3d`, `1w` (or an ISO date) -> the first day counted (YYYY-MM-DD). */
export function sinceDay(value: string, now: number): string | null {
  const match = /^(\d+)\s*([hdw])$/.exec(value.trim())
  if (match) return new Date(now - Number(match[1]) * {h: 3600_000, d: 86_400_000, w: 7 * 86_400_000}[match[2] as 'h' | 'd' | 'w']).toISOString().slice(0, 10)
  return /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null
}

/**
 * Pure: totals the way `du` answers for disk: per session, agent or day, from each session's accumulated
 * transcript (days before `since` left out). A cost is summed only where every part of it is known.
 */
export function totals(items: {id: string; agent: string; acc: Accumulated; rates: Rates}[], by: UsageGroup, since: string | null): UsageLine[] {
  const lines = new Map<string, UsageLine & {ids: Set<string>}>()
  for (const item of items) {
    const days = Object.entries(item.acc.days).filter(([d]) => since === null || d >= since)
    for (const [d, counted] of days) {
      const key = by === 'session' ? item.id : by === 'agent' ? item.agent : d
      const line = lines.get(key) ?? {key, sessions: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, unpriced: [], ids: new Set<string>()}
      line.ids.add(item.id)
      line.input += counted.input
      line.output += counted.output
      line.cacheRead += counted.cacheRead
      line.cacheWrite += counted.cacheWrite
      const cost = counted.cost ?? priced(counted, item.acc.model === null ? undefined : item.rates[item.acc.model])
      if (cost === null) {
        if (item.acc.model !== null && !line.unpriced.includes(item.acc.model)) line.unpriced.push(item.acc.model)
        line.cost = null
      } else if (line.cost !== null) line.cost += cost
      lines.set(key, line)
    }
  }
  return [...lines.values()]
    .map(({ids, ...line}) => ({...line, sessions: ids.size}))
    .sort((a, b) => (by === 'day' ? (a.key < b.key ? -1 : 1) : b.input + b.output - (a.input + a.output)))
}
