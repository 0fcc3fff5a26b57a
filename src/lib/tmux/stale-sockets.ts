import {existsSync, readFileSync, unlinkSync} from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'
import {basename} from 'node:path'

import {errnoCode} from '../model/errors.js'
import {PROC_ROOT, readExe} from '../proc/reader.js'
import {parseUnixSockets, socketHolders} from './server-check.js'
import {listServer} from './servers.js'

/** Sockets no server listens on any more: removed only when nothing holds them, and servers that lost theirs. */

/** Listening sockets bound at `path` right now (read afresh, no cache). */
function listenersAt(path: string): Set<string> {
  try {
    return parseUnixSockets(readFileSync(`${PROC_ROOT}/net/unix`, 'utf8')).get(path) ?? new Set()
  } catch {
    return new Set()
  }
}

export type StaleRemoval = 'removed' | 'live' | 'recovered' | 'lost'

/**
 * Remove a socket file no server listens on, without ever costing a live server its socket. Checked
 * right before (no listener bound at the path, and tmux is refused there); and because a server can
 * still start in between and bind a new socket at the path, checked again right after: a listener at
 * the path whose file is gone gets SIGUSR1, on which tmux makes its socket again.
 * `beforeUnlink` exists for tests, to start that server at the worst moment.
 */
export async function removeStaleSocket(socket: string, beforeUnlink?: () => Promise<void> | void): Promise<StaleRemoval> {
  if (listenersAt(socket).size > 0) return 'live'
  if ((await listServer(socket)).status !== 'stale-socket') return 'live'
  await beforeUnlink?.()
  try {
    unlinkSync(socket)
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error
  }
  const late = listenersAt(socket)
  if (late.size === 0 || existsSync(socket)) return 'removed'
  // SIGUSR1 makes tmux create its socket again. Asked again every quarter second, for up to five: on a
  // loaded machine the holder may not show in /proc at once, and asking twice does no harm.
  for (let i = 0; i < 250 && !existsSync(socket); i++) {
    if (i % 12 === 0) signalHolders(late)
    await sleep(20)
  }
  return existsSync(socket) ? 'recovered' : 'lost'
}

/**
 * Whether a process runs tmux (its executable, from the kernel): SIGUSR1 asks tmux to recreate its socket,
 * and ends most other programs, so it goes to nothing else.
 */
export function isTmuxProcess(pid: number): boolean {
  const exe = readExe(pid)
  return exe !== null && /^tmux/.test(basename(exe.replace(/ \(deleted\)$/, '')))
}

function signalHolders(inodes: Set<string>): void {
  for (const pid of new Set(socketHolders(process.getuid!(), inodes).values())) {
    if (!isTmuxProcess(pid)) continue
    try {
      process.kill(pid, 'SIGUSR1')
    } catch {
      // gone meanwhile
    }
  }
}
