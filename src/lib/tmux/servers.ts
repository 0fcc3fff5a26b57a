import {existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, realpathSync, statSync, unlinkSync} from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'
import {basename, dirname, isAbsolute, join, resolve} from 'node:path'

import {errnoCode, PkError} from '../model/errors.js'
import {Platform, platformOf} from '../model/platform.js'
import {run} from '../exec/run.js'
import {isTmuxComm, systemTool} from '../proc/ps.js'
import {PROC_ROOT, readExe, readPidNamespace} from '../proc/reader.js'
import {ProcessLook, processSource} from '../proc/source.js'
import {TmuxCommandError, TmuxFailureKind, runTmux, tmuxArgv} from './exec.js'
import {PANE_FORMAT, Pane, parsePaneList} from './panes.js'

export type Env = Record<string, string | undefined>

/**
 * `$TMUX_TMPDIR/tmux-<uid>`, else `/tmp/tmux-<uid>` (tmux's own rule: `TMUX_SOCK` is `"$TMUX_TMPDIR:" _PATH_TMP`;
 * it never looks at $TMPDIR), the directory that holds this user's sockets. On macOS /tmp is a link to
 * /private/tmp, and tmux names its sockets by the real path: so does pk, or its paths would not be tmux's.
 */
export function socketDir(env: Env): string {
  return tmuxSocketDir(env, process.getuid!(), platformOf(env), (path) => {
    try {
      return realpathSync(path)
    } catch {
      return path
    }
  })
}

/** Pure: socketDir with the uid, the platform and the way to resolve links given. */
export function tmuxSocketDir(env: Env, uid: number, platform: Platform, realpath: (path: string) => string): string {
  const base = env.TMUX_TMPDIR || '/tmp'
  return join(platform === 'darwin' ? realpath(base) : base, `tmux-${uid}`)
}

export const PK_SOCKET_NAME = 'pk'

/**
 * tmux creates its socket directory for -L but not for -S, and pk always passes -S (the path it records).
 * Made 0700, as tmux makes it: the directory is the trust boundary for the sockets in it.
 */
export function ensureSocketDir(socket: string, env: Env): void {
  const dir = socketDir(env)
  if (dirname(socket) === dir) mkdirSync(dir, {recursive: true, mode: 0o700})
}

/** A socket option is a name in the socket directory (like `tmux -L`) or, with a slash, a path (like `-S`). */
export function resolveSocket(option: string | undefined, env: Env): string {
  const value = option ?? PK_SOCKET_NAME
  if (value === '' || value.includes('\0') || value.includes('\n')) throw new PkError('bad-socket', `invalid tmux socket ${JSON.stringify(value)}`)
  if (value.includes('/')) return isAbsolute(value) ? value : resolve(value)
  return join(socketDir(env), value)
}

/**
 * A socket path pk is about to hand to a tmux that may start a server there. tmux unlinks whatever is at
 * the path before it listens, so an existing path must be a socket, and one of this user's: pk never
 * replaces a file, and never starts sessions in another user's server (not even as root, where that
 * would hand the server's owner root's environment).
 */
export function checkSocketPath(socket: string, uid: number = process.getuid!()): void {
  checkSocketDir(socket, uid)
  let stats
  try {
    stats = lstatSync(socket)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return
    throw new PkError('unsafe-socket-dir', `cannot check the tmux socket ${socket} (${errnoCode(error) ?? String(error)})`)
  }
  if (!stats.isSocket()) {
    const what = stats.isSymbolicLink() ? 'a symbolic link' : stats.isDirectory() ? 'a directory' : stats.isFIFO() ? 'a FIFO' : 'a file'
    throw new PkError('not-a-socket', `${socket} is ${what}, not a tmux socket; pk leaves it alone (tmux would delete it). Choose another --socket.`)
  }
  if (stats.uid !== uid)
    throw new PkError(
      'foreign-socket',
      `${socket} belongs to uid ${stats.uid}, not to you (uid ${uid}); pk does not start sessions in another user's tmux server`,
    )
}

export interface DirFacts {
  path: string
  uid: number
  mode: number
  isDirectory: boolean
}

/**
 * Pure: whether pk may connect to sockets in a directory, given it and its ancestors (from / down). A
 * socket is only as safe as its directory: another user who can write it can rename their own listening
 * socket into place between pk's check and tmux's connect, and receive the session pk starts (with your
 * environment). So, like tmux's own check of its socket directory, all the way down: the socket's
 * directory is yours and writable by nobody else; every directory above it is yours or root's, and one
 * that others may write has the sticky bit (then nobody can rename what is not theirs). A reason, or null.
 */
export function judgeSocketDirs(chain: DirFacts[], uid: number): string | null {
  for (const [i, dir] of chain.entries()) {
    const last = i === chain.length - 1
    if (!dir.isDirectory) return `${dir.path} is not a directory`
    if (last) {
      if (dir.uid !== uid) return `${dir.path} belongs to uid ${dir.uid}, not to you (uid ${uid})`
      if ((dir.mode & 0o022) !== 0)
        return `${dir.path} is writable by ${dir.mode & 0o002 ? 'every user' : 'its group'} (mode ${(dir.mode & 0o7777).toString(8)})`
      continue
    }
    if (dir.uid !== uid && dir.uid !== 0) return `${dir.path}, above the socket, belongs to uid ${dir.uid}`
    if ((dir.mode & 0o022) !== 0 && (dir.mode & 0o1000) === 0) return `${dir.path}, above the socket, is writable by others without the sticky bit`
  }
  return null
}

