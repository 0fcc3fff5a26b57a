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

/** The view as /proc shows it (the proc source's; see source.ts for the one pk uses). */
export function measureProcView(): ViewMeasurement {
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

/**
 * The ps source's pid namespace: `ps:INODE` where ps reads one (procps' `pidns`), `ps` on a system without
 * pid namespaces. Never equal to a /proc one: identities of one source are not compared with the other's.
 */
export const PS_NO_NAMESPACES = 'ps'
export const psNamespace = (inode: string | null) => (inode === null ? PS_NO_NAMESPACES : `ps:${inode}`)

/** The host's view: the initial pid namespace, by either source, or a system that has no pid namespaces. */
export const isInitial = (view: View) => view.pidNs === INITIAL_PID_NS || view.pidNs === psNamespace(INITIAL_PID_NS) || view.pidNs === PS_NO_NAMESPACES

/** Pure: whether a pid namespace's name (as owner.json and records keep it) is one of the forms above. */
export const isNamespaceName = (name: string) => /^(\d+|ps(:\d+)?)$/.test(name)

export const sameView = (a: View, b: View) => a.bootId === b.bootId && a.pidNs === b.pidNs && a.pid1StartTime === b.pid1StartTime

export function describeView(view: View): string {
  if (view.pidNs === PS_NO_NAMESPACES) return `a system without pid namespaces (processes from ps), boot ${view.bootId.slice(0, 20)}`
  const ps = view.pidNs.startsWith('ps:')
  const ns = ps ? view.pidNs.slice(3) : view.pidNs
  return `pid namespace ${ns}${isInitial(view) ? ' (the initial one)' : ''}${ps ? ' (processes from ps)' : ''}, boot ${view.bootId.slice(0, 8)}`
}

/**
 * The view for readers: boot and pid namespace as far as they can be read, with the measurement that
 * says whether they can be trusted (when not, nothing read here is paired by pid). Throws only when even
 * the boot id or the namespace cannot be read.
 */
export function readProcView(): {view: View; measurement: ViewMeasurement} {
  const measurement = measureProcView()
  if (measurement.ok) return {view: measurement.view, measurement}
  const bootId = readBootId()
  const pidNs = readPidNamespace('self')
  if (pidNs === null)
    throw new PkError('no-view', 'cannot read /proc/self/ns/pid; pk needs /proc to tell which processes are whose. Run pk where /proc is mounted and readable.')
  return {view: {bootId, pidNs, pid1StartTime: -1}, measurement}
}
