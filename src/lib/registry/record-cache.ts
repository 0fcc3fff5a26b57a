import {FSWatcher, lstatSync, watch} from 'node:fs'

import {RecordScan, readRecords} from './records.js'
import {StateDir} from './state-dir.js'

/** Read the files again at least this often, whatever inotify said (its queue can overflow). */
const REFRESH_MS = 30_000

/**
 * Records for a process that lists again and again (`pk ls --watch`, the dashboard): the files are read
 * again only when the kernel said something in the sessions directory changed (inotify through
 * fs.watch, which reports creates, renames, deletes and writes in place alike), when the directory was
 * replaced, and every 30 s regardless. A change is seen by the next listing after inotify's event
 * arrives, at most one poll late. Where watching is impossible (no inotify left), every read is real.
 */
export class RecordCache {
  private scan: RecordScan | null = null
  private watcher: FSWatcher | null = null
  private watched = ''
  private readAt = 0
  private dirty = true

  read(state: StateDir | null, now = Date.now()): RecordScan {
    if (state === null) {
      this.close()
      return readRecords(null)
    }
    const identity = identityOf(state.sessions)
    if (identity !== this.watched) this.watchDirectory(state.sessions, identity)
    if (this.watcher === null || this.dirty || this.scan === null || now - this.readAt >= REFRESH_MS) {
      // Cleared before reading: a change made while the files are read marks the cache dirty again.
      this.dirty = false
      this.scan = readRecords(state)
      this.readAt = now
    }
    return this.scan
  }

  /** This process changed records itself (it folded the spool): read them again next time. */
  invalidate(): void {
    this.dirty = true
  }

  close(): void {
    this.watcher?.close()
    this.watcher = null
    this.watched = ''
    this.dirty = true
  }

  private watchDirectory(dir: string, identity: string): void {
    this.close()
    this.watched = identity
    if (identity === '') return
    try {
      // Not persistent: watching must never keep pk running.
      this.watcher = watch(dir, {persistent: false}, () => {
        this.dirty = true
      })
      this.watcher.on('error', () => this.close())
    } catch {
      this.watcher = null
    }
  }
}

/** Which directory is there: its inode and birth time (a directory made anew often gets the old inode number). */
function identityOf(dir: string): string {
  try {
    const stats = lstatSync(dir)
    return `${stats.ino}:${stats.birthtimeMs}`
  } catch {
    return ''
  }
}
