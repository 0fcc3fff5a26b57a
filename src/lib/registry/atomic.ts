import {closeSync, constants, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {randomBytes} from '../model/random.js'

import {errnoCode} from '../model/errors.js'

/**
 * Write `content` to `path` so that a crash leaves either the old file or the new one, never a torn one:
 * a fresh temp file in the same directory (O_EXCL, O_NOFOLLOW, 0600), fsync, then rename (replace) or
 * link (create only: fails with EEXIST instead of overwriting), then fsync of the directory.
 * Written here rather than taken from a package because create-only (link) matters for records.
 */
export function writeFileAtomic(path: string, content: string, mode: 'replace' | 'create'): void {
  const dir = dirname(path)
  const temp = join(dir, `.tmp-${basename(path)}-${randomBytes(6).toString('hex')}`)
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
  try {
    const buffer = Buffer.from(content, 'utf8')
    let offset = 0
    while (offset < buffer.length) offset += writeSync(fd, buffer, offset)
    fsyncSync(fd)
  } catch (error) {
    // A full disk fails the write or the fsync: no half-written temp file stays behind.
    closeSync(fd)
    unlinkQuietly(temp)
    throw error
  }
  closeSync(fd)
  try {
    if (mode === 'replace') renameSync(temp, path)
    else linkSync(temp, path)
  } catch (error) {
    unlinkQuietly(temp)
    throw error
  }
  if (mode === 'create') unlinkQuietly(temp)
  syncDirectory(dir)
}

export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error
  }
}

export function syncDirectory(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
