import {Dirent, constants, readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {errnoCode} from '../model/errors.js'
import {ProcessIdentity, sameIdentity, sessionIdOf} from '../proc/identity.js'
import {HOOK_STATES, HookState, isOneOf} from '../model/states.js'
import {unlinkQuietly, writeFileAtomic} from './atomic.js'
import {NotRegularFileError, readRegularFile} from './files.js'
import {StateDir} from './state-dir.js'

export const RECORD_VERSION = 1
const MAX_RECORD_BYTES = 1024 * 1024

/**
 * What pk knows about a session it started: the identity of the process, and claims about where it
 * was started. Only `identity` is used to pair; everything else is shown or used as a hint.
 */
export interface SessionRecord {
  version: typeof RECORD_VERSION
  identity: ProcessIdentity
  tmux: {socket: string; paneId: string; sessionId: string; serverPid: number}
  cwd: string
  argv: string[]
  agent: string | null
  label: string | null
  createdAt: string
  startedAt: string | null
  /** The agent's own conversation id, once a hook reported it: what `resume` needs. Optional in files. */
  conversationId: string | null
  /** Optional in files. */
  status: HookStatus | null
  /** `pk stop` ended it: when, and with which signal in the end. Optional in files. */
  stopped?: {at: string; signal: string} | null
  /** The id of the session this one resumed (`pk resume`, `pk restore`). Optional in files. */
  resumedFrom?: string | null
  /** The id of the session that resumed this one: its conversation lives on there. Optional in files. */
  resumedBy?: string | null
  /** The git worktree pk made for this session (`pk bg --worktree`). Optional in files. */
  worktree?: {path: string; branch: string; repo: string} | null
  /** The agent's transcript, as its hook said (Claude's transcript_path, Pi's session file). Optional in files. */
  transcript?: string | null
  /** The agent's own arguments pk started it with (after `--`), which resume keeps. Optional in files. */
  agentArgs?: string[] | null
  /** What the screen showed, as an observer handed it to the writer: dated by when it first appeared. Optional in files. */
  observed?: ScreenEpisode | null
}

/** A state the screen showed from `since` on; `turnEnded` when it followed work (a turn ended). */
export interface ScreenEpisode {
  state: 'idle' | 'waiting'
  since: string
  turnEnded: boolean
}

/** The last state an agent's own hook reported, with when and which event. */
export interface HookStatus {
  state: HookState
  at: string
  event: string
  /** The event ended a turn (the agent finished and waits for the user). */
  turnEnded: boolean
  /** When the agent says it sent the report (ms since the epoch), where it does: orders reports. */
  sentAt?: number
}

export interface StoredRecord {
  file: string
  record: SessionRecord
}

/** Every code a problem in `pk ls --json` (and prune, watch) can carry; the README lists the same. */
export const PROBLEM_CODES = [
  'conflict', 'corrupt-record', 'invalid-record', 'unknown-version', 'symlinked-record', 'unreadable-record', 'foreign-namespace',
  'bad-owner', 'no-view', 'unreachable', 'unverified-server', 'foreign-pane', 'server-unresponsive', 'server-access-denied',
  'tmux-error', 'tmux-output', 'tmux-missing', 'host-unreachable', 'host-no-pk', 'host-pk-incompatible', 'host-pk-failed',
] as const
export type ProblemCode = (typeof PROBLEM_CODES)[number]

export interface Problem {
  code: ProblemCode
  message: string
  [extra: string]: unknown
}

export type Validation = {ok: true; record: SessionRecord} | {ok: false; code: 'unknown-version' | 'invalid-record'; reason: string}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isString = (v: unknown): v is string => typeof v === 'string'
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
const isNullableString = (v: unknown) => v === null || isString(v)
const isDate = (v: unknown) => isString(v) && !Number.isNaN(Date.parse(v))

/** Pure: check a parsed record's shape field by field, naming the first field that is wrong. */
export function validateRecord(data: unknown): Validation {
  if (!isObject(data)) return {ok: false, code: 'invalid-record', reason: 'not a JSON object'}
  if (data.version !== RECORD_VERSION) {
    return {ok: false, code: 'unknown-version', reason: `version ${JSON.stringify(data.version)} is not ${RECORD_VERSION}`}
  }
  const bad = (field: string) => ({ok: false as const, code: 'invalid-record' as const, reason: `field ${field} is missing or malformed`})
  const id = data.identity
  if (!isObject(id)) return bad('identity')
  if (!isString(id.bootId) || id.bootId === '') return bad('identity.bootId')
  if (!isString(id.pidNs) || !/^\d+$/.test(id.pidNs)) return bad('identity.pidNs')
  if (!isCount(id.pid) || id.pid === 0) return bad('identity.pid')
  if (!isCount(id.startTime)) return bad('identity.startTime')
  const tmux = data.tmux
  if (!isObject(tmux)) return bad('tmux')
  if (!isString(tmux.socket) || !tmux.socket.startsWith('/')) return bad('tmux.socket')
  if (!isString(tmux.paneId) || !/^%\d+$/.test(tmux.paneId)) return bad('tmux.paneId')
  if (!isString(tmux.sessionId) || !/^\$\d+$/.test(tmux.sessionId)) return bad('tmux.sessionId')
  if (!isCount(tmux.serverPid)) return bad('tmux.serverPid')
  if (!isString(data.cwd)) return bad('cwd')
  if (!Array.isArray(data.argv) || !data.argv.every(isString)) return bad('argv')
  if (!isNullableString(data.agent)) return bad('agent')
  if (!isNullableString(data.label)) return bad('label')
  if (!isDate(data.createdAt)) return bad('createdAt')
  if (data.startedAt !== null && !isDate(data.startedAt)) return bad('startedAt')
  if (data.conversationId !== undefined && !isNullableString(data.conversationId)) return bad('conversationId')
  const status = data.status
  if (status !== undefined && status !== null) {
    if (!isObject(status)) return bad('status')
    if (!isOneOf(HOOK_STATES, status.state)) return bad('status.state')
    if (!isDate(status.at)) return bad('status.at')
    if (!isString(status.event)) return bad('status.event')
    if (typeof status.turnEnded !== 'boolean') return bad('status.turnEnded')
    if (status.sentAt !== undefined && !(typeof status.sentAt === 'number' && Number.isFinite(status.sentAt))) return bad('status.sentAt')
  }
  const lifecycle = validateLifecycle(data)
  if (typeof lifecycle === 'string') return bad(lifecycle)
  const record: SessionRecord = {
    version: RECORD_VERSION,
    identity: {bootId: id.bootId, pidNs: id.pidNs, pid: id.pid, startTime: id.startTime},
    tmux: {socket: tmux.socket, paneId: tmux.paneId, sessionId: tmux.sessionId, serverPid: tmux.serverPid},
    cwd: data.cwd,
    argv: [...data.argv] as string[],
    agent: data.agent as string | null,
    label: data.label as string | null,
    createdAt: data.createdAt as string,
    startedAt: data.startedAt as string | null,
    conversationId: (data.conversationId as string | null | undefined) ?? null,
    status: isObject(status)
      ? {state: status.state as HookStatus['state'], at: status.at as string, event: status.event as string, turnEnded: status.turnEnded as boolean, ...(typeof status.sentAt === 'number' ? {sentAt: status.sentAt} : {})}
      : null,
    ...lifecycle,
  }
  return {ok: true, record}
}

const isSessionId = (v: unknown) => v === undefined || v === null || (isString(v) && /^[0-9a-f]{8}$/.test(v))

/** The optional lifecycle fields, checked; a string names the first bad one. */
function validateLifecycle(data: Record<string, unknown>): Pick<SessionRecord, 'stopped' | 'resumedFrom' | 'resumedBy' | 'worktree' | 'observed' | 'agentArgs' | 'transcript'> | string {
  const stopped = data.stopped
  if (stopped !== undefined && stopped !== null && (!isObject(stopped) || !isDate(stopped.at) || !isString(stopped.signal))) return 'stopped'
  if (!isSessionId(data.resumedFrom)) return 'resumedFrom'
  if (!isSessionId(data.resumedBy)) return 'resumedBy'
  const worktree = data.worktree
  if (worktree !== undefined && worktree !== null && (!isObject(worktree) || !isString(worktree.path) || !worktree.path.startsWith('/') || !isString(worktree.branch) || !isString(worktree.repo) || !worktree.repo.startsWith('/'))) return 'worktree'
  const observed = data.observed
  if (observed !== undefined && observed !== null && (!isObject(observed) || (observed.state !== 'idle' && observed.state !== 'waiting') || !isDate(observed.since) || typeof observed.turnEnded !== 'boolean')) return 'observed'
  if (data.agentArgs !== undefined && data.agentArgs !== null && !(Array.isArray(data.agentArgs) && data.agentArgs.every(isString))) return 'agentArgs'
  if (data.transcript !== undefined && data.transcript !== null && !(isString(data.transcript) && data.transcript.startsWith('/'))) return 'transcript'
  const out: Pick<SessionRecord, 'stopped' | 'resumedFrom' | 'resumedBy' | 'worktree' | 'observed' | 'agentArgs' | 'transcript'> = {}
  if (isString(data.transcript)) out.transcript = data.transcript
  if (Array.isArray(data.agentArgs)) out.agentArgs = [...data.agentArgs] as string[]
  if (isObject(observed)) out.observed = {state: observed.state as ScreenEpisode['state'], since: observed.since as string, turnEnded: observed.turnEnded as boolean}
  if (isObject(worktree)) out.worktree = {path: worktree.path as string, branch: worktree.branch as string, repo: worktree.repo as string}
  if (isObject(stopped)) out.stopped = {at: stopped.at as string, signal: stopped.signal as string}
  if (isString(data.resumedFrom)) out.resumedFrom = data.resumedFrom
  if (isString(data.resumedBy)) out.resumedBy = data.resumedBy
  return out
}

/** Pure: text of a record file -> record or the problem with it. */
export function parseRecordText(file: string, text: string): StoredRecord | Problem {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    return {code: 'corrupt-record', message: `${file}: not valid JSON (${(error as Error).message}); skipped`, file}
  }
  const verdict = validateRecord(data)
  if (!verdict.ok) {
    // A newer pk's record is somebody's live session: skipped here, but never to be quarantined.
    const version = (data as {version?: unknown}).version
    if (typeof version === 'number' && version > RECORD_VERSION) {
      return {code: verdict.code, message: `${file}: written by a newer pk (record version ${version}); skipped, left alone`, file, newer: true}
    }
    return {code: verdict.code, message: `${file}: ${verdict.reason}; skipped`, file}
  }
  return {file, record: verdict.record}
}

