import {claimText, isUntold, markerName, markerState, toldText} from '../registry/markers.js'
import {processSource} from '../proc/source.js'
import {Platform, platformOf} from '../model/platform.js'
import {run} from '../exec/run.js'
import {accessSync, constants, mkdirSync, readdirSync, statSync, unlinkSync} from 'node:fs'
import {join} from 'node:path'

import {NotifyChannel, NtfyChannel} from '../config/config.js'
import {SessionLimit, SessionRow} from '../model/contract.js'
import {clockText} from '../model/clock.js'
import {writeFileAtomic} from '../registry/atomic.js'
import {appendRegularFile, isPrivateDir} from '../registry/files.js'
import {mayWrite, withWriteAccess} from '../registry/ownership.js'
import {Env, StateDir} from '../registry/state-dir.js'
import {unseenSince} from '../listing/status.js'
import {listClients, showMessage} from '../tmux/pane-io.js'
import {ServerScan} from '../tmux/servers.js'

/**
 * Telling the user when a session needs them and nobody is looking. No daemon: whoever notices the
 * moment (the hook path, through a detached `pk notify --check`, a `pk ls --watch` or the dashboard)
 * notifies, and a marker created only once per event makes sure it is said once in all.
 */

export const DEFAULT_CHANNELS: NotifyChannel[] = [{tmux: true}, {desktop: true}]
const DEFAULT_COMMAND_SECONDS = 5

export interface NotifyEvent {
  id: string
  agent: string | null
  label: string | null
  state: string
  cwd: string | null
  /** What needs the user, in words: `waiting for you`, `finished its turn`. */
  reason: string
  /** When it began (ISO 8601): with the id, it names the event (PK_SINCE for a command). */
  since?: string | null
}

export interface ChannelResult {
  channel: string
  ok: boolean
  detail: string
  /** Whether the message reached anyone through this channel (ok but not delivered: skipped, nobody there). */
  delivered: boolean
}

/** Pure: what a row's state needs of the user, in words: waiting, a limit and who carries it on, a finished turn. */
export function stateReason(row: Pick<SessionRow, 'state' | 'limit'>, now = Date.now()): string {
  if (row.state === 'waiting') return 'waiting for you'
  if (row.state === 'limited' && row.limit !== null) return limitReason(row.limit, now)
  return 'finished its turn'
}

/** Pure: "hit its usage limit; continues at 00:20", and who continues it, or why nobody does. */
export function limitReason(limit: SessionLimit, now: number): string {
  const hit = `hit its ${limit.what}`
  if (limit.continuedBy === 'pk' && limit.continueAt !== null) return `${hit}; continues at ${clockText(limit.continueAt, now)}`
  if (limit.continuedBy === 'agent') return `${hit}; continues by itself${limit.resetsAt === null ? '' : ` at ${clockText(limit.resetsAt, now)}`}`
  const resets = limit.resetsAt === null ? '' : ` (resets ${clockText(limit.resetsAt, now)})`
  return `${hit}${resets}; not continued${limit.why === null ? '' : `: ${limit.why}`}`
}

/** Pure: the event a row with attention stands for. */
export function eventOf(row: SessionRow, reason = stateReason(row), since: string | null = row.attentionSince): NotifyEvent {
  return {id: row.id, agent: row.agent, label: row.label, state: row.state, cwd: row.cwd, reason, since}
}

/** Pure: why a row's usage needs the user, in words. */
function usageReason(row: Pick<SessionRow, 'usage'>): string {
  const u = row.usage!
  const alert = u.attention!
  if (alert.reason === 'context')
    return `past ${alert.threshold}% of its context${u.contextTokens !== null && u.contextWindow ? ` (${Math.round((100 * u.contextTokens) / u.contextWindow)}%)` : ''}`
  return `past your budget of $${alert.threshold}${u.cost !== null ? ` ($${u.cost.toFixed(2)} spent)` : ''}`
}

/** One event of a row that may need telling: named by its session and date; told only when nobody saw it. */
export interface RowEvent {
  since: string
  reason: string
  /** Nobody looking and nobody looked since: tell it. Else (a client attached) it is only claimed. */
  unseen: boolean
}

/**
 * Pure: the events a row stands for: what its state needs (waiting, a finished turn), and a usage
 * threshold it passed (usage.attention), each with its own date, so each is told once. An event that was
 * seen after it began (a client attached since) is neither told nor claimed; one that happens while a
 * client is attached is claimed, never told.
 */
