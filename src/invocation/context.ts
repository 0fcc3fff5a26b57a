import {Context} from '../lib/config/context.js'
import {currentDir, loadConfig} from '../lib/config/config.js'
import {Env, openStateDirForReading, openStateDirForWriting} from '../lib/registry/state-dir.js'

/** The one place an invocation's context is made: the configuration and the state directory are opened here only. */
export function createContext(env: Env = process.env, opts: {cwd?: string | null; now?: () => number} = {}): Context {
  const cwd = opts.cwd === undefined ? currentDir() : opts.cwd
  const now = opts.now ?? Date.now
  return {
    env,
    cwd,
    now,
    config: () => loadConfig(cwd, env, now()),
    readState: () => openStateDirForReading(env),
    writeState: () => openStateDirForWriting(env),
  }
}
