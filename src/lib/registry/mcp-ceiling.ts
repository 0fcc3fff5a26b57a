import {mkdirSync} from 'node:fs'
import {join} from 'node:path'

import {errnoCode} from '../model/errors.js'
import {isPrivateDir, readRegularFile} from './files.js'
import {StateDir} from './state-dir.js'
import {mcpDir} from './mcp-audit.js'

/**
 * The rights a session's own pk mcp may have at most: written by the pk mcp that started it (start_session),
 * its own rights then, in STATE/mcp/ceiling/ID (0600, a folder only you can write). A child's agent runs the
 * pk mcp your MCP configuration names, with the rights given there; those it holds are cut down to its
 * parent's, so a lead's worker never gets more than the lead had. A ceiling that cannot be read as pk's (a
 * link, a FIFO, garbage) allows reading only: a ceiling in doubt is low.
 */

const ceilingDir = (state: StateDir) => join(mcpDir(state), 'ceiling')
const ceilingPath = (state: StateDir, id: string) => join(ceilingDir(state), id)

/** The most a session's pk mcp may do, or null where no pk mcp started it (then its own --allow stands). */
export function readCeiling(state: StateDir | null, id: string): string[] | null {
  if (state === null || !/^[0-9a-f]{8}$/.test(id)) return null
  try {
    const data = JSON.parse(readRegularFile(ceilingPath(state, id), 4096)) as {rights?: unknown}
    if (!Array.isArray(data.rights) || !data.rights.every((r) => typeof r === 'string')) return ['read']
    return data.rights as string[]
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null
    return ['read']
  }
}

/** Note the rights a session started by a pk mcp may have at most (its parent's own). */
export async function writeCeiling(state: StateDir, id: string, rights: readonly string[]): Promise<void> {
  const {writeFileAtomic} = await import('./atomic.js')
  mkdirSync(ceilingDir(state), {recursive: true, mode: 0o700})
  if (!isPrivateDir(mcpDir(state)) || !isPrivateDir(ceilingDir(state))) throw new Error(`${ceilingDir(state)} is not a private directory of pk's`)
  writeFileAtomic(ceilingPath(state, id), JSON.stringify({rights: [...rights]}) + '\n', 'replace')
}
