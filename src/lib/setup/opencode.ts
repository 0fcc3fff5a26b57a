import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {PACKAGE_ROOT, SetupChange, hookArgv} from './common.js'

/** Pure: the shipped plugin with pk's sh hook filled in. */
export function renderOpencodePlugin(template: string, pk: string[]): string {
  return template.replace('= __PK_HOOK__', `= ${JSON.stringify(hookArgv(pk, 'opencode'))}`)
}

export function planOpencode(before: string | null, file: string, pk: string[]): SetupChange {
  const after = renderOpencodePlugin(readFileSync(join(PACKAGE_ROOT, 'assets', 'opencode-plugin.js'), 'utf8'), pk)
  const changed = before !== after
  return {agent: 'opencode', file, before, after, changed, notes: changed ? ['plugin: state reports and usage'] : ['pk plugin already installed']}
}

/** opencode loads every file in its config directory's plugins/ at start. */
export const opencodePluginFile = (home: string, env: Record<string, string | undefined>) =>
  join(env.XDG_CONFIG_HOME || join(home, '.config'), 'opencode', 'plugins', 'pk.js')
