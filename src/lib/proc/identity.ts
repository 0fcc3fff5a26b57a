import {sha256Hex} from '../model/sha256.js'
import {ProcStat} from './parse.js'
import {processSource} from './source.js'
import {View} from './view.js'

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

export function identityKey(identity: ProcessIdentity): string {
  return `${identity.bootId}/${identity.pidNs}/${identity.pid}/${identity.startTime}`
}

export const ID_LENGTH = 8

/**
 * A session id is derived from the process identity, never assigned: the same process always gets the
 * same id, whichever record claims it and however often pk restarts.
 */
export function sessionIdOf(identity: ProcessIdentity): string {
  const key = identityKey(identity)
  let id = idMemo.get(key)
  if (id === undefined) {
    id = sha256Hex(key).slice(0, ID_LENGTH)
    if (idMemo.size >= 10_000) idMemo.clear()
    idMemo.set(key, id)
  }
  return id
}

/** A pure function's answers: a watcher hashes the same thousand identities every second otherwise. */
const idMemo = new Map<string, string>()
export function sameIdentity(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.bootId === b.bootId && a.pidNs === b.pidNs && a.pid === b.pid && a.startTime === b.startTime
}

export function identityFromStat(view: Pick<View, 'bootId' | 'pidNs'>, stat: ProcStat): ProcessIdentity {
  return {bootId: view.bootId, pidNs: view.pidNs, pid: stat.pid, startTime: stat.startTime}
}

export type Liveness = {alive: true; stat: ProcStat} | {alive: false; reason: 'other-boot' | 'foreign-namespace' | 'gone' | 'pid-reused' | 'zombie'}

/**
 * Pure: is `identity` the process that `stat` (read just now in `view`) describes? A pid with another
 * start time is a different process; a pid from another boot or namespace cannot be checked here.
 */
export function judgeLiveness(view: Pick<View, 'bootId' | 'pidNs'>, identity: ProcessIdentity, stat: ProcStat | null): Liveness {
  if (identity.bootId !== view.bootId) return {alive: false, reason: 'other-boot'}
  if (identity.pidNs !== view.pidNs) return {alive: false, reason: 'foreign-namespace'}
  if (stat === null) return {alive: false, reason: 'gone'}
  if (stat.startTime !== identity.startTime) return {alive: false, reason: 'pid-reused'}
  if (stat.state === 'Z' || stat.state === 'X') return {alive: false, reason: 'zombie'}
  return {alive: true, stat}
}

/** Whether the identity was taken in this boot and pid namespace, so its pid can be checked here. */
export const isLocal = (view: Pick<View, 'bootId' | 'pidNs'>, identity: ProcessIdentity) => identity.bootId === view.bootId && identity.pidNs === view.pidNs

/** Is the process `identity` names alive right now? Reads the process source (or `stat`) only for a local identity. */
export function checkLiveness(
  view: Pick<View, 'bootId' | 'pidNs'>,
  identity: ProcessIdentity,
  stat: (pid: number) => ProcStat | null = (pid) => processSource().stat(pid),
): Liveness {
  return judgeLiveness(view, identity, isLocal(view, identity) ? stat(identity.pid) : null)
}