/** The record of exactly this process (boot, pid namespace, pid and start time), if any. */
export const recordOf = (records: StoredRecord[], identity: ProcessIdentity) => records.find((r) => sameIdentity(r.record.identity, identity))

export const isStored = (r: StoredRecord | Problem): r is StoredRecord => !('code' in r)

export const recordFileName = (record: SessionRecord) => `${sessionIdOf(record.identity)}.json`

/** Read one file without following links, nor blocking on a FIFO, at most 1 MiB. */
function readRecordFile(path: string): StoredRecord | Problem {
  let text: string
  try {
    text = readRegularFile(path, MAX_RECORD_BYTES)
  } catch (error) {
    if (error instanceof NotRegularFileError) {
      if (error.what === 'a symbolic link') return {code: 'symlinked-record', message: `${path}: is a symbolic link; pk does not follow links in its state; skipped`, file: path}
      return {code: 'invalid-record', message: `${path}: ${error.what}, not a regular file; skipped`, file: path}
    }
    if (error instanceof RangeError) return {code: 'invalid-record', message: `${path}: larger than ${MAX_RECORD_BYTES} bytes; skipped`, file: path}
    return {code: 'unreadable-record', message: `${path}: cannot be read (${errnoCode(error) ?? String(error)}); skipped`, file: path}
  }
  return parseRecordText(path, text)
}