export function rowEvents(row: SessionRow): RowEvent[] {
  const events: RowEvent[] = []
  const alert = row.usage?.attention ?? null
  const usageSince = alert === null ? Number.NaN : Date.parse(alert.since)
  if (row.attentionSince !== null && Date.parse(row.attentionSince) !== usageSince && (row.attention || row.attached)) {
    events.push({
      since: row.attentionSince,
      reason: stateReason(row),
      unseen: unseenSince(row, Date.parse(row.attentionSince)),
    })
  }
  if (alert !== null && !Number.isNaN(usageSince) && row.state !== 'exited' && row.verified && (row.attached || unseenSince(row, usageSince))) {
    events.push({since: new Date(usageSince).toISOString(), reason: usageReason(row), unseen: unseenSince(row, usageSince)})
  }
  return events
}

/** Pure: the reason as the rest of a sentence: a state takes "is" ("is waiting for you"), a deed does not ("finished its turn", "hit its usage limit"). */
const predicate = (reason: string) => (/^(finished|hit|could not) /.test(reason) ? reason : `is ${reason}`)

/** Pure: one line about the event, for a tmux message or a desktop notification. */
export const eventText = (e: NotifyEvent) => `${e.agent ?? 'session'}${e.label ? ` (${e.label})` : ''} ${e.id} ${predicate(e.reason)}: pk attach ${e.id}`

/** Pure: a notifier's argv with `{id}`, `{agent}`, `{label}`, `{state}`, `{cwd}`, `{reason}` filled in. */
export function fillArgv(argv: string[], e: NotifyEvent): string[] {
  const values: Record<string, string> = {id: e.id, agent: e.agent ?? '', label: e.label ?? '', state: e.state, cwd: e.cwd ?? '', reason: e.reason}
  return argv.map((word) => word.replaceAll(/\{(id|agent|label|state|cwd|reason)\}/g, (_, key: string) => values[key]!))
}

/** A notifier's command, killed with its whole group after `seconds`: ran, or why not. */
async function runNotifier(argv: string[], env: NodeJS.ProcessEnv, seconds: number): Promise<{ok: boolean; detail: string}> {
  // Over at its exit: a helper it left behind may hold its stderr for as long as it lives.
  const ran = await run(argv, {env, deadlineMs: seconds * 1000, group: true, until: 'exit'})
  if (ran.error) return {ok: false, detail: ran.error.message}
  if (ran.timedOut) return {ok: false, detail: `killed after ${seconds} s`}
  if (ran.code === 0) return {ok: true, detail: 'ran'}
  return {ok: false, detail: `exited ${ran.code ?? ran.signal}${ran.stderr.trim() ? `: ${ran.stderr.trim().split('\n').at(-1)}` : ''}`}
}

/** A message on every client attached to any tmux server of the user's. */
async function tellTmux(e: NotifyEvent, env: Env): Promise<ChannelResult> {
  let scan: ServerScan
  try {
    scan = new ServerScan(env)
  } catch {
    return {channel: 'tmux', ok: false, detail: 'the tmux socket directory is not safe to connect through (pk doctor)', delivered: false}
  }
  const {servers} = await scan.settle()
  let told = 0
  for (const server of servers.filter((s) => s.status === 'ok')) {
    for (const client of await listClients(server.socket)) if (await showMessage(server.socket, client, `pk: ${eventText(e)}`)) told++
  }
  return {channel: 'tmux', ok: true, detail: told === 0 ? 'no tmux client attached: nobody saw it' : `${told} client(s)`, delivered: told > 0}
}

const onPath = (program: string, env: Env) =>
  (env.PATH ?? '').split(':').some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK)
      return true
    } catch {
      return false
    }
  })

/**
 * Pure: the desktop notifier's argv. On macOS, osascript with a fixed script that takes the title and the
 * text as its arguments (`on run argv`): what an agent names is never AppleScript source, so a quote or a
 * backslash in it is only text.
 */
export function desktopArgv(platform: Platform, title: string, text: string): string[] {
  if (platform === 'darwin')
    return ['osascript', '-e', 'on run argv', '-e', 'display notification (item 2 of argv) with title (item 1 of argv)', '-e', 'end run', title, text]
  return ['notify-send', '--app-name=pk', title, text]
}

