import {Stats, lstatSync, mkdirSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

import {errnoCode, PkError} from '../model/errors.js'

export type Env = Record<string, string | undefined>

/** `$PK_STATE_DIR`, else `$XDG_STATE_HOME/pk`, else `~/.local/state/pk`. */
export function resolveStateDir(env: Env): string {
  if (env.PK_STATE_DIR) return env.PK_STATE_DIR
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'pk')
  return join(env.HOME || homedir(), '.local', 'state', 'pk')
}

export type StateDirVerdict =
  | {ok: true}
  /** `problem`: why it is unsafe, for a person, with the fix. */
  | {ok: false; kind: 'symlink' | 'not-directory' | 'foreign-owner' | 'loose-mode'; problem: string}

/** Pure: is a directory with these facts safe to keep session state in for user `uid`? */
export function judgeStateDir(path: string, stats: Pick<Stats, 'isSymbolicLink' | 'isDirectory' | 'uid' | 'mode'>, uid: number): StateDirVerdict {
  if (stats.isSymbolicLink()) {
    return {
      ok: false,
      kind: 'symlink',
      problem: `${path} is a symbolic link; pk does not follow links for its state. Fix: replace it with a real directory (mkdir -m 700), or point PK_STATE_DIR at one.`,
    }
  }
  if (!stats.isDirectory()) {
    return {ok: false, kind: 'not-directory', problem: `${path} is not a directory. Fix: move it away, or point PK_STATE_DIR at a directory.`}
  }
  if (stats.uid !== uid) {
    return {
      ok: false,
      kind: 'foreign-owner',
      problem: `${path} is owned by uid ${stats.uid}, not by you (uid ${uid}). Fix: use a directory you own (PK_STATE_DIR), or chown it.`,
    }
  }
  if ((stats.mode & 0o022) !== 0) {
    const mode = (stats.mode & 0o777).toString(8).padStart(3, '0')
    return {
      ok: false,
      kind: 'loose-mode',
      problem: `${path} is writable by group or others (mode ${mode}); anyone could plant session records. Fix: chmod 700 ${shellWord(path)}`,
    }
  }
  return {ok: true}
}

function shellWord(s: string): string {
  return /^[\w./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null
    throw error
  }
}

function checkOrRefuse(path: string, stats: Stats): void {
  const verdict = judgeStateDir(path, stats, process.getuid!())
  if (!verdict.ok) throw new PkError('unsafe-state-dir', `refusing to use state directory: ${verdict.problem}`)
}

export interface StateDir {
  root: string
  sessions: string
}

export function stateLayout(root: string): StateDir {
  return {root, sessions: join(root, 'sessions')}
}

/**
 * For readers: the state directory if it exists and is safe, or null when there is none yet.
 * Unsafe directories are refused (exit 5) for readers too: records planted there would be shown.
 */
export function openStateDirForReading(env: Env): StateDir | null {
  const layout = stateLayout(resolveStateDir(env))
  const stats = lstatOrNull(layout.root)
  if (stats === null) return null
  checkOrRefuse(layout.root, stats)
  const sessions = lstatOrNull(layout.sessions)
  if (sessions !== null) checkOrRefuse(layout.sessions, sessions)
  return layout
}

/** For writers: create the directories (0700) when missing, refuse unsafe ones. */
export function openStateDirForWriting(env: Env): StateDir {
  const layout = stateLayout(resolveStateDir(env))
  for (const dir of [layout.root, layout.sessions]) {
    let stats = lstatOrNull(dir)
    if (stats === null) {
      mkdirSync(dir, {recursive: true, mode: 0o700})
      stats = lstatSync(dir)
    }
    checkOrRefuse(dir, stats)
  }
  return layout
}