/**
 * The socket directory's and its ancestors' facts. A directory not made yet (pk makes it 0700 before tmux
 * binds there) stands as it will be, so only what exists above it is judged.
 */
export function socketDirFacts(dir: string): DirFacts[] {
  let real = resolve(dir)
  const missing: string[] = []
  for (;;) {
    try {
      real = join(realpathSync(real), ...missing.reverse())
      break
    } catch {
      missing.push(basename(real))
      const up = dirname(real)
      if (up === real) break
      real = up
    }
  }
  const facts: DirFacts[] = []
  const parts = real.split('/').filter(Boolean)
  for (let i = 0; i <= parts.length; i++) {
    const path = '/' + parts.slice(0, i).join('/')
    try {
      const stats = lstatSync(path)
      facts.push({path, uid: stats.uid, mode: stats.mode, isDirectory: stats.isDirectory()})
    } catch {
      // Not made yet: it and what is below it will be pk's own, private.
      for (let j = i; j <= parts.length; j++) facts.push({path: '/' + parts.slice(0, j).join('/'), uid: process.getuid!(), mode: 0o40700, isDirectory: true})
      break
    }
  }
  return facts
}

/** Refuse (exit 5) to connect to, or start a server at, a socket in a directory another user could swap it in. */
export function checkSocketDir(socket: string, uid: number = process.getuid!()): void {
  const reason = judgeSocketDirs(socketDirFacts(dirname(socket)), uid)
  if (reason !== null)
    throw new PkError(
      'unsafe-socket-dir',
      `refusing the tmux socket ${socket}: ${reason}; another user could put their own server there. Fix the directory (pk doctor says how) or choose another --socket.`,
    )
}

/** Whether a socket's directory passes checkSocketDir (for sockets pk only lists, such as a record's). */
export const socketDirIsSafe = (socket: string, uid: number = process.getuid!()) => judgeSocketDirs(socketDirFacts(dirname(socket)), uid) === null

/** Socket files in the socket directory. No `list-sockets` exists in tmux; reading the directory is the way. */
export function listSocketFiles(dir: string): string[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return []
    throw error
  }
  const sockets: string[] = []
  for (const name of names.sort()) {
    const path = join(dir, name)
    try {
      if (lstatSync(path).isSocket()) sockets.push(path)
    } catch {
      // Vanished between readdir and lstat: not a socket any more.
    }
  }
  return sockets
}

function isSocketFile(path: string): boolean {
  try {
    return lstatSync(path).isSocket()
  } catch {
    return false
  }
}

export interface ServerListing {
  socket: string
  /** `ok`: listed; `no-server`/`stale-socket`: nothing to list; `error`: tmux failed otherwise. */
  status: 'ok' | TmuxFailureKind
  message: string | null
  serverPid: number | null
  /**
   * Whether the server that answered is a process of this pid namespace holding this listening socket.
   * Only then do its pane pids mean processes here: a server in another pid namespace reports pids that mean something else here, or nothing.
   */
  verified: boolean
  unverifiedReason: string | null
  panes: Pane[]
  rejectedLines: number
  /** tmux's answer as it came: a watcher compares it with the last one to tell whether anything changed. */
  raw?: string
  /** Listed by the ps source: checked later, against the snapshot's look (checkDeferred). */
  checkDeferred?: boolean
}

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
const lsofSockets = (pid: number) => run([systemTool('lsof'), '-w', '-a', '-p', String(pid), '-U', '-F', 'n'], {deadlineMs: 5000})

/** lsof started for a listing's server while the rest of the snapshot is read (ps source only). */
const lsofAhead = new WeakMap<ServerListing, ReturnType<typeof lsofSockets>>()

/**
 * The ps source's check of a server (where /proc cannot be read): the pid it reports is a tmux process in
 * the table, in this pid namespace where there are such, and `lsof` says it holds a unix socket at the
 * path. Without lsof it cannot be told: unverified, never assumed.
 */
export async function verifyServerPs(
  socket: string,
  serverPid: number,
  look: ProcessLook,
  ownPidNs: string,
  ahead?: ReturnType<typeof lsofSockets>,
): Promise<{verified: boolean; reason: string | null}> {
  const stat = look.stat(serverPid)
  if (stat === null) return {verified: false, reason: `the server reports pid ${serverPid}, which ps does not list here`}
  const exe = look.exe(serverPid)
  if (exe === null || !isTmuxComm(exe)) return {verified: false, reason: `pid ${serverPid} here is not tmux (${exe ?? 'unnamed'})`}
  const ns = look.namespaces?.([serverPid]).get(serverPid) ?? null
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
  const look = source.look()
  const measured = source.measureView(look)
  return verifyServerPs(socket, serverPid, look, measured.ok ? measured.view.pidNs : '')
}