async function tellDesktop(e: NotifyEvent, env: Env): Promise<ChannelResult> {
  const platform = platformOf(env)
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return {channel: 'desktop', ok: true, detail: 'no display (skipped)', delivered: false}
  const argv = desktopArgv(platform, `pk: ${e.agent ?? 'session'} ${e.reason}`, eventText(e))
  if (!onPath(argv[0]!, env)) return {channel: 'desktop', ok: true, detail: `${argv[0]} not installed (skipped)`, delivered: false}
  const result = await runNotifier(argv, env as NodeJS.ProcessEnv, DEFAULT_COMMAND_SECONDS)
  return {channel: 'desktop', ...result, delivered: result.ok}
}

async function tellCommand(channel: {command: string[]; timeout?: number}, e: NotifyEvent, env: Env): Promise<ChannelResult> {
  const childEnv = {
    ...env,
    PK_ID: e.id,
    PK_AGENT: e.agent ?? '',
    PK_STATE: e.state,
    PK_LABEL: e.label ?? '',
    PK_CWD: e.cwd ?? '',
    PK_REASON: e.reason,
    PK_SINCE: e.since ?? '',
  } as NodeJS.ProcessEnv
  const result = await runNotifier(fillArgv(channel.command, e), childEnv, channel.timeout ?? DEFAULT_COMMAND_SECONDS)
  return {channel: `command ${channel.command[0]}`, ...result, delivered: result.ok}
}

/** How long an ntfy server has to take a message. */
const NTFY_SECONDS = 5

/** What ntfy is sent: ntfy's plain HTTP publish (a POST to the topic, the message as its body). */
export interface NtfyRequest {
  url: string
  headers: Record<string, string>
  body: string
}

/**
 * Pure: a header value as ntfy takes it: ASCII as is, anything else as an RFC 2047 encoded word (which ntfy
 * decodes), so a label in any script reaches the phone; line breaks never reach a header.
 */
export function headerValue(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is being removed
  const flat = text.replaceAll(/[\x00-\x1f\x7f]+/g, ' ')
  return /^[\x20-\x7e]*$/.test(flat) ? flat : `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`
}

/** Pure: the publish of one event: a title, the line the other channels say, a priority, tags, and where a tap goes. */
export function ntfyRequest(channel: NtfyChannel, e: NotifyEvent, link: string | null): NtfyRequest {
  const waiting = e.state === 'waiting'
  const headers: Record<string, string> = {
    Title: headerValue(`pk: ${e.agent ?? 'session'}${e.label ? ` (${e.label})` : ''} ${e.reason}`),
    Priority: String(channel.priority ?? (waiting ? 4 : 3)),
    Tags: [waiting ? 'bell' : 'white_check_mark', ...(e.agent && /^[\w.-]+$/.test(e.agent) ? [e.agent] : [])].join(','),
    'Content-Type': 'text/plain; charset=utf-8',
  }
  if (link !== null) headers.Click = link
  if (channel.token !== undefined) headers.Authorization = `Bearer ${channel.token}`
  return {url: channel.url, headers, body: eventText(e)}
}

async function tellNtfy(channel: NtfyChannel, e: NotifyEvent, link: string | null): Promise<ChannelResult> {
  const request = ntfyRequest(channel, e, link)
  const name = `ntfy ${new URL(channel.url).host}`
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(NTFY_SECONDS * 1000),
      redirect: 'error',
    })
    await response.body?.cancel()
    if (response.ok) return {channel: name, ok: true, detail: `published (${response.status})`, delivered: true}
    return {channel: name, ok: false, detail: `the server answered ${response.status} ${response.statusText}`, delivered: false}
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError'
    return {channel: name, ok: false, detail: timedOut ? `no answer within ${NTFY_SECONDS} s` : describeFetchError(error), delivered: false}
  }
}

/** What fetch says went wrong, with its cause (ECONNREFUSED, a certificate), never the token. */
function describeFetchError(error: unknown): string {
  const cause = (error as {cause?: {code?: string; message?: string}}).cause
  return cause?.code ?? cause?.message ?? (error as Error).message
}

/** Where a notification may send the user: the session's page, when `pk serve` is reachable at a public URL. */
export type SessionLink = (id: string) => string | null
const NO_LINK: SessionLink = () => null

/** Say it on every channel, at once; each result is reported, failures are logged, nothing throws. */
export async function deliver(
  e: NotifyEvent,
  channels: NotifyChannel[],
  env: Env,
  state: StateDir | null,
  link: SessionLink = NO_LINK,
): Promise<ChannelResult[]> {
  const tell = (channel: NotifyChannel) =>
    'tmux' in channel
      ? tellTmux(e, env)
      : 'desktop' in channel
        ? tellDesktop(e, env)
        : 'ntfy' in channel
          ? tellNtfy(channel.ntfy, e, link(e.id))
          : tellCommand(channel, e, env)
  const results = await Promise.all(
    channels.map((channel) =>
      tell(channel).catch((error: unknown) => ({
        channel: 'unknown',
        ok: false,
        detail: String(error),
        delivered: false,
      })),
    ),
  )
  for (const failed of results.filter((r) => !r.ok)) logNotify(state, `${e.id} ${failed.channel}: ${failed.detail}`)
  return results
}

