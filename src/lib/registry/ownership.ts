import {join} from 'node:path'

import {errnoCode, PkError} from '../model/errors.js'
import {View, ViewMeasurement, describeView, isInitial, isNamespaceName, sameView} from '../proc/view.js'
import {measureView} from '../proc/source.js'
import {writeFileAtomic} from './atomic.js'
import {NotRegularFileError, readRegularFile} from './files.js'
import {HeldLock, withStateLock} from './lock.js'
import {readRecords, refreshRecordIndex} from './records.js'
import {StateDir} from './state-dir.js'

/**
 * Which pid namespace owns the state directory, and the guard every writer goes through: pk state is only
 * meaningful where it was written, so only the owning namespace writes.
 */

export type OwnerDecision = {action: 'write'} | {action: 'enrol'; why: string} | {action: 'refuse'; reason: string}

/**
 * Pure: may a writer with `view` write to a state directory owned by `owner` (null: nobody yet) that
 * holds `recordCount` records? The rules, in order:
 * - the owner writes;
 * - an unowned directory is enrolled by any writer while it is empty, and only by the initial pid
 *   namespace once it holds records (those were written by a pk from before ownership existed, on the host);
 * - an owner from an earlier boot is taken over by the initial namespace of this boot, and by another
 *   namespace only if the old owner was not the initial one either (a container's own state directory);
 * - the initial namespace takes over a directory owned by another namespace only while it holds no records;
 * - everybody else is refused.
 */
export function decideWrite(view: View, owner: View | null, recordCount: number): OwnerDecision {
  if (owner === null) {
    if (recordCount === 0) return {action: 'enrol', why: 'first writer of an empty state directory'}
    if (isInitial(view)) return {action: 'enrol', why: 'the initial pid namespace enrols existing records'}
    return {
      action: 'refuse',
      reason: `the state directory holds ${recordCount} record(s) and no owner; only the initial pid namespace may enrol it, and this pk runs in ${describeView(view)}`,
    }
  }
  if (sameView(view, owner)) return {action: 'write'}
  if (owner.bootId !== view.bootId) {
    if (isInitial(view)) return {action: 'enrol', why: 'the owner is from an earlier boot'}
    if (!isInitial(owner)) return {action: 'enrol', why: "the owner is a namespace from an earlier boot; this is a container's own state"}
    return {action: 'refuse', reason: `the state directory belongs to the initial pid namespace (from an earlier boot); this pk runs in ${describeView(view)}`}
  }
  if (isInitial(view) && recordCount === 0) return {action: 'enrol', why: 'the initial pid namespace takes over an empty state directory'}
  return {action: 'refuse', reason: `the state directory belongs to ${describeView(owner)}; this pk runs in ${describeView(view)}`}
}

const OWNER_VERSION = 1
const ownerPath = (state: StateDir) => join(state.root, 'owner.json')

export type OwnerRead = {ok: true; owner: View | null} | {ok: false; reason: string}

/** Pure: owner.json text -> owner view, or why it cannot be trusted. */
export function parseOwner(text: string): OwnerRead {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return {ok: false, reason: 'owner.json is not valid JSON'}
  }
  const o = data as Record<string, unknown>
  if (typeof o !== 'object' || o === null || o.version !== OWNER_VERSION) return {ok: false, reason: 'owner.json has an unknown version'}
  if (typeof o.bootId !== 'string' || typeof o.pidNs !== 'string' || !isNamespaceName(o.pidNs) || !Number.isSafeInteger(o.pid1StartTime)) {
    return {ok: false, reason: 'owner.json is malformed'}
  }
  return {ok: true, owner: {bootId: o.bootId, pidNs: o.pidNs, pid1StartTime: o.pid1StartTime as number}}
}

export function readOwner(state: StateDir | null): OwnerRead {
  if (state === null) return {ok: true, owner: null}
  let text: string
  try {
    text = readRegularFile(ownerPath(state), 64 * 1024)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return {ok: true, owner: null}
    if (error instanceof NotRegularFileError) return {ok: false, reason: `owner.json is ${error.what}, not a regular file`}
    return {ok: false, reason: `owner.json cannot be read (${error instanceof RangeError ? 'too large' : (errnoCode(error) ?? String(error))})`}
  }
  return parseOwner(text)
}

