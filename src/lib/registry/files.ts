import {closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, writeSync} from 'node:fs'

import {errnoCode, PkError} from '../model/errors.js'
import {readWhole} from '../proc/reader.js'

/**
 * Files in the state directory (and config a project ships) are opened without following links and
 * without blocking, then must be regular files: a FIFO planted where a file should be would otherwise
 * hang pk (opening a FIFO waits for a writer; reading one waits for data).
 */
export class NotRegularFileError extends PkError {
  constructor(
    readonly path: string,
    readonly what: string,
  ) {
    super('not-a-file', `${path} is ${what}, not a regular file; pk does not read or write it`)
  }
}

function describe(mode: number): string {
  const type = mode & constants.S_IFMT
  if (type === constants.S_IFIFO) return 'a FIFO'
  if (type === constants.S_IFDIR) return 'a directory'
  if (type === constants.S_IFSOCK) return 'a socket'
  if (type === constants.S_IFCHR || type === constants.S_IFBLK) return 'a device'
  return 'not a regular file'
}

/** The descriptor, and the file's size when opened. */
function openRegular(path: string, flags: number, mode?: number, follow = false): {fd: number; size: number} {
  let fd: number
  try {
    fd = openSync(path, flags | (follow ? 0 : constants.O_NOFOLLOW) | constants.O_NONBLOCK, mode)
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'ELOOP') throw new NotRegularFileError(path, 'a symbolic link')
    // A FIFO opened for writing with no reader, without blocking.
    if (code === 'ENXIO') throw new NotRegularFileError(path, 'a FIFO')
    if (code === 'EISDIR') throw new NotRegularFileError(path, 'a directory')
    throw error
  }
  const stats = fstatSync(fd)
  if (!stats.isFile()) {
    closeSync(fd)
    throw new NotRegularFileError(path, describe(stats.mode))
  }
  return {fd, size: stats.size}
}

/**
 * A regular file's text (at most `limit` bytes, else RangeError), never from a FIFO, and not through a
 * link unless `follow` (for files of the user's own that may well be links into a dotfiles repository).
 */
export function readRegularFile(path: string, limit = 1024 * 1024, follow = false): string {
  const {fd, size} = openRegular(path, constants.O_RDONLY, undefined, follow)
  try {
    // A large file (the record index: half a megabyte at a thousand sessions) in one call into node's C++,
    // which reads it whole; readWhole's reused buffer, which serves the many small files, would grow in
    // steps for it, copying as it goes. A file that grew past `limit` meanwhile is refused all the same.
    if (size <= SMALL_FILE || size > limit) return readWhole(fd, path, limit)
    const text = readFileSync(fd, 'utf8')
    if (text.length > limit) throw new RangeError(`${path} is larger than ${limit} bytes`)
    return text
  } finally {
    closeSync(fd)
  }
}

const SMALL_FILE = 64 * 1024

/** Append to a regular file (created 0600), never through a link or into a FIFO. */
export function appendRegularFile(path: string, text: string): void {
  const {fd} = openRegular(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600)
  try {
    writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
}

/**
 * Whether a directory inside the state directory is private to this user: a real directory (not a link)
 * of this user's that nobody else may write. Another user who can write the spool, notified/ or
 * sessions/ could plant events, claims or records: pk reads none of them then (pk doctor says why and
 * --fix tightens them).
 */
export function isPrivateDir(path: string): boolean {
  try {
    const stats = lstatSync(path)
    return stats.isDirectory() && stats.uid === process.getuid!() && (stats.mode & 0o022) === 0
  } catch {
    return false
  }
}
