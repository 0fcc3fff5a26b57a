import {constants, accessSync} from 'node:fs'

import {PkError} from '../model/errors.js'
import {ProcStat} from './parse.js'
import {PsTable, UNKNOWN_PS_VIEW, psCaughtSignals, psDialect, psMeasureView, psStat, sysctlBootId} from './ps.js'
import {
  PROC_ROOT,
  readCaughtSignals,
  readChildren,
  readCmdline,
  readCwd,
  readExe,
  readStat,
  readUptime,
  startTimeToDate,
  CLOCK_TICKS_PER_SECOND,
} from './reader.js'
import {View, ViewMeasurement, measureProcView, readProcView} from './view.js'

/**
 * Where everything pk learns about processes comes from: one interface, two sources.
 * - `proc`: Linux's /proc (start times in hundredths of a second after boot, pid namespaces).
 * - `ps`: one `ps` call for the whole table per reading, and `sysctl` for the boot (macOS, and any system
 *   without /proc); start times in whole seconds.
 * Chosen by what the machine has, or forced with PK_PROCESS_SOURCE=proc|ps. Identities taken by one source
 * are not compared with the other's: the ps source's view names its pid namespace `ps:INODE` (or `ps`
 * where there are none), so a state directory written under one source is, to the other, another
 * namespace's: shown unverified, never written (see registry/ownership.ts).
 */

/** One reading of the process table; each fact is read at most once per table. */
export interface ProcessTable {
  stat(pid: number): ProcStat | null
  argv(pid: number): string[] | null
  /** The working directory, where the source can tell (the ps source cannot: null). */
  cwd(pid: number): string | null
  children(pid: number): number[]
  startedAt(startTime: number): string | null
  /** The executable as the kernel names it (/proc/PID/exe, or ps' `comm`), or null when it cannot be read. */
  exe(pid: number): string | null
  /** The table read ahead, so that pairing does not wait for it (the ps source's one call). */
  ready?(): Promise<void>
  /** The pid namespaces of a few pids, where the source reads them apart from its table (ps). */
  namespaces?(pids: readonly number[]): Map<number, string | null>
}

export type SourceName = 'proc' | 'ps'

/** The spool's clock: seconds since boot (/proc/uptime) or since the epoch (where there is no /proc). */
export interface SpoolClock {
  kind: 'uptime' | 'epoch'
  seconds: number
}

export interface ProcessSource {
  readonly name: SourceName
  /** Whether this source sees pid namespaces (Linux); where not, the namespace guard does not apply. */
  readonly namespaces: boolean
  /** A fresh table: its facts read once each, never shared with another. */
  table(): ProcessTable
  /** One process as it is now (a lock's holder, a pane's process just started). */
  stat(pid: number): ProcStat | null
  /** Which boot and pid namespace this pk sees the world from; from `table` where one is given. */
  measureView(table?: ProcessTable): ViewMeasurement
  startDate(startTime: number): Date | null
  /** How coarse start times are: two processes that started within this long of each other may read alike. */
  readonly startResolutionMs: number
  /** The signals `pid` has a handler for, or null when it is gone or the source cannot tell. */
  caughtSignals(pid: number): bigint | null
  clock(): SpoolClock | null
}

export const procSource: ProcessSource = {
  name: 'proc',
  namespaces: true,
  table() {
    // Each reader says "gone" with null, never undefined: one lookup a call (pairing asks several times a row).
    const memo = <T>(read: (pid: number) => T) => {
      const cache = new Map<number, T>()
      return (pid: number) => {
        let fact = cache.get(pid)
        if (fact === undefined) cache.set(pid, (fact = read(pid)))
        return fact
      }
    }
    return {
      stat: memo<ProcStat | null>(readStat),
      argv: memo(readCmdline),
      cwd: memo(readCwd),
      exe: memo(readExe),
      children: readChildren,
      startedAt: (ticks) => startTimeToDate(ticks)?.toISOString() ?? null,
    }
  },
  stat: readStat,
  measureView: () => measureProcView(),
  startDate: startTimeToDate,
  startResolutionMs: 1000 / CLOCK_TICKS_PER_SECOND,
  caughtSignals: readCaughtSignals,
  clock() {
    const seconds = readUptime()
    return seconds === null ? null : {kind: 'uptime', seconds}
  },
}

/** The ps source (see ps.ts). */
export function psSource(): ProcessSource {
  return {
    name: 'ps',
    namespaces: psDialect() === 'procps',
    table: () => new PsTable(),
    stat: psStat,
    measureView: (look) => psMeasureView(look),
    startDate: (seconds) => new Date(seconds * 1000),
    startResolutionMs: 1000,
    caughtSignals: psCaughtSignals,
    clock: () => ({kind: 'epoch', seconds: Date.now() / 1000}),
  }
}

/** Pure: the source to use, from PK_PROCESS_SOURCE and whether /proc can be read here. */
export function chooseSource(forced: string | undefined, hasProc: boolean): SourceName {
  if (forced === 'proc' || forced === 'ps') return forced
  if (forced !== undefined && forced !== '') throw new PkError('bad-config', `PK_PROCESS_SOURCE must be proc or ps, not ${JSON.stringify(forced)}`)
  return hasProc ? 'proc' : 'ps'
}

function procReadable(): boolean {
  try {
    accessSync(`${PROC_ROOT}/self/stat`, constants.R_OK)
    return true
  } catch {
    return false
  }
}

let chosen: {key: string | undefined; source: ProcessSource} | undefined

/** The source this pk uses (chosen once per process, again only if PK_PROCESS_SOURCE changes, as in tests). */
export function processSource(): ProcessSource {
  const key = process.env.PK_PROCESS_SOURCE
  if (chosen === undefined || chosen.key !== key) {
    const name = chooseSource(key, key === 'proc' || key === 'ps' ? true : procReadable())
    chosen = {key, source: name === 'proc' ? procSource : psSource()}
  }
  return chosen.source
}

export const measureView = (table?: ProcessTable): ViewMeasurement => processSource().measureView(table)

/**
 * The view for readers: boot and pid namespace as far as they can be read, with the measurement that
 * says whether they can be trusted (when not, nothing read here is paired by pid). Throws only when even
 * the boot id or the namespace cannot be read.
 */
export function readView(table?: ProcessTable): {view: View; measurement: ViewMeasurement} {
  const source = processSource()
  if (source.name === 'proc') return readProcView()
  const measurement = source.measureView(table)
  // Without a coherent view nothing is paired; the boot, where sysctl names it, still tells this boot's
  // records (unverified) from an earlier one's (exited).
  return {view: measurement.ok ? measurement.view : {...UNKNOWN_PS_VIEW, bootId: sysctlBootId() ?? UNKNOWN_PS_VIEW.bootId}, measurement}
}
