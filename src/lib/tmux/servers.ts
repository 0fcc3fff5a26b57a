import {existsSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {PkError} from '../model/errors.js'
import {ProcessTable, processSource} from '../proc/source.js'
import {TmuxCommandError, TmuxFailureKind, runTmux, tmuxArgv} from './exec.js'
import {PANE_FORMAT, Pane, parsePaneList} from './panes.js'
import {Env, socketDir, PK_SOCKET_NAME, checkSocketDir, socketDirIsSafe, listSocketFiles, isSocketFile} from './socket-dir.js'
import {ListeningSockets, listeningSocketsOnce, verifyServer, lsofSockets, verifyServerPs} from './server-check.js'

/**
 * Scanning: every tmux server of the socket directory and the records listed at once, each by one
 * `list-panes -a`, then checked (server-check.ts).
 */

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

/** lsof started for a listing's server while the rest of the snapshot is read (ps source only). */
const lsofAhead = new WeakMap<ServerListing, ReturnType<typeof lsofSockets>>()

/** Servers listed by a ps-source scan, checked once the snapshot's process table is there (ServerListing.checkDeferred). */
export async function checkDeferred(servers: ServerListing[], table: ProcessTable, ownPidNs: string): Promise<ServerListing[]> {
  // Every server's pid namespace in one call, before each is checked.
  table.namespaces?.(servers.flatMap((s) => (s.checkDeferred && s.serverPid !== null ? [s.serverPid] : [])))
  return Promise.all(
    servers.map(async (s) => {
      if (!s.checkDeferred || s.serverPid === null) return s
      const check = await verifyServerPs(s.socket, s.serverPid, table, ownPidNs, lsofAhead.get(s))
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
    // The ps source checks a server against a process table, which the snapshot reads meanwhile.
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