/** Servers listed by a ps-source scan, checked once the look's table is there (ServerListing.checkDeferred). */
export async function checkDeferred(servers: ServerListing[], look: ProcessLook, ownPidNs: string): Promise<ServerListing[]> {
  // Every server's pid namespace in one call, before each is checked.
  look.namespaces?.(servers.flatMap((s) => (s.checkDeferred && s.serverPid !== null ? [s.serverPid] : [])))
  return Promise.all(
    servers.map(async (s) => {
      if (!s.checkDeferred || s.serverPid === null) return s
      const check = await verifyServerPs(s.socket, s.serverPid, look, ownPidNs, lsofAhead.get(s))
      return {...s, checkDeferred: false, verified: check.verified, unverifiedReason: check.reason}
    }),
  )
}

export interface ListOptions {
  deadlineMs?: number
  listening?: ListeningSockets
  /** This server's last listing: when tmux answers exactly as then, it stands (parsed and checked then). */
  previous?: ServerListing
}

/** One `list-panes -a` call for the whole server, then the server check. */
export async function listServer(socket: string, opts: ListOptions = {}): Promise<ServerListing> {
  const listing: ServerListing = {
    socket,
    status: 'ok',
    message: null,
    serverPid: null,
    verified: false,
    unverifiedReason: null,
    panes: [],
    rejectedLines: 0,
  }
  try {
    const {stdout} = await runTmux(tmuxArgv(socket, [['list-panes', '-a', '-F', PANE_FORMAT]]), {deadlineMs: opts.deadlineMs})
    if (opts.previous?.raw === stdout) return opts.previous
    const parsed = parsePaneList(stdout)
    listing.raw = stdout
    listing.panes = parsed.panes
    listing.rejectedLines = parsed.rejected.length
  } catch (error) {
    if (!(error instanceof TmuxCommandError)) throw error
    // tmux says "no server running" both when nothing is there and when the server died (SIGKILL) and
    // left its socket file behind: the latter is a stale socket.
    listing.status = error.kind === 'no-server' && isSocketFile(socket) ? 'stale-socket' : error.kind
    listing.message = error.message
    return listing
  }
  listing.serverPid = listing.panes[0]?.serverPid ?? null
  if (listing.serverPid === null) {
    listing.unverifiedReason = 'the server has no panes'
    return listing
  }
  if (processSource().name === 'ps') {
    // The ps source checks a server against a look's table, which the snapshot reads meanwhile.
    listing.checkDeferred = true
    listing.unverifiedReason = 'not checked yet'
    const ahead = lsofSockets(listing.serverPid)
    ahead.catch(() => {})
    lsofAhead.set(listing, ahead)
    return listing
  }
  const check = verifyServer(socket, listing.serverPid, opts.listening)
  listing.verified = check.verified
  listing.unverifiedReason = check.reason
  return listing
}

/**
 * Every tmux server to look at, each listed once and all at once: the sockets in the socket directory
 * first (so tmux works while the caller reads its records), then any other socket the caller adds (those
 * records name). tmux missing is said once, not thrown.
 */
export class ServerScan {
  private readonly pending = new Map<string, Promise<ServerListing | PkError>>()
  private readonly safeDirs = new Set<string>()
  readonly listening: ListeningSockets = listeningSocketsOnce()

  constructor(
    env: Env | null,
    private readonly deadlineMs?: number,
    private readonly previous?: ReadonlyMap<string, ServerListing>,
  ) {
    if (env === null) return
    const dir = socketDir(env)
    // A socket directory another user could write is refused outright, as an unsafe state directory is.
    if (existsSync(dir)) checkSocketDir(join(dir, PK_SOCKET_NAME))
    for (const socket of listSocketFiles(dir)) this.add(socket, true)
  }

  /** A scan of the records' sockets only, none of the socket directory's (doctor's, when that directory is unsafe: its check says why). */
  static recordsOnly(): ServerScan {
    return new ServerScan(null)
  }

  /** Also list this socket, if it is one (a record's socket may be anywhere, or gone) in a directory pk may trust. */
  add(socket: string, checked = false): void {
    if (this.pending.has(socket) || !isSocketFile(socket)) return
    if (!checked && !this.safeDirs.has(dirname(socket))) {
      if (!socketDirIsSafe(socket)) return
      this.safeDirs.add(dirname(socket))
    }
    const listed = listServer(socket, {deadlineMs: this.deadlineMs, listening: this.listening, previous: this.previous?.get(socket)})
    const settled = listed.catch((error: unknown) => (error instanceof PkError && error.code === 'tmux-missing' ? error : Promise.reject(error)))
    // Seen by settle(); a scan started early and never settled (its listing failed first) must not crash pk.
    settled.catch(() => {})
    this.pending.set(socket, settled)
  }

  async settle(): Promise<{servers: ServerListing[]; tmuxMissing: PkError | null}> {
    const settled = await Promise.all(this.pending.values())
    return {
      servers: settled.filter((s): s is ServerListing => !(s instanceof PkError)),
      tmuxMissing: settled.find((s): s is PkError => s instanceof PkError) ?? null,
    }
  }
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
