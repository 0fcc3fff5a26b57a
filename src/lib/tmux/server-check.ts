import {readFileSync, readdirSync, readlinkSync, realpathSync, statSync} from 'node:fs'

import {run} from '../exec/run.js'
import {isTmuxComm, systemTool} from '../proc/ps.js'
import {PROC_ROOT, readPidNamespace} from '../proc/reader.js'
import {ProcessTable, processSource} from '../proc/source.js'

/**
 * A server's reality: whether the pid a tmux server reports is a process of this pid namespace holding
 * the listening socket (from /proc, or ps and lsof), and which processes hold which sockets.
 */

/** Pure: listening unix sockets per path, from /proc/net/unix. */
export function parseUnixSockets(text: string): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>()
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    // Num RefCount Protocol Flags Type St Inode Path
    if (f.length < 8) continue
    const flags = Number.parseInt(f[3]!, 16)
    const listening = (flags & 0x10000) !== 0
    if (!listening) continue
    const path = f.slice(7).join(' ')
    const set = byPath.get(path) ?? new Set<string>()
    set.add(f[6]!)
    byPath.set(path, set)
  }
  return byPath
}

/** Pure: socket inodes from the link targets of a process's fds (`socket:[123]`). */
export function socketInodesOfFds(links: string[]): Set<string> {
  const inodes = new Set<string>()
  for (const link of links) {
    const match = /^socket:\[(\d+)\]$/.exec(link)
    if (match) inodes.add(match[1]!)
  }
  return inodes
}

/**
 * Whether process `pid` holds one of `inodes`, or null when the process is not visible here. The fds are
 * read lowest first and the search stops at the first hit: a tmux server opens its listening socket
 * early, before the one or two fds each pane and client adds, so a server with 1000 panes costs a few
 * readlinks, not a thousand. The lowest are tried before the fd folder is listed at all (listing a
 * thousand fds costs 2 ms); only a miss lists it, for the rest and to tell a process that is not there.
 */
function holdsSocket(pid: number, inodes: Set<string>): boolean | null {
  const holds = (fd: number) => {
    try {
      return [...socketInodesOfFds([readlinkSync(`${PROC_ROOT}/${pid}/fd/${fd}`)])].some((inode) => inodes.has(inode))
    } catch {
      return false // no such fd, or closed meanwhile
    }
  }
  for (let fd = 0; fd < LOW_FDS; fd++) if (holds(fd)) return true
  let names: string[]
  try {
    names = readdirSync(`${PROC_ROOT}/${pid}/fd`)
  } catch {
    return null
  }
  for (const fd of names.map(Number).sort((a, b) => a - b)) if (fd >= LOW_FDS && holds(fd)) return true
  return false
}

/** The fds tried before a server's fd folder is listed. */
const LOW_FDS = 16

/** Listening unix sockets by path, read once from /proc/net/unix when first asked (per snapshot). */
export type ListeningSockets = () => Map<string, Set<string>>

export function listeningSocketsOnce(): ListeningSockets {
  let table: Map<string, Set<string>> | undefined
  return () => {
    if (table === undefined) {
      try {
        table = parseUnixSockets(readFileSync(`${PROC_ROOT}/net/unix`, 'utf8'))
      } catch {
        table = new Map()
      }
    }
    return table
  }
}

/**
 * Is `serverPid` (as the server reports it) a process here that holds the listening socket bound at
 * `socket`? A server in another pid namespace reports a pid that names some other process here, or none.
 */
export function verifyServer(
  socket: string,
  serverPid: number,
  listening: ListeningSockets = listeningSocketsOnce(),
): {verified: boolean; reason: string | null} {
  const sockets = listening()
  const inodes = new Set<string>([...(sockets.get(socket) ?? [])])
  try {
    for (const inode of sockets.get(realpathSync(socket)) ?? []) inodes.add(inode)
  } catch {
    // socket vanished; nothing more to add
  }
  if (inodes.size === 0) return {verified: false, reason: `no listening socket at ${socket} is visible in this network namespace`}
  // A process in another pid namespace can hold a copy of the socket (pidfd_getfd); only a server in
  // this namespace reports pane pids that mean processes here.
  const ownNs = readPidNamespace('self')
  const serverNs = readPidNamespace(serverPid)
  if (serverNs === null) return {verified: false, reason: `the server reports pid ${serverPid}, which is not a process in this pid namespace`}
  if (serverNs !== ownNs) return {verified: false, reason: `pid ${serverPid} lives in pid namespace ${serverNs}, not this one (${ownNs})`}
  const held = holdsSocket(serverPid, inodes)
  if (held === null) return {verified: false, reason: `the server reports pid ${serverPid}, which is not a process in this pid namespace`}
  if (held) return {verified: true, reason: null}
  return {verified: false, reason: `pid ${serverPid} here does not hold the listening socket ${socket}; the server lives in another pid namespace`}
}

