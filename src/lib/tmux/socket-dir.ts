import {lstatSync, mkdirSync, readdirSync, realpathSync} from 'node:fs'
import {basename, dirname, isAbsolute, join, resolve} from 'node:path'

import {errnoCode, PkError} from '../model/errors.js'
import {Platform, platformOf} from '../model/platform.js'

/**
 * The directory tmux keeps this user's sockets in: where it is, whether pk may trust it (no other user
 * can swap a socket in), the sockets in it, and a --socket option resolved against it.
 */

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

export function isSocketFile(path: string): boolean {
  try {
    return lstatSync(path).isSocket()
  } catch {
    return false
  }
}
