import {lstatSync, readdirSync, readFileSync} from 'node:fs'

import {entryLiveness, lockDir, parseLockEntry} from '../registry/lock.js'
import {isPkWriterArgv, writerMarkPath} from '../events/writer-mark.js'
import {processSource} from '../proc/source.js'
import {View} from '../proc/view.js'
import {StateDir} from '../registry/state-dir.js'

/**
 * What claims the state directory's lock and the writer's name, as the kernel judges the processes they
 * name: a claim that never dies (another pid namespace's, a process that is no pk) blocks every write, or
 * keeps every writer from starting, and only doctor says so.
 */
export interface LockClaim {
  name: string
  kind: 'H' | 'W'
  pid: number
  pidNs: string
  /** alive (and a pk), dead, unknown (another pid namespace: pk cannot check it from here), or not-pk (alive, but no pk). */
  judged: 'alive' | 'dead' | 'unknown' | 'not-pk'
  /** The named process's command line, where it is alive here. */
  command: string | null
}

export interface WriterClaim {
  /** What is at the writer's name: nothing, pk's plain file, or something pk never makes there. */
  kind: 'none' | 'file' | 'link' | 'fifo' | 'directory' | 'other'
  pid: number | null
  /** For a file: whom it names, judged like a lock claim (a dead name is harmless: the next hook replaces it). */
  judged: 'alive' | 'dead' | 'not-pk' | null
  command: string | null
}

/** Pure: whether an argv is a pk's (node running pk's entry): a lock is only ever held by one. */
export const isPkArgv = (argv: string[] | null) =>
  argv !== null && argv.some((word) => /(^|\/)(run\.js|pk|fast-path\.cjs)$/.test(word) || word.endsWith('/bin/pk'))

export function gatherClaims(state: StateDir, view: Pick<View, 'bootId' | 'pidNs'>): {lock: LockClaim[]; writer: WriterClaim} {
  const source = processSource()
  const table = source.table()
  const commandOf = (pid: number) => table.argv(pid)
  let names: string[] = []
  try {
    names = readdirSync(lockDir(state))
  } catch {
    names = []
  }
  const lock: LockClaim[] = []
  for (const name of names) {
    const entry = parseLockEntry(name)
    if (entry === null) continue
    const local = entry.bootId === view.bootId && entry.pidNs === view.pidNs
    const liveness = entryLiveness(view, entry, local ? source.stat(entry.pid) : null)
    const argv = liveness === 'alive' ? commandOf(entry.pid) : null
    const judged = liveness === 'alive' && !isPkArgv(argv) ? 'not-pk' : liveness
    lock.push({name, kind: entry.kind, pid: entry.pid, pidNs: entry.pidNs, judged, command: argv === null ? null : argv.join(' ')})
  }
  return {lock, writer: writerClaim(writerMarkPath(state), commandOf)}
}

function writerClaim(path: string, commandOf: (pid: number) => string[] | null): WriterClaim {
  let stats
  try {
    stats = lstatSync(path)
  } catch {
    return {kind: 'none', pid: null, judged: null, command: null}
  }
  const kind = stats.isSymbolicLink() ? 'link' : stats.isFIFO() ? 'fifo' : stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other'
  if (kind !== 'file') return {kind, pid: null, judged: null, command: null}
  let text = ''
  try {
    text = readFileSync(path, 'utf8').slice(0, 1024)
  } catch {
    text = ''
  }
  const [pid, start] = text.trim().split(/\s+/).map(Number)
  if (pid === undefined || !Number.isSafeInteger(pid) || pid <= 0) return {kind, pid: null, judged: 'dead', command: null}
  const stat = processSource().stat(pid)
  if (stat === null || stat.startTime !== start || stat.state === 'Z') return {kind, pid, judged: 'dead', command: null}
  const argv = commandOf(pid)
  return {kind, pid, judged: isPkWriterArgv(argv) ? 'alive' : 'not-pk', command: argv === null ? null : argv.join(' ')}
}

/** Whether a claim is for pk doctor to name: it blocks writes or writers and never goes by itself. */
export const blocking = (claims: {lock: LockClaim[]; writer: WriterClaim}) => ({
  lock: claims.lock.filter((c) => c.judged === 'unknown' || c.judged === 'not-pk'),
  writer: claims.writer.kind === 'file' ? (claims.writer.judged === 'not-pk' ? claims.writer : null) : claims.writer.kind === 'none' ? null : claims.writer,
})
