import {createHash} from 'node:crypto'

import {PkError} from '../errors.js'
import {ProcStat} from './parse.js'
import {readBootId, readPidNamespace, readStat} from './reader.js'

/**
 * A process named by kernel facts: which boot, which pid namespace, which pid, and when it started
 * (clock ticks after boot). A recycled pid has another start time, so the four together name one process.
 */
export interface ProcessIdentity {
  bootId: string
  pidNs: string
  pid: number
  startTime: number
}

/** Where the caller stands: the boot and pid namespace its /proc speaks for. */
export interface View {
  bootId: string
  pidNs: string
}

export function currentView(): View {
  const pidNs = readPidNamespace('self')
  if (pidNs === null) throw new PkError('no-view', 'cannot read /proc/self/ns/pid; pk needs /proc to tell which processes are whose. Run pk where /proc is mounted and readable.')
  return {bootId: readBootId(), pidNs}
}

export function identityKey(identity: ProcessIdentity): string {
  return `${identity.bootId}/${identity.pidNs}/${identity.pid}/${identity.startTime}`
}

export const ID_LENGTH = 8

/**
 * A session id is derived from the process identity, never assigned: the same process always gets the
 * same id, whichever record claims it and however often pk restarts.
 */
export function sessionIdOf(identity: ProcessIdentity): string {
  return createHash('sha256').update(identityKey(identity)).digest('hex').slice(0, ID_LENGTH)
}

export function sameIdentity(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.bootId === b.bootId && a.pidNs === b.pidNs && a.pid === b.pid && a.startTime === b.startTime
}

export function identityFromStat(view: View, stat: ProcStat): ProcessIdentity {
  return {bootId: view.bootId, pidNs: view.pidNs, pid: stat.pid, startTime: stat.startTime}
}

export type Liveness =
  | {alive: true; stat: ProcStat}
  | {alive: false; reason: 'other-boot' | 'foreign-namespace' | 'gone' | 'pid-reused' | 'zombie'}

/**
 * Pure: is `identity` the process that `stat` (read just now in `view`) describes? A pid with another
 * start time is a different process; a pid from another boot or namespace cannot be checked here.
 */
export function judgeLiveness(view: View, identity: ProcessIdentity, stat: ProcStat | null): Liveness {
  if (identity.bootId !== view.bootId) return {alive: false, reason: 'other-boot'}
  if (identity.pidNs !== view.pidNs) return {alive: false, reason: 'foreign-namespace'}
  if (stat === null) return {alive: false, reason: 'gone'}
  if (stat.startTime !== identity.startTime) return {alive: false, reason: 'pid-reused'}
  if (stat.state === 'Z' || stat.state === 'X') return {alive: false, reason: 'zombie'}
  return {alive: true, stat}
}

export function checkLiveness(view: View, identity: ProcessIdentity): Liveness {
  const local = identity.bootId === view.bootId && identity.pidNs === view.pidNs
  return judgeLiveness(view, identity, local ? readStat(identity.pid) : null)
}
