import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {PACKAGE_ROOT, SetupChange, hookArgv} from './common.js'

/** Pure: the shipped extension with pk's argv filled in. */
export function renderPiExtension(template: string, pk: string[]): string {
  return template.replace('= __PK_ARGV__', `= ${JSON.stringify(pk)}`).replace('= __PK_HOOK__', `= ${JSON.stringify(hookArgv(pk, 'pi'))}`)
}

export function planPi(before: string | null, file: string, pk: string[]): SetupChange {
  const after = renderPiExtension(readFileSync(join(PACKAGE_ROOT, 'assets', 'pi-extension.js'), 'utf8'), pk)
  const changed = before !== after
  return {agent: 'pi', file, before, after, changed, notes: changed ? ['extension: state reports and /bg'] : ['pk extension already installed']}
}

export const piExtensionFile = (home: string, env: Record<string, string | undefined>) =>
  join(env.PI_CODING_AGENT_DIR || join(home, '.pi', 'agent'), 'extensions', 'pk.js')
