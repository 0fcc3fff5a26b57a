import {mkdirSync} from 'node:fs'
import {join} from 'node:path'

import {errnoCode} from '../model/errors.js'
import {isPrivateDir, readRegularFile} from './files.js'
import {StateDir} from './state-dir.js'
import {mcpDir} from './mcp-audit.js'

/**
 * The kill switch: `pk mcp --off` writes STATE/mcp/off, and every running pk MCP server, which looks for it
 * on every call, refuses every call at once until `pk mcp --on` removes it. A file that cannot be read as
 * pk's (a link, a FIFO, garbage) counts as off: a switch in doubt is off.
 */

export const offPath = (state: StateDir) => join(mcpDir(state), 'off')

export interface OffSwitch {
  at: string
  why: string
}

/** Whether pk mcp is off, and since when; null when it is on. */
export function readOff(state: StateDir | null): OffSwitch | null {
  if (state === null) return null
  try {
    const data = JSON.parse(readRegularFile(offPath(state), 4096)) as Partial<OffSwitch>
    return {at: typeof data.at === 'string' ? data.at : 'an unknown time', why: typeof data.why === 'string' ? data.why : 'pk mcp --off'}
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null
    return {at: 'an unknown time', why: `${offPath(state)} is there but cannot be read as pk's (remove it, or pk mcp --on)`}
  }
}

/** Turn every pk MCP server off (the caller holds the state lock). */
export async function turnOff(state: StateDir, why: string, now = new Date()): Promise<void> {
  const {writeFileAtomic} = await import('./atomic.js')
  mkdirSync(mcpDir(state), {recursive: true, mode: 0o700})
  if (!isPrivateDir(mcpDir(state))) throw new Error(`${mcpDir(state)} is not a private directory of pk's`)
  writeFileAtomic(offPath(state), JSON.stringify({at: now.toISOString(), why}) + '\n', 'replace')
}

/** Turn them on again. */
export async function turnOn(state: StateDir): Promise<void> {
  const {unlinkQuietly} = await import('./atomic.js')
  unlinkQuietly(offPath(state))
}
