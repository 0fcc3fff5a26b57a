import {PkError} from '../model/errors.js'
import {parseNsPids, parseStat} from './parse.js'
import {PROC_ROOT, readBootId, readOrNull, readPidNamespace} from './reader.js'

/**
 * Which boot and pid namespace a pk process sees the world from. pk state is only meaningful where it
 * was written: a pid in a container names another process, or none.
 */

/** The kernel's fixed inode number for the initial pid namespace (PROC_PID_INIT_INO). */
export const INITIAL_PID_NS = '4026531836'

export interface View {
  bootId: string
  pidNs: string
  /** Start time of this namespace's pid 1: tells apart two namespaces that got the same inode number. */
  pid1StartTime: number
}

export type ViewMeasurement = {ok: true; view: View} | {ok: false; reason: string}

export interface ViewFacts {
  bootId: string | null
  pidNs: string | null
  nsPids: number[] | null
  pid1StartTime: number | null
}

/** Pure: facts read from /proc -> a coherent view, or why there is none. */
export function judgeView(facts: ViewFacts): ViewMeasurement {
  if (facts.bootId === null) return {ok: false, reason: 'cannot read the boot id from /proc'}
  if (facts.pidNs === null) return {ok: false, reason: 'cannot read /proc/self/ns/pid'}
  if (facts.nsPids === null || facts.nsPids.length === 0) return {ok: false, reason: 'cannot read NSpid from /proc/self/status'}
  if (facts.nsPids.length !== 1) {
    return {ok: false, reason: `/proc belongs to an ancestor pid namespace (NSpid: ${facts.nsPids.join(' ')}); mount a procfs for this namespace`}
  }
  if (facts.pid1StartTime === null) return {ok: false, reason: 'cannot read /proc/1/stat'}
  return {ok: true, view: {bootId: facts.bootId, pidNs: facts.pidNs, pid1StartTime: facts.pid1StartTime}}
}

export function measureView(): ViewMeasurement {
  let bootId: string | null
  try {
    bootId = readBootId()
  } catch {
    bootId = null
  }
  const status = readOrNull(`${PROC_ROOT}/self/status`)
  const pid1 = readOrNull(`${PROC_ROOT}/1/stat`)
  return judgeView({
    bootId,
    pidNs: readPidNamespace('self'),
    nsPids: status === null ? null : parseNsPids(status),
    pid1StartTime: pid1 === null ? null : (parseStat(pid1)?.startTime ?? null),
  })
}

export const isInitial = (view: View) => view.pidNs === INITIAL_PID_NS

export const sameView = (a: View, b: View) => a.bootId === b.bootId && a.pidNs === b.pidNs && a.pid1StartTime === b.pid1StartTime

export function describeView(view: View): string {
  return `pid namespace ${view.pidNs}${isInitial(view) ? ' (the initial one)' : ''}, boot ${view.bootId.slice(0, 8)}`
}

/**
 * The view for readers: boot and pid namespace as far as they can be read, with the measurement that
 * says whether they can be trusted (when not, nothing read here is paired by pid). Throws only when even
 * the boot id or the namespace cannot be read.
 */
export function readView(): {view: View; measurement: ViewMeasurement} {
  const measurement = measureView()
  if (measurement.ok) return {view: measurement.view, measurement}
  const bootId = readBootId()
  const pidNs = readPidNamespace('self')
  if (pidNs === null)
    throw new PkError('no-view', 'cannot read /proc/self/ns/pid; pk needs /proc to tell which processes are whose. Run pk where /proc is mounted and readable.')
  return {view: {bootId, pidNs, pid1StartTime: -1}, measurement}
}