function writeOwner(state: StateDir, view: View): void {
  writeFileAtomic(ownerPath(state), JSON.stringify({version: OWNER_VERSION, ...view, enrolledAt: new Date().toISOString()}, null, 2) + '\n', 'replace')
}

const FIX = 'Run pk on the host, or give this environment its own state with PK_STATE_DIR (or its own HOME).'

function check(state: StateDir): {view: View; decision: OwnerDecision} {
  const measured = measureView()
  if (!measured.ok) throw new PkError('no-view', `refusing to write pk state: ${measured.reason}. ${FIX}`)
  const owner = readOwner(state)
  if (!owner.ok)
    throw new PkError(
      'bad-owner',
      `refusing to write pk state: ${owner.reason} (${ownerPath(state)}). pk doctor explains; remove the file from the host to re-enrol.`,
    )
  // The records are counted only where the rules need the number (no owner yet, or another one): a writer
  // that owns the directory, like the folder of events, does not read them all twice more for nothing.
  const mine = owner.owner !== null && sameView(owner.owner, measured.view)
  const decision = decideWrite(measured.view, owner.owner, mine ? 0 : readRecords(state).records.length)
  if (decision.action === 'refuse') throw new PkError('foreign-namespace', `refusing to write pk state: ${decision.reason}. ${FIX}`)
  return {view: measured.view, decision}
}

/** Whether this pk may write the state directory now (without saying why not). */
export function mayWrite(state: StateDir): boolean {
  try {
    check(state)
    return true
  } catch {
    return false
  }
}

/** Fail fast, before any side effect (like starting a tmux session), when this pk may not write. */
export function assertMayWrite(state: StateDir): void {
  check(state)
}

/**
 * Run `fn` as the owner of the state directory: checked before the lock and again under it, enrolling
 * this view when the rules allow. Every writer goes through here. Pending events are not applied here:
 * that is the one writer's work (writer/fold.ts), which calls this like any other writer.
 */
export async function withWriteAccess<T>(state: StateDir, fn: (lock: HeldLock) => T | Promise<T>, opts: {waitMs?: number} = {}): Promise<T> {
  check(state)
  return withStateLock(
    state,
    async (lock) => {
      const {view, decision} = check(state)
      if (decision.action === 'enrol') writeOwner(state, view)
      try {
        return await fn(lock)
      } finally {
        // What readers read at once: brought up to date by whoever changed the records, still under the lock.
        if (lock.stillHeld()) refreshRecordIndex(state)
      }
    },
    {waitMs: opts.waitMs},
  )
}

/**
 * Make sure the state directory exists and names its owner (this pk's namespace, where the rules allow):
 * the agents' sh hooks write nothing until it does. `pk setup` and `pk hook` call it.
 */
export async function enrol(state: StateDir): Promise<void> {
  const owner = readOwner(state)
  if (owner.ok && owner.owner !== null) return
  await withWriteAccess(state, () => {})
}

export type ReadTrust = {trusted: true} | {trusted: false; code: 'no-view' | 'bad-owner' | 'foreign-namespace'; reason: string}

/** For readers: may records be paired by pid from here? If not, why (reported in `problems`). */
export function readTrust(state: StateDir | null, measured: ViewMeasurement = measureView()): ReadTrust {
  if (!measured.ok) return {trusted: false, code: 'no-view', reason: `pids cannot be checked from here: ${measured.reason}`}
  const owner = readOwner(state)
  if (!owner.ok)
    return {
      trusted: false,
      code: 'bad-owner',
      reason: `ownership of the state directory is unknown: ${owner.reason}; its records are shown unverified and nothing is paired by pid (pk doctor explains)`,
    }
  if (owner.owner === null || sameView(owner.owner, measured.view)) return {trusted: true}
  if (owner.owner.bootId !== measured.view.bootId) return {trusted: true} // every record is from an earlier boot: exited
  return {
    trusted: false,
    code: 'foreign-namespace',
    reason: `this pk runs in ${describeView(measured.view)}, but the state directory belongs to ${describeView(owner.owner)}; its records are shown unverified and nothing is paired by pid`,
  }
}
