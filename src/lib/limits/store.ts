import {mkdirSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {isPrivateDir, readRegularFile} from '../registry/files.js'
import {StateDir} from '../registry/state-dir.js'
import {ContinueFile, parseContinueFile} from './plan.js'

/**
 * What pk keeps about continuing each session at a limit: one small file per session under the state
 * directory (`continue/ID.json`), read by any pk (a reader shows the plan) and written only under the state
 * lock by the writer, `pk continue` and the wake-up. A link, a FIFO or a file pk did not write is not read.
 */

export const continueDir = (state: StateDir) => join(state.root, 'continue')
const fileOf = (state: StateDir, id: string) => join(continueDir(state), `${id}.json`)
const ID = /^[0-9a-f]{8}$/

export function readContinueFile(state: StateDir | null, id: string): ContinueFile | null {
  if (state === null || !ID.test(id)) return null
  try {
    const file = parseContinueFile(readRegularFile(fileOf(state, id), 64 * 1024))
    return file?.id === id ? file : null
  } catch {
    return null
  }
}

/** Every session pk keeps a continue file for (pk doctor lists their wake-ups). */
export function readContinueFiles(state: StateDir | null): ContinueFile[] {
  if (state === null || !isPrivateDir(continueDir(state))) return []
  let names: string[]
  try {
    names = readdirSync(continueDir(state))
  } catch {
    return []
  }
  return names.flatMap((name) => {
    const id = /^([0-9a-f]{8})\.json$/.exec(name)?.[1]
    const file = id === undefined ? null : readContinueFile(state, id)
    return file === null ? [] : [file]
  })
}

/** Write it (the caller holds the state lock). (Writes load their module only here: a reader, pk ls, loads no node:crypto.) */
export async function writeContinueFile(state: StateDir, file: ContinueFile): Promise<void> {
  const {writeFileAtomic} = await import('../registry/atomic.js')
  mkdirSync(continueDir(state), {recursive: true, mode: 0o700})
  if (!isPrivateDir(continueDir(state))) throw new Error(`${continueDir(state)} is not a private directory of pk's`)
  writeFileAtomic(fileOf(state, file.id), JSON.stringify(file, null, 2) + '\n', 'replace')
}

export async function removeContinueFile(state: StateDir, id: string): Promise<void> {
  const {unlinkQuietly} = await import('../registry/atomic.js')
  if (ID.test(id)) unlinkQuietly(fileOf(state, id))
}

/** A fresh file for a process, with nothing arranged. */
export const newContinueFile = (id: string, who: {pid: number; startTime: number}): ContinueFile => ({
  version: 1,
  id,
  pid: who.pid,
  startTime: who.startTime,
  episode: null,
  at: null,
  off: false,
  offWhy: null,
  inARow: 0,
  gaveUp: false,
  wake: null,
  lastContinuedAt: null,
  continuedEpisode: null,
  lastOutcome: null,
})
