import {join} from 'node:path'

import {PkError} from '../model/errors.js'
import {StateDir} from './state-dir.js'
import {loadPackage} from '../cli/packages.js'

/**
 * Run `fn` holding the state directory's lock (a `registry.lock` directory made by proper-lockfile,
 * refreshed while held and taken over when stale), so writers never interleave.
 */
export async function withStateLock<T>(state: StateDir, fn: () => T | Promise<T>, opts: {wait?: boolean} = {}): Promise<T> {
  const {lock} = loadPackage('proper-lockfile') as typeof import('proper-lockfile')
  let release: () => Promise<void>
  try {
    release = await lock(join(state.root, 'registry'), {
      realpath: false,
      stale: 10_000,
      // The folder of pending events never waits (single flight: the holder applies them); writers do.
      retries: opts.wait === false ? 0 : {retries: 50, minTimeout: 20, maxTimeout: 200},
    })
  } catch (error) {
    throw new PkError('state-locked', `cannot lock the state directory ${state.root}: ${(error as Error).message}`)
  }
  try {
    return await fn()
  } finally {
    await release().catch(() => {})
  }
}
