import {randomBytes} from 'node:crypto'
import {lstatSync, mkdirSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {PkError} from '../model/errors.js'
import {readUptime} from '../proc/reader.js'
import {writeFileAtomic} from '../registry/atomic.js'
import {readRegularFile} from '../registry/files.js'
import {StateDir} from '../registry/state-dir.js'

/**
 * The spool: events the agents' hooks left without starting node (`assets/pk-hook.sh`, or `pk hook`),
 * one file per event, named `STAMP-PID` by when it was sent. Readers take pending events into account in
 * memory and change nothing here; the one writer (`fold.ts`) applies them to the records and only then
 * removes them. A file's first line says who sent it and when:
 *
 *   pk-spool 2 AGENT UPTIME PID:START,PID:START,...   the sender's ancestry, nearest first, up to pid 1
 *   pk-spool 1 AGENT PID START UPTIME                 (earlier pk: the sender alone)
 *
 * The rest is the agent's payload.
 */

export interface Link {
  pid: number
  startTime: number
}

export interface SpoolEvent {
  /** The file's name in the spool directory. */
  name: string
  agent: string
  /** Seconds since boot when the hook ran (/proc/uptime): the event's time where the agent gives none. */
  uptime: number
  /** The process ancestry at the event, nearest first (pid and kernel start time of each). */
  chain: Link[]
  payload: string
}

const parseChain = (text: string): Link[] | null => {
  const links: Link[] = []
  for (const part of text.split(',')) {
    const match = /^(\d+):(\d+)$/.exec(part)
    if (!match) return null
    links.push({pid: Number(match[1]), startTime: Number(match[2])})
  }
  return links.length > 0 ? links : null
}

/** Pure: one spool file's text -> the event, or null when it is not one. */
export function parseSpoolText(name: string, text: string): SpoolEvent | null {
  const newline = text.indexOf('\n')
  const head = newline === -1 ? text : text.slice(0, newline)
  const payload = newline === -1 ? '' : text.slice(newline + 1)
  const v2 = /^pk-spool 2 ([a-z0-9_-]+) (\d+(?:\.\d+)?) ([\d:,]+)$/.exec(head)
  if (v2) {
    const chain = parseChain(v2[3]!)
    return chain === null ? null : {name, agent: v2[1]!, uptime: Number(v2[2]), chain, payload}
  }
  const v1 = /^pk-spool 1 ([a-z0-9_-]+) (\d+) (\d+) (\d+(?:\.\d+)?)$/.exec(head)
  if (v1) return {name, agent: v1[1]!, uptime: Number(v1[4]), chain: [{pid: Number(v1[2]), startTime: Number(v1[3])}], payload}
  return null
}

/** Pure: the time a spool file's name says it was sent (its stamp: /proc/uptime's digits), for ordering before reading. */
export function stampOf(name: string): number {
  // pk 0.1's names: PID-START-STAMP-HOOKPID
  const old = /^\d+-\d+-(\d+)-\d+$/.exec(name)
  if (old) return Number(old[1])
  const match = /^(\d+)-/.exec(name)
  return match ? Number(match[1]) : 0
}

/** Pure: events in the order they were sent (the sender's clock, then the name). */
export const inSentOrder = (events: SpoolEvent[]) => [...events].sort((a, b) => a.uptime - b.uptime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))

export const spoolDir = (state: StateDir) => join(state.root, 'spool')

/**
 * The spool directory, only when it is a real directory of this user's (never a link: pk would read,
 * and its writer delete, whatever the link points at); else null.
 */
export function checkedSpool(state: StateDir): string | null {
  const dir = spoolDir(state)
  try {
    const stats = lstatSync(dir)
    return stats.isDirectory() && !stats.isSymbolicLink() && stats.uid === process.getuid!() ? dir : null
  } catch {
    return null
  }
}

/** The pending files' names, oldest first (by their stamp); temp files of hooks still writing are not events. */
export function pendingNames(dir: string): string[] {
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => !n.startsWith('.'))
  } catch {
    return []
  }
  return names.sort((a, b) => stampOf(a) - stampOf(b) || (a < b ? -1 : a > b ? 1 : 0))
}

/** The most pending events a reader takes into account: the newest ones (older ones are superseded anyway). */
export const READER_PENDING_LIMIT = 256

export interface Pending {
  events: SpoolEvent[]
  /** Files that are not events (garbage, too large, not regular): the writer logs and removes them. */
  unreadable: string[]
  /** How many pending files there were in all (a reader may have read only the newest). */
  total: number
}

/**
 * Read pending events, in the order they were sent. Reads only. A reader takes the newest `limit` (older
 * ones are superseded anyway); the writer the oldest, so that events are applied in the order sent.
 */
export function readPending(state: StateDir | null, limit = Infinity, take: 'newest' | 'oldest' = 'newest'): Pending {
  const dir = state === null ? null : checkedSpool(state)
  if (dir === null) return {events: [], unreadable: [], total: 0}
  const names = pendingNames(dir)
  const events: SpoolEvent[] = []
  const unreadable: string[] = []
  for (const name of take === 'newest' ? names.slice(Math.max(0, names.length - limit)) : names.slice(0, limit)) {
    try {
      const event = parseSpoolText(name, readRegularFile(join(dir, name), 128 * 1024))
      if (event) events.push(event)
      else unreadable.push(name)
    } catch {
      // Gone meanwhile (applied by the writer), a FIFO, too large: not an event.
      unreadable.push(name)
    }
  }
  return {events: inSentOrder(events), unreadable, total: names.length}
}

/**
 * Put one event into the spool (the writer's side of it, as the sh hook does): written whole, then
 * renamed into place under a name that orders it by when it was sent. The caller checked that it may write.
 */
export function enqueue(state: StateDir, agent: string, chain: Link[], payload: string): string {
  const uptime = readUptime()
  if (uptime === null || chain.length === 0) throw new PkError('no-view', 'cannot date the event: /proc/uptime is unreadable')
  const dir = spoolDir(state)
  mkdirSync(dir, {recursive: true, mode: 0o700})
  if (checkedSpool(state) === null) throw new PkError('unsafe-state-dir', `${dir} is not a directory of this user's (a link?); pk doctor explains`)
  const head = `pk-spool 2 ${agent} ${uptime.toFixed(2)} ${chain.map((l) => `${l.pid}:${l.startTime}`).join(',')}\n`
  const file = join(dir, `${uptime.toFixed(2).replace('.', '')}-${process.pid}-${randomBytes(3).toString('hex')}`)
  writeFileAtomic(file, head + payload, 'create')
  return file
}