/** Pure: the unix socket paths `lsof -F n` names (`n/tmp/x type=STREAM` on Linux, `n/tmp/x` on macOS). */
export function parseLsofSocketPaths(text: string): Set<string> {
  const paths = new Set<string>()
  for (const line of text.split('\n')) {
    if (!line.startsWith('n/')) continue
    paths.add(line.slice(1).replace(/ type=\w+$/, ''))
  }
  return paths
}

/** `lsof`'s answer for the unix sockets `pid` holds (started as soon as the pid is known: lsof takes ~50 ms whatever it is asked). */
export const lsofSockets = (pid: number) => run([systemTool('lsof'), '-w', '-a', '-p', String(pid), '-U', '-F', 'n'], {deadlineMs: 5000})

/**
 * The ps source's check of a server (where /proc cannot be read): the pid it reports is a tmux process in
 * the table, in this pid namespace where there are such, and `lsof` says it holds a unix socket at the
 * path. Without lsof it cannot be told: unverified, never assumed.
 */
export async function verifyServerPs(
  socket: string,
  serverPid: number,
  table: ProcessTable,
  ownPidNs: string,
  ahead?: ReturnType<typeof lsofSockets>,
): Promise<{verified: boolean; reason: string | null}> {
  const stat = table.stat(serverPid)
  if (stat === null) return {verified: false, reason: `the server reports pid ${serverPid}, which ps does not list here`}
  const exe = table.exe(serverPid)
  if (exe === null || !isTmuxComm(exe)) return {verified: false, reason: `pid ${serverPid} here is not tmux (${exe ?? 'unnamed'})`}
  const ns = table.namespaces?.([serverPid]).get(serverPid) ?? null
  if (ownPidNs.startsWith('ps:') && `ps:${ns}` !== ownPidNs)
    return {verified: false, reason: `pid ${serverPid} lives in pid namespace ${ns ?? 'unknown'}, not this one (${ownPidNs.slice(3)})`}
  const ran = await (ahead ?? lsofSockets(serverPid))
  if (ran.error) return {verified: false, reason: `lsof cannot be run (${ran.error.code ?? ran.error.message}): pk cannot tell which process holds ${socket}`}
  if (ran.timedOut) return {verified: false, reason: 'lsof did not answer in time'}
  const paths = parseLsofSocketPaths(ran.stdout)
  let real = socket
  try {
    real = realpathSync(socket)
  } catch {
    // gone meanwhile: the path as given
  }
  if (paths.has(socket) || paths.has(real)) return {verified: true, reason: null}
  return {verified: false, reason: `pid ${serverPid} here does not hold the socket ${socket}; the server lives elsewhere`}
}

/** The check of a server, by the process source in use (proc: /proc's sockets and fds; ps: ps and lsof). */
export async function checkServer(socket: string, serverPid: number): Promise<{verified: boolean; reason: string | null}> {
  const source = processSource()
  if (source.name === 'proc') return verifyServer(socket, serverPid)
  const table = source.table()
  const measured = source.measureView(table)
  return verifyServerPs(socket, serverPid, table, measured.ok ? measured.view.pidNs : '')
}

/** Every process of `uid` that holds one of `wanted` (socket inodes), by inode. */
export function socketHolders(uid: number, wanted: Set<string>, among?: Iterable<number>): Map<string, number> {
  const holders = new Map<string, number>()
  let names: string[]
  try {
    // (only these processes, where the caller knows whose sockets it asks about: every process's
    // descriptors are thousands of readlinks on a busy machine)
    names = among === undefined ? readdirSync(PROC_ROOT) : [...among].map(String)
  } catch {
    return holders // no /proc here: nobody is found (a socket's holder is then unknown, never guessed)
  }
  for (const name of names) {
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
