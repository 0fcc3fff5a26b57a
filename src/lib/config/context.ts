import {LoadedConfig} from './config.js'
import {Env, StateDir} from '../registry/state-dir.js'
import type {ServerScan} from '../tmux/servers.js'

/**
 * What one invocation of pk works with, built once where it starts (src/context.ts: the commands, the
 * fast path, the dashboard, the hook) and handed down: its environment, the directory it was started in,
 * a clock, the configuration, and the state directory. Nothing under src/lib loads the configuration or
 * opens the state directory by itself, so every part of one invocation sees the same ones.
 */
export interface Context {
  readonly env: Env
  /** Where pk was started; null when that directory was deleted meanwhile. */
  readonly cwd: string | null
  /** Milliseconds since the epoch: tests may hand in a clock of their own. */
  now(): number
  /** Your config and a project's, with the presets they make (cached for a while: watchers see edits). */
  config(): Promise<LoadedConfig>
  /** The state directory to read, or null when none exists yet (a reader never makes one). */
  readState(): StateDir | null
  /** The state directory to write: made (0700) when missing, refused when unsafe. */
  writeState(): StateDir
  /**
   * A scan of tmux's servers the fast path started as pk started, before loading the command's code, for
   * the invocation's first look to take (once; later looks list anew). Only where looking is the
   * command's first act, so that it sees tmux as a look started then would.
   */
  scanAhead?(): ServerScan | undefined
}
