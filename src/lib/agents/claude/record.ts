import {closeSync, constants, fstatSync, lstatSync, openSync} from 'node:fs'
import {join} from 'node:path'

import {errnoCode} from '../../model/errors.js'
import {readWhole} from '../../proc/reader.js'
import {OwnIdentity, OwnPlace, OwnReading, OwnState} from '../own-state.js'

/**
 * Claude Code's live record of itself: `<config>/sessions/<pid>.json` (config: $CLAUDE_CONFIG_DIR, else
 * ~/.claude), written by every interactive Claude since about 2.1.224 and rewritten within about 0.25 s of each
 * change of its state (checked on 2.1.332 and 2.1.337; test/fixtures/claude-records). What pk takes from it:
 * `status` (idle | busy | waiting | shell), `waitingFor`, `statusUpdatedAt` and `version`, only when its `pid`
 * and `procStart` (/proc/PID/stat field 22, a string) are the session's process and its `pidDomain` (where
 * present: `linux:<machine-id>:pid:[<inode>]`) names the pid namespace pk reads that process in. A record
 * left by a killed Claude names a dead pid or another start time: not believed. Older releases' `pid-<n>.json`
 * (three keys) are never opened. A failed turn, a 429 and an interrupt all read `idle` here: the screen and
 * the hooks tell those apart.
 */

/** A record is a few hundred bytes; anything past this is not Claude's. */
const RECORD_LIMIT = 64 * 1024

const STATES: Readonly<Record<string, OwnState>> = {idle: 'idle', busy: 'working', waiting: 'waiting', shell: 'working'}

/** Pure: the record's text, believed for this process or refused with why. */
export function parseClaudeRecord(text: string, who: OwnIdentity): OwnReading {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return {refused: 'not JSON'}
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {refused: 'not a JSON object'}
  const r = data as Record<string, unknown>
  if (r.pid !== who.pid) return {refused: `its pid ${String(r.pid)} is not the session's ${who.pid}`}
  if (typeof r.procStart !== 'string' || r.procStart !== String(who.startTime))
    return {refused: `its start time ${String(r.procStart)} is not the process's ${who.startTime} (a record left by an earlier process)`, stale: true}
  if (r.pidDomain !== undefined) {
    const ns = typeof r.pidDomain === 'string' ? /:pid:\[(\d+)\]$/.exec(r.pidDomain)?.[1] : undefined
    if (ns !== who.pidNs) return {refused: `it was written in another pid namespace (${String(r.pidDomain)})`}
  }
  const state = typeof r.status === 'string' ? STATES[r.status] : undefined
  if (state === undefined) return {refused: `its status ${JSON.stringify(r.status ?? null)} is not one pk knows`}
  const since = [r.statusUpdatedAt, r.updatedAt].find((t): t is number => typeof t === 'number' && Number.isFinite(t) && t > 0)
  if (since === undefined) return {refused: 'it says not since when'}
  const detail = state === 'waiting' && typeof r.waitingFor === 'string' ? r.waitingFor.slice(0, 200) : null
  const version = typeof r.version === 'string' && r.version.length <= 64 ? r.version : null
  return {word: {state, since, detail, version, channel: 'claude-record'}}
}

/** Claude's sessions folder for a process: its $CLAUDE_CONFIG_DIR, else its HOME's .claude. */
export function claudeSessionsDir(env: OwnPlace['env']): string | null {
  const config = env('CLAUDE_CONFIG_DIR')
  if (config) return join(config, 'sessions')
  const home = env('HOME')
  return home ? join(home, '.claude', 'sessions') : null
}

/** Why a folder or file is not one only this user can write (owner and mode), or null. */
function unsafe(what: string, stats: {uid: number; mode: number}, uid: number): string | null {
  if (stats.uid !== uid) return `${what} belongs to uid ${stats.uid}`
  if ((stats.mode & 0o022) !== 0) return `${what} is writable by others (mode ${(stats.mode & 0o777).toString(8)})`
  return null
}

/**
 * The record of one process: read without following a link, without blocking on a FIFO, only from a folder
 * and a file of this user's that nobody else can write. Reads; never writes, never creates anything.
 */
export function readClaudeRecord(who: OwnIdentity, where: OwnPlace): OwnReading {
  const dir = claudeSessionsDir(where.env)
  if (dir === null) return null
  const path = join(dir, `${who.pid}.json`)
  let fd: number
  try {
    const folder = lstatSync(dir)
    if (folder.isSymbolicLink()) return {refused: `${dir} is a symbolic link`}
    if (!folder.isDirectory()) return {refused: `${dir} is not a folder`}
    const bad = unsafe(dir, folder, where.uid)
    if (bad !== null) return {refused: bad}
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    if (code === 'ELOOP') return {refused: `${path} is a symbolic link`}
    return {refused: `${path}: ${code ?? String(error)}`}
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) return {refused: `${path} is not a regular file`}
    const bad = unsafe(path, stats, where.uid)
    if (bad !== null) return {refused: bad}
    return parseClaudeRecord(readWhole(fd, path, RECORD_LIMIT), who)
  } catch (error) {
    return {refused: `${path}: ${error instanceof Error ? error.message : String(error)}`}
  } finally {
    closeSync(fd)
  }
}
