import {chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, realpathSync, statSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

import {writeFileAtomic} from '../registry/atomic.js'
import {readRegularFile} from '../registry/files.js'

/**
 * pk's own package root (where bin/ and assets/ are): the nearest folder above this module with
 * bin/run.js. This module runs from dist/lib/setup (oclif) and from the fast path's one bundle in dist/.
 */
export const PACKAGE_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)))

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'bin', 'run.js')) && existsSync(join(dir, 'assets', 'pk-hook.sh'))) return dir
    if (dirname(dir) === dir) return join(from, '..', '..', '..')
  }
}

/** The argv that runs this pk, with absolute paths, so an agent's hook finds it whatever its PATH. */
export function pkArgv(): string[] {
  return [process.execPath, join(PACKAGE_ROOT, 'bin', 'run.js')]
}

/**
 * The argv an agent runs per event: pk's sh hook, which takes the event without starting node (the spool),
 * next to the pk it belongs to: `pk-hook.sh AGENT NODE`, the payload added by the agent.
 */
export function hookArgv(pk: string[], agent: string): string[] {
  return [resolve(dirname(pk[1]!), '..', 'assets', 'pk-hook.sh'), agent, pk[0]!]
}

/** One file setup wants to change. `after` null means: nothing to do (with `note` saying why). */
export interface SetupChange {
  agent: string
  file: string
  before: string | null
  after: string
  changed: boolean
  notes: string[]
  /** What was done, for a person: `installed` unless said (`took out`). */
  verb?: string
}

export function readIfExists(path: string): string | null {
  return existsSync(path) ? readRegularFile(path, 16 * 1024 * 1024, true) : null
}

/** Write a change: a backup of the old file first (never overwritten), then an atomic replace. */
export function applyChange(change: SetupChange, now = new Date()): string | null {
  if (!change.changed) return null
  mkdirSync(dirname(change.file), {recursive: true, mode: 0o700})
  let backup: string | null = null
  let mode: number | null = null
  // A settings file that is a link (into a dotfiles repository, say) is written through: the link stays.
  const target = change.before !== null && lstatSync(change.file).isSymbolicLink() ? realpathSync(change.file) : change.file
  if (change.before !== null) {
    mode = statSync(target).mode & 0o777
    backup = `${change.file}.pk-backup-${now.toISOString().replaceAll(':', '-')}`
    copyFileSync(target, backup)
  }
  writeFileAtomic(target, change.after, 'replace')
  // Keep the file's mode: a settings file others may read stays readable.
  if (mode !== null) chmodSync(target, mode)
  return backup
}