function logNotify(state: StateDir | null, line: string): void {
  if (state === null) return
  try {
    appendRegularFile(join(state.root, 'notify.log'), `${new Date().toISOString()} ${line}\n`)
  } catch {
    // nowhere safe to log
  }
}

const isPlainDir = isPrivateDir

/**
 * Claim the event: true for the one caller that creates its marker (create-only: a second notifier, at the
 * same moment or later, gets false), or that takes over the claim of a notifier that died before it told
 * the event (killed, or its machine's OOM killer: the event was never told). Takeovers happen under the
 * state lock, so of two notifiers that found one dead claim, one takes it. The caller says `toldEvent`
 * as it starts telling. Markers older than a week are swept.
 */
export async function claimEvent(state: StateDir, row: Pick<SessionRow, 'id' | 'attentionSince'>): Promise<boolean> {
  const dir = join(state.root, 'notified')
  mkdirSync(dir, {recursive: true, mode: 0o700})
  if (!isPlainDir(dir)) return false
  const path = join(dir, markerName(row))
  const me = processSource().stat(process.pid)
  const claim = () => claimText({pid: process.pid, startTime: me?.startTime ?? 0}, new Date())
  try {
    writeFileAtomic(path, claim(), 'create')
  } catch {
    if (markerState(path) !== 'abandoned') return false
    try {
      const taken = await withWriteAccess(state, () => {
        if (markerState(path) !== 'abandoned') return false
        writeFileAtomic(path, claim(), 'replace')
        return true
      })
      if (!taken) return false
    } catch {
      return false // the lock stayed busy: a later notifier takes it over
    }
  }
  sweep(dir)
  return true
}

/** The claimed event is being told, or was seen by the user: no notifier tells it again. */
export function toldEvent(state: StateDir, row: Pick<SessionRow, 'id' | 'attentionSince'>): void {
  try {
    writeFileAtomic(join(state.root, 'notified', markerName(row)), toldText(new Date()), 'replace')
  } catch {
    // the claim stays, naming this process: once it ends, another notifier tells the event again
  }
}

function sweep(dir: string): void {
  // Markers are plain files in a directory of ours; a link or anything else is left alone, never followed.
  if (!isPlainDir(dir)) return
  const old = Date.now() - 7 * 24 * 3600_000
  for (const name of readdirSync(dir)) {
    try {
      if (statSync(join(dir, name)).mtimeMs < old) unlinkSync(join(dir, name))
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * Notify once for every row that needs the user now and has not been told of: called by watchers with
 * each listing, and by `pk notify --check` for one session. Only a pk that may write the state does it.
 */
export async function notifyRows(
  rows: SessionRow[],
  channels: NotifyChannel[] | undefined,
  env: Env,
  state: StateDir | null,
  link: SessionLink = NO_LINK,
): Promise<string[]> {
  if (state === null) return []
  const dir = join(state.root, 'notified')
  // Seen while a client is attached: the user was looking, so the event is claimed and never told.
  // An event without a date of its own (a screen state no observer has handed in yet) cannot be named:
  // it is told once an observer dates it (watchers do, see watch.ts).
  const untold = rows.flatMap((row) =>
    rowEvents(row)
      .filter((e) => isUntold(markerState(join(dir, markerName({id: row.id, attentionSince: e.since})))))
      .map((e) => ({row, event: e})),
  )
  if (untold.length === 0 || !mayWrite(state)) return []
  const told: string[] = []
  for (const {row, event} of untold) {
    const named = {id: row.id, attentionSince: event.since}
    if (!(await claimEvent(state, named))) continue
    // Told from the moment its channels start, not when they are done: a notifier killed while a channel
    // ran (its command goes on without it) would leave a claim that another notifier takes over, and the
    // user would be told twice (the storm: a kill among hundreds of tellings). Killed before this line, it
    // told nothing, and its claim is taken over.
    toldEvent(state, named)
    if (event.unseen) {
      await deliver(eventOf(row, event.reason, event.since), channels ?? DEFAULT_CHANNELS, env, state, link)
      told.push(row.id)
    }
  }
  return told
}
