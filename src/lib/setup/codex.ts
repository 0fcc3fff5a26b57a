import {join} from 'node:path'

import {PkError} from '../model/errors.js'
import {SetupChange, hookArgv} from './common.js'

/**
 * Pure (given a TOML parser): config.toml text -> the same file with a top-level `notify` that runs
 * pk. The file is edited as text so the user's comments and layout survive; a `notify` of the user's
 * own is never replaced.
 */
export function planCodex(before: string | null, file: string, pk: string[], parse: (text: string) => Record<string, unknown>): SetupChange {
  const notify = hookArgv(pk, 'codex')
  const line = `notify = ${JSON.stringify(notify)}`
  let existing: unknown
  if (before !== null) {
    try {
      existing = parse(before).notify
    } catch (error) {
      throw new PkError('bad-settings', `${file} is not valid TOML (${(error as Error).message}); fix it first, pk will not overwrite it`)
    }
  }
  const isPk = (value: unknown) =>
    Array.isArray(value) &&
    value.length >= 2 &&
    ((value.at(-2) === 'hook' && value.at(-1) === 'codex') || (/(^|\/)pk-hook\.sh$/.test(String(value[0])) && value[1] === 'codex'))
  if (existing !== undefined && !isPk(existing)) {
    throw new PkError(
      'notify-taken',
      `${file} already has notify = ${JSON.stringify(existing)}; Codex runs one notify program. Remove yours or make it call: ${notify.join(' ')} "$1"`,
    )
  }
  if (existing !== undefined && JSON.stringify(existing) === JSON.stringify(notify)) {
    return {agent: 'codex', file, before, after: before!, changed: false, notes: ['pk notify already installed']}
  }
  let after: string
  if (before === null) after = `${line}\n`
  else if (existing !== undefined) after = before.replace(/^notify\s*=.*$/m, line)
  else {
    // Top-level keys must come before the first [table].
    const table = before.search(/^\[/m)
    after = table === -1 ? `${before.replace(/\n*$/, '\n')}${line}\n` : `${before.slice(0, table)}${line}\n\n${before.slice(table)}`
  }
  return {agent: 'codex', file, before, after, changed: true, notes: ['notify program (agent-turn-complete)']}
}

export const codexConfigFile = (home: string, env: Record<string, string | undefined>) => join(env.CODEX_HOME || join(home, '.codex'), 'config.toml')
