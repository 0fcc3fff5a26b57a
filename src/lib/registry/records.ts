import {Problem, SessionBase} from '../model/contract.js'
export type {SessionBase}
import {PaneId, TmuxSessionId} from '../model/ids.js'
import {Dirent, constants, lstatSync, readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {errnoCode} from '../model/errors.js'
import {ProcessIdentity, sameIdentity, sessionIdOf} from '../proc/identity.js'
import {HookState} from '../model/states.js'
import {unlinkQuietly, writeFileAtomic} from './atomic.js'
import {NotRegularFileError, isPrivateDir, readRegularFile} from './files.js'
import {StateDir} from './state-dir.js'
import {SchemaError, validate} from './record-validator.generated.js'

export const RECORD_VERSION = 1
const MAX_RECORD_BYTES = 1024 * 1024

/**
 * What pk knows about a session it started: the identity of the process, and claims about where it
 * was started. Only `identity` is used to pair; everything else is shown or used as a hint.
 */
export interface SessionRecord {
  version: typeof RECORD_VERSION
  identity: ProcessIdentity
  tmux: {socket: string; paneId: PaneId; sessionId: TmuxSessionId; serverPid: number}
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
  /**
   * The session that started this one (its id), found by process identity: pk bg (or pk mcp's
   * start_session) ran among that session's processes. Optional in files.
   */
  parent?: string | null
  /** The id of the session that resumed this one: its conversation lives on there. Optional in files. */
  resumedBy?: string | null
  /** The git worktree pk made for this session (`pk bg --worktree`). Optional in files. */
  worktree?: {path: string; branch: string; repo: string} | null
  /** What the session started from, where pk bg could tell (pk diff and pk land measure against it). Optional in files. */
  base?: SessionBase | null
  /** The agent's transcript, as its hook said (Claude's transcript_path, Pi's session file). Optional in files. */
  transcript?: string | null
  /** The agent's own arguments pk started it with (after `--`), which resume keeps. Optional in files. */
  agentArgs?: string[] | null
  /** What the screen showed, as an observer handed it to the writer: dated by when it first appeared. Optional in files. */
  observed?: ScreenEpisode | null
  /** false: started with `pk bg --no-continue`: pk does not continue it at a usage limit's reset. Optional in files. */
  continueAtReset?: boolean
}

/** A state the screen showed from `since` on; `turnEnded` when it followed work (a turn ended). */
export interface ScreenEpisode {
  state: 'idle' | 'waiting' | 'limited'
  since: string
  turnEnded: boolean
  /** The observer's last look before `since` that saw another state (work): what the episode followed. */
  lastOther?: string
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
  /**
   * When what it reports began, where an observer saw this very turn end on the screen before the hook said
   * it (one turn end is one event, with one date, whichever the writer applied first); else `at`.
   */
  since?: string
  /** What the agent said with the event, where pk keeps it: the limit line of a turn that ended at a limit. */
  detail?: string
}

export interface StoredRecord {
  file: string
  record: SessionRecord
}

export type Validation = {ok: true; record: SessionRecord} | {ok: false; code: 'unknown-version' | 'invalid-record'; reason: string}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Pure: the field an ajv error is about, as a path (`tmux.paneId`). */
function fieldOf(error: SchemaError): string {
  const path = error.instancePath
    .split('/')
    .filter(Boolean)
    .filter((part) => !/^\d+$/.test(part))
  if (error.keyword === 'required' && error.params.missingProperty) path.push(error.params.missingProperty)
  return path.join('.') || '(record)'
}

const DATES = ['createdAt', 'status.at', 'status.since', 'stopped.at', 'observed.since', 'observed.lastOther'] as const
const at = (data: Record<string, unknown>, path: string): unknown => path.split('.').reduce<unknown>((v, key) => (isObject(v) ? v[key] : undefined), data)

/**
 * Pure: check a parsed record against schemas/record.schema.json (compiled ahead of time by
 * scripts/compile-validators.mjs), naming the first field that is wrong; then what a schema cannot say:
 * that its dates are dates. Optional fields a file lacks read as null.
 */
export function validateRecord(data: unknown): Validation {
  if (!isObject(data)) return {ok: false, code: 'invalid-record', reason: 'not a JSON object'}
  if (data.version !== RECORD_VERSION) {
    return {ok: false, code: 'unknown-version', reason: `version ${JSON.stringify(data.version)} is not ${RECORD_VERSION}`}
  }
  const bad = (field: string) => ({ok: false as const, code: 'invalid-record' as const, reason: `field ${field} is missing or malformed`})
  if (!validate(data)) return bad(fieldOf(validate.errors![0]!))
  for (const path of DATES) {
    const value = at(data, path)
    if (value !== undefined && value !== null && Number.isNaN(Date.parse(value as string))) return bad(path)
  }
  if (data.startedAt !== null && Number.isNaN(Date.parse(data.startedAt as string))) return bad('startedAt')
  const valid = data as unknown as SessionRecord
  const record: SessionRecord = {
    version: RECORD_VERSION,
    identity: {bootId: valid.identity.bootId, pidNs: valid.identity.pidNs, pid: valid.identity.pid, startTime: valid.identity.startTime},
    tmux: {socket: valid.tmux.socket, paneId: valid.tmux.paneId, sessionId: valid.tmux.sessionId, serverPid: valid.tmux.serverPid},
    cwd: valid.cwd,
    argv: [...valid.argv],
    agent: valid.agent,
    label: valid.label,
    createdAt: valid.createdAt,
    startedAt: valid.startedAt,
    conversationId: valid.conversationId ?? null,
    status: valid.status
      ? {
          state: valid.status.state,
          at: valid.status.at,
          event: valid.status.event,
          turnEnded: valid.status.turnEnded,
          ...(typeof valid.status.sentAt === 'number' ? {sentAt: valid.status.sentAt} : {}),
          ...(typeof valid.status.since === 'string' ? {since: valid.status.since} : {}),
          ...(typeof valid.status.detail === 'string' ? {detail: valid.status.detail} : {}),
        }
      : null,
  }
  // The optional fields, only where the file has them (a record read and written again stays as it was).
  if (valid.stopped) record.stopped = {at: valid.stopped.at, signal: valid.stopped.signal}
  if (valid.continueAtReset === false) record.continueAtReset = false
  if (valid.resumedFrom) record.resumedFrom = valid.resumedFrom
  if (valid.resumedBy) record.resumedBy = valid.resumedBy
  if (valid.parent) record.parent = valid.parent
  if (valid.worktree) record.worktree = {path: valid.worktree.path, branch: valid.worktree.branch, repo: valid.worktree.repo}
  if (valid.base) record.base = {commit: valid.base.commit, branch: valid.base.branch, checkout: valid.base.checkout, kind: valid.base.kind}
  if (valid.transcript) record.transcript = valid.transcript
  if (valid.agentArgs) record.agentArgs = [...valid.agentArgs]
  if (valid.observed)
    record.observed = {
      state: valid.observed.state,
      since: valid.observed.since,
      turnEnded: valid.observed.turnEnded,
      ...(typeof valid.observed.lastOther === 'string' ? {lastOther: valid.observed.lastOther} : {}),
    }
  return {ok: true, record}
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
      if (error.what === 'a symbolic link')
        return {code: 'symlinked-record', message: `${path}: is a symbolic link; pk does not follow links in its state; skipped`, file: path}
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

/** File names in code-unit order: the order records are read in, and the index is written in. */
const compareNames = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

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
  // Records in a folder another user may write are claims anyone could have planted: none is read.
  if (!isPrivateDir(state.sessions)) {
    scan.problems.push({
      code: 'unsafe-dir',
      message: `${state.sessions} is not a private directory of yours (a link, another user's, or writable by others): no record in it is read. pk doctor --fix tightens it`,
    })
    return scan
  }
  const index = readIndex(state)
  // Paths by concatenation: path.join costs more than a lstat, a thousand times (a directory entry's name
  // has no slash, and these are never . or ..).
  const dir = join(state.sessions)
  const prefix = dir.endsWith('/') ? dir : `${dir}/`
  const names = entries.filter((e) => e.name.endsWith('.json') && !e.name.startsWith('.'))
  for (const entry of names.sort((a, b) => compareNames(a.name, b.name))) {
    const path = prefix + entry.name
    const indexed = entry.isFile() ? index.get(entry.name) : undefined
    if (indexed !== undefined && unchanged(indexed, path)) {
      scan.records.push({file: path, record: indexed.record})
      continue
    }
    const result = (entry.isFile() ? readPlainRecord(path) : null) ?? readRecordFile(path)
    if (isStored(result)) scan.records.push(result)
    else scan.problems.push(result)
  }
  return scan
}

/**
 * The record index (`records.index` in the state directory): every valid record as it was read, with the
 * file's inode, size, mtime and ctime then. A reader takes a record from it only where one lstat of the
 * file finds all four unchanged, and reads (and validates) the file itself otherwise: so a thousand
 * unchanged records cost one read and a thousand stats, not a thousand reads and validations. Records
 * stay the truth: an index that is missing, damaged, of another directory or stale is never trusted and
 * never needed. Writers keep it (refreshRecordIndex, under the state lock); a reader never writes it.
 */
export const recordIndexPath = (state: StateDir) => join(state.root, 'records.index')

// 2: entries carry the record's id (no longer read: an id is worked out from the identity, never taken
//    from a file anyone of the user's could edit; an edited index swapped two sessions' ids).
// 3: entries are an array, each with its file's name: JSON.parse builds a thousand objects of one shape
//    faster than one object with a thousand keys, and a reader walks them without copying them into a Map.
const INDEX_VERSION = 3
/**
 * A file changed this recently is not indexed: timestamps move in coarse ticks, so a file written in place
 * twice within one tick, keeping its size, would look unchanged (git's "racily clean" entries). pk's own
 * writes replace files (a new inode) and are never mistaken; an edit by hand could be. Such a file is read
 * by readers until a later refresh indexes it.
 */
const SETTLED_MS = 2000
const MAX_INDEX_BYTES = 256 * 1024 * 1024

interface FileFacts {
  ino: number
  size: number
  mtimeMs: number
  ctimeMs: number
}

interface IndexEntry extends FileFacts {
  /** The record's file name in the sessions directory. */
  name: string
  record: SessionRecord
  /** sessionIdOf(record.identity), as the writer worked it out. */
  id?: string
}

function statOf(path: string): FileFacts | null {
  try {
    const stats = lstatSync(path, {throwIfNoEntry: false})
    return stats?.isFile() ? {ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs} : null
  } catch {
    return null
  }
}

const NO_THROW = {throwIfNoEntry: false} as const

/** One lstat: the file is still the regular file the index saw (sameFile, without making its facts). */
function unchanged(facts: FileFacts, path: string): boolean {
  let stats
  try {
    stats = lstatSync(path, NO_THROW)
  } catch {
    return false
  }
  return (
    stats !== undefined &&
    stats.isFile() &&
    stats.ino === facts.ino &&
    stats.size === facts.size &&
    stats.mtimeMs === facts.mtimeMs &&
    stats.ctimeMs === facts.ctimeMs
  )
}

const sameFile = (a: FileFacts, b: FileFacts | null) => b !== null && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs

/**
 * The index, by file name; empty when there is none, or it is not pk's, not of this directory, or damaged.
 * An entry is only taken where a file of its name has the facts it names (see unchanged), so an entry
 * that is not one (no name, no facts) is never taken.
 */
function readIndex(state: StateDir): Map<string, IndexEntry> {
  const index = new Map<string, IndexEntry>()
  let data: {version?: unknown; sessions?: unknown; entries?: unknown}
  try {
    data = JSON.parse(readRegularFile(recordIndexPath(state), MAX_INDEX_BYTES))
  } catch {
    return index
  }
  if (data?.version !== INDEX_VERSION || data.sessions !== directoryIno(state.sessions) || !Array.isArray(data.entries)) return index
  for (const entry of data.entries as IndexEntry[]) if (typeof entry?.name === 'string') index.set(entry.name, entry)
  return index
}

function directoryIno(dir: string): number | null {
  try {
    return lstatSync(dir).ino
  } catch {
    return null
  }
}

/**
 * Bring the index up to date with the records as they are (a writer's step, under the state lock): the
 * files whose facts changed are read again, the rest kept; written only when something changed. Never
 * fails its caller: without an index, readers read every file.
 */
export function refreshRecordIndex(state: StateDir, now = Date.now()): void {
  try {
    const old = readIndex(state)
    const entries: IndexEntry[] = []
    let changed = false
    const names = readdirSync(state.sessions, {withFileTypes: true}).filter((e) => e.isFile() && e.name.endsWith('.json') && !e.name.startsWith('.'))
    for (const {name} of names.sort((a, b) => compareNames(a.name, b.name))) {
      const path = join(state.sessions, name)
      const before = statOf(path)
      const kept = old.get(name)
      if (before === null) continue
      if (kept !== undefined && sameFile(kept, before)) {
        entries.push(kept)
        continue
      }
      changed = true
      if (before.ctimeMs > now - SETTLED_MS || before.mtimeMs > now - SETTLED_MS) continue
      const read = readPlainRecord(path)
      // Facts taken before and after the read: a file changed meanwhile is left to the next refresh.
      if (read !== null && sameFile(before, statOf(path))) entries.push({name, ...before, record: read.record, id: sessionIdOf(read.record.identity)})
    }
    if (!changed && old.size === entries.length) return
    writeFileAtomic(recordIndexPath(state), JSON.stringify({version: INDEX_VERSION, sessions: directoryIno(state.sessions), entries}), 'replace')
  } catch {
    // no index this time: readers read the files
  }
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