export interface RecordScan {
  records: StoredRecord[]
  problems: Problem[]
}

/** Every record in the state directory; bad files become problems, never exceptions. */
export function readRecords(state: StateDir | null): RecordScan {
  const scan: RecordScan = {records: [], problems: []}
  if (state === null) return scan
  let entries: Dirent[]
  try {
    entries = readdirSync(state.sessions, {withFileTypes: true})
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return scan
    throw error
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!entry.name.endsWith('.json') || entry.name.startsWith('.')) continue
    const path = join(state.sessions, entry.name)
    const result = (entry.isFile() ? readPlainRecord(path) : null) ?? readRecordFile(path)
    if (isStored(result)) scan.records.push(result)
    else scan.problems.push(result)
  }
  return scan
}

const PLAIN_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

/**
 * The common case, fast: a file the directory lists as regular, read in one call (node's readFileSync
 * opens, sizes, reads and closes it in C++, about half the cost of doing each step from JS, which counts
 * at a thousand records). Not through a link, never waiting on a FIFO swapped in meanwhile. Anything
 * unusual (an error, a large file, a record that does not parse) is left to readRecordFile, which reads
 * carefully and names the problem: null.
 */
function readPlainRecord(path: string): StoredRecord | null {
  let text: string
  try {
    // Node takes numeric open flags here too; its types only name the string forms.
    text = readFileSync(path, {encoding: 'utf8', flag: PLAIN_READ as unknown as string})
  } catch {
    return null
  }
  if (text.length > MAX_RECORD_BYTES) return null
  const result = parseRecordText(path, text)
  return isStored(result) ? result : null
}

/** Create a record file; never replaces an existing file (a leftover is reported, not overwritten). */
export function createRecord(state: StateDir, record: SessionRecord): string {
  const path = join(state.sessions, recordFileName(record))
  writeFileAtomic(path, JSON.stringify(record, null, 2) + '\n', 'create')
  return path
}

/** Replace a record in place (an update by its owner: hook states, conversation ids). */
export function replaceRecord(path: string, record: SessionRecord): void {
  writeFileAtomic(path, JSON.stringify(record, null, 2) + '\n', 'replace')
}

export function removeRecordFile(path: string): void {
  unlinkQuietly(path)
}
