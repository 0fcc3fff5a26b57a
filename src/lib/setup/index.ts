import {homedir} from 'node:os'

import {usageError} from '../errors.js'
import {planClaude, claudeSettingsFile} from './claude.js'
import {planCodex, codexConfigFile} from './codex.js'
import {SetupChange, applyChange, pkArgv, readIfExists} from './common.js'
import {planPi, piExtensionFile} from './pi.js'

export const SETUP_AGENTS = ['claude', 'codex', 'pi'] as const

export async function planSetup(agent: string, env: Record<string, string | undefined>): Promise<SetupChange> {
  const home = env.HOME || homedir()
  const pk = pkArgv()
  if (agent === 'claude') {
    const file = claudeSettingsFile(home)
    return planClaude(readIfExists(file), file, pk)
  }
  if (agent === 'codex') {
    const file = codexConfigFile(home, env)
    const {parse} = await import('smol-toml')
    return planCodex(readIfExists(file), file, pk, (text) => parse(text) as Record<string, unknown>)
  }
  if (agent === 'pi') {
    const file = piExtensionFile(home, env)
    return planPi(readIfExists(file), file, pk)
  }
  throw usageError('no-setup', `pk setup knows ${SETUP_AGENTS.join(', ')}; ${JSON.stringify(agent)} has no hook system pk can install (its state comes from pane rules)`)
}

/** The state directory, made and enrolled, so the installed hook has somewhere to write. */
export async function enrolStateDir(env: Record<string, string | undefined>): Promise<void> {
  const {enrol} = await import('../registry/ownership.js')
  const {openStateDirForWriting} = await import('../registry/state-dir.js')
  await enrol(openStateDirForWriting(env))
}

export {applyChange}
export type {SetupChange}
