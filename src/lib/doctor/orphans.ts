import {existsSync, readdirSync, readlinkSync, statSync} from 'node:fs'

import {PROC_ROOT, readChildren} from '../proc/reader.js'
import {parseUnixSockets, socketInodesOfFds} from '../tmux/servers.js'

/** A tmux server that still runs, with its panes, but whose socket file is gone or taken by another server. */
export interface OrphanServer {
  pid: number
  socket: string
  reason: 'socket-missing' | 'socket-taken'
  panes: number
  /** Pane processes of the orphan that are recorded pk sessions. */
  recordedPanes: number
}

/** Pure: which listening inodes at which paths are not the ones the live socket file leads to. */
export function orphanInodes(listening: Map<string, Set<string>>, isCandidatePath: (path: string) => boolean, currentInodes: Map<string, Set<string>>): {path: string; inode: string}[] {
  const out: {path: string; inode: string}[] = []
  for (const [path, inodes] of listening) {
    if (!isCandidatePath(path)) continue
    const current = currentInodes.get(path) ?? new Set<string>()
    for (const inode of inodes) if (!current.has(inode)) out.push({path, inode})
  }
  return out
}

/** Every process of `uid`, with the socket inodes it holds. */
function socketHolders(uid: number, wanted: Set<string>): Map<string, number> {
  const holders = new Map<string, number>()
  for (const name of readdirSync(PROC_ROOT)) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (statSync(`${PROC_ROOT}/${name}`).uid !== uid) continue
      const fds = readdirSync(`${PROC_ROOT}/${name}/fd`)
      const links: string[] = []
      for (const fd of fds) {
        try {
          links.push(readlinkSync(`${PROC_ROOT}/${name}/fd/${fd}`))
        } catch {
          // closed meanwhile
        }
      }
      for (const inode of socketInodesOfFds(links)) if (wanted.has(inode)) holders.set(inode, Number(name))
    } catch {
      // process gone or not ours to read
    }
  }
  return holders
}

/**
 * Orphaned servers: listening sockets in the socket directory (or named by records) that no socket
 * file leads to any more. `currentServerPids` maps each reachable socket path to the pid of the server
 * that answers there; its inodes are the live ones.
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
  const holders = socketHolders(opts.uid, allInodes)
  const current = new Map<string, Set<string>>()
  for (const [path, pid] of opts.currentServerPids) {
    const inodes = new Set<string>()
    for (const [inode, holder] of holders) if (holder === pid) inodes.add(inode)
    current.set(path, inodes)
  }
  const orphans: OrphanServer[] = []
  for (const {path, inode} of orphanInodes(listening, opts.isCandidatePath, current)) {
    const pid = holders.get(inode)
    if (pid === undefined) continue
    const panes = readChildren(pid)
    orphans.push({
      pid,
      socket: path,
      reason: existsSync(path) ? 'socket-taken' : 'socket-missing',
      panes: panes.length,
      recordedPanes: panes.filter((p) => opts.recordedPids.has(p)).length,
    })
  }
  return orphans
}
