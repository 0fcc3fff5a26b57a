import {unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {processSource} from '../proc/source.js'
import {writeFileAtomic} from '../registry/atomic.js'
import {readRegularFile} from '../registry/files.js'
import {StateDir} from '../registry/state-dir.js'
import {checkedSpool, oldestPendingAge} from './spool.js'

const readStat = (pid: number) => processSource().stat(pid)

/**
 * The writer that pk's sh hook started names itself in `writer` (its pid and start time), so that hooks
 * start no second one while it runs. Before it ends, it takes its name away and then looks at the spool
 * once more: an event whose hook still saw the name was in the spool by then.
 */
export function writerMarkPath(state: StateDir): string {
  return join(state.root, 'writer')
}

/**
 * Whether `writer` names a live writer (pid and start time, as the sh hook checks it), or a hook starting
 * one: a pk (its argv says `notify --fold`, or `hook`). A name pointing at another live process (pid 1, a
 * forged file) names no writer: taken for one, it kept every writer from starting.
 */
export function writerRunning(state: StateDir): boolean {
  let text: string
  try {
    text = readRegularFile(writerMarkPath(state), 1024)
  } catch {
    return false
  }
  const [pid, start] = text.trim().split(/\s+/).map(Number)
  const stat = pid === undefined || !Number.isSafeInteger(pid) ? null : readStat(pid)
  if (stat === null || stat.startTime !== start || stat.state === 'Z') return false
  return isPkWriterArgv(processSource().table().argv(pid!))
}

/** Pure: whether a process's argv is a pk writer's (`notify --fold`) or a hook's that starts one (`pk hook`, the sh hook). */
export const isPkWriterArgv = (argv: string[] | null) =>
  argv !== null && (argv.includes('--fold') || argv.includes('hook') || argv.some((word) => word.endsWith('pk-hook.sh')))

/**
 * Start the writer unless one runs (`start` spawns it and returns its pid): `pk hook`'s side of what the sh
 * hook does. The name is made only where none is, so of two at once one starts it.
 */
export function startWriterOnce(state: StateDir, start: () => number | null | undefined): void {
  const path = writerMarkPath(state)
  if (writerRunning(state)) return
  try {
    unlinkSync(path)
  } catch {
    // none there
  }
  const self = readStat(process.pid)
  try {
    writeFileSync(path, `${process.pid} ${self?.startTime ?? 0}\n`, {flag: 'wx', mode: 0o600})
  } catch {
    return // another hook made it first: its writer runs
  }
  const pid = start()
  if (pid === undefined || pid === null) {
    unlinkSync(path)
    return
  }
  // Asked again while it comes back empty, as the sh hook does: a process in the middle of its exec can be
  // missing from one look (ps reads several files of it). Named all the same where it stays so: a writer
  // that finds its name gone takes itself for one run by hand and does not come back for what it could
  // not apply yet (on a loaded machine, all of it).
  let stat = readStat(pid)
  for (let tries = 0; stat === null && tries < 5; tries++) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
    stat = readStat(pid)
  }
  writeFileAtomic(path, `${pid} ${stat?.startTime ?? 0}\n`, 'replace')
}

/** Whether `writer` names this process: the writer a hook started, in the background (not a pk run by hand). */
export const namesMe = (state: StateDir): boolean => markedPid(state) === process.pid

/** Who `writer` names (pid), or null. */
function markedPid(state: StateDir): number | null {
  try {
    const pid = Number(readRegularFile(writerMarkPath(state), 1024).trim().split(/\s+/)[0])
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

/**
 * Take this process's name out of `writer`, if it is there; whether it was. The hook that started this
 * writer names it right after starting it: while the name is still its own (a hook stalled in between),
 * this waits for it, a bounded while, so that the name it then writes is not left standing for nobody.
 */
export async function releaseWriterMark(state: StateDir, waitMs = 20_000): Promise<boolean> {
  const until = Date.now() + waitMs
  while (markedPid(state) === process.ppid && process.ppid > 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
  if (markedPid(state) !== process.pid) return false
  try {
    unlinkSync(writerMarkPath(state))
  } catch {
    // gone already
  }
  return true
}

/**
 * How long events may wait in the spool with no writer before pk takes them for stranded: hooks start the
 * writer only for events that may need the user, and a writer that was killed, or gave up after its
 * persistence, leaves what it did not apply to the next such event, which may never come.
 */
export const STRANDED_AFTER_S = 30

/** Whether pending events were left with no writer to apply them (reads only: the spool and the writer's name). */
export function eventsStranded(state: StateDir): boolean {
  const dir = checkedSpool(state)
  const clock = processSource().clock()
  if (dir === null || clock === null) return false
  const age = oldestPendingAge(dir, clock.seconds)
  return age !== null && age >= STRANDED_AFTER_S && !writerRunning(state)
}
