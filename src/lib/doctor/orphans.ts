import {existsSync} from 'node:fs'

import {readChildren} from '../proc/reader.js'
import {parseUnixSockets, socketHolders} from '../tmux/server-check.js'

/** A tmux server that still runs, with its panes, but whose socket file is gone or taken by another server. */
export interface OrphanServer {
  pid: number
  socket: string
  reason: 'socket-missing' | 'socket-taken'
  panes: number
  /** Pane processes of the orphan that are recorded pk sessions. */
  recordedPanes: number
}

/**
 * Pure: listening inodes at candidate paths that no socket file leads to any more. With the file gone,
 * every listener there is orphaned. With the file there and one listener, that listener is the file's.
 * With several, only the server that answers at the path (`current`, its inodes) tells which is the
 * file's; when none answered or it could not be verified (`current` has no entry), nothing is claimed.
 */
export function orphanInodes(
  listening: Map<string, Set<string>>,
  isCandidatePath: (path: string) => boolean,
  current: Map<string, Set<string>>,
  fileExists: (path: string) => boolean,
): {path: string; inode: string; reason: OrphanServer['reason']}[] {
  const out: {path: string; inode: string; reason: OrphanServer['reason']}[] = []
  for (const [path, inodes] of listening) {
    if (!isCandidatePath(path)) continue
    if (!fileExists(path)) {
      for (const inode of inodes) out.push({path, inode, reason: 'socket-missing'})
      continue
    }
    const live = current.get(path)
    if (inodes.size < 2 || live === undefined) continue
    for (const inode of inodes) if (!live.has(inode)) out.push({path, inode, reason: 'socket-taken'})
  }
  return out
}

/**
 * Orphaned servers: listening sockets in the socket directory (or named by records) that no socket
 * file leads to any more. `currentServerPids` maps each socket path where a verified server answered to
 * its pid; its inodes are the live ones.
 */
export function findOrphans(opts: {
  uid: number
  unixSocketsText: string
  isCandidatePath: (path: string) => boolean
  currentServerPids: Map<string, number>
  recordedPids: Set<number>
}): OrphanServer[] {
  const listening = parseUnixSockets(opts.unixSocketsText)
  const allInodes = new Set<string>()
  for (const [path, inodes] of listening) if (opts.isCandidatePath(path)) for (const i of inodes) allInodes.add(i)
  if (allInodes.size === 0) return []
  // What the servers pk listed hold, from their own descriptors; every process's are read only when some
  // listening socket is left that none of them holds.
  const ours = socketHolders(opts.uid, allInodes, new Set(opts.currentServerPids.values()))
  const current = new Map<string, Set<string>>()
  for (const [path, pid] of opts.currentServerPids) {
    const inodes = new Set<string>()
    for (const [inode, holder] of ours) if (holder === pid) inodes.add(inode)
    current.set(path, inodes)
  }
  const candidates = orphanInodes(listening, opts.isCandidatePath, current, existsSync)
  if (candidates.length === 0) return []
  const holders = socketHolders(opts.uid, new Set(candidates.map((c) => c.inode)))
  const orphans: OrphanServer[] = []
  for (const {path, inode, reason} of candidates) {
    const pid = holders.get(inode)
    if (pid === undefined) continue
    const panes = readChildren(pid)
    orphans.push({pid, socket: path, reason, panes: panes.length, recordedPanes: panes.filter((p) => opts.recordedPids.has(p)).length})
  }
  return orphans
}
