import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import type {SessionRow} from '../../src/lib/model/contract.js'
import {pendingNames, readSpoolFile} from '../../src/lib/events/spool.js'
import {ROOT, Sandbox, waitFor} from './sandbox.js'

/** Claude Code's hook payload for one event, as it sends it on stdin. */
export const claudePayload = (event: string, extra = '') => `{"hook_event_name":"${event}","session_id":"conv-s"${extra}}`

/**
 * The events pk's sh hook left in the spool (pending, not yet applied), as pk sees them: a file its hook is
 * still writing in place is not one yet (so a test that waits for N events reads N whole ones); `all`
 * lists those too.
 */
export const spooled = (sb: Sandbox, opts: {all?: boolean} = {}) => {
  const dir = join(sb.stateDir, 'spool')
  if (!existsSync(dir)) return []
  const names = pendingNames(dir)
  if (opts.all) return names
  return names.filter((name) => {
    const outcome = readSpoolFile(dir, name)
    return outcome !== null && !('writing' in outcome)
  })
}

/**
 * A pk bg session whose process, once told (after its record exists), reports one Claude Code event
 * through pk's real sh hook from inside its pane, then stays. Resolves once the event is pending.
 */
export async function reportingSession(sb: Sandbox, payload: string): Promise<SessionRow> {
  const go = join(sb.root, `go-${Math.random().toString(36).slice(2)}`)
  const hook = join(ROOT, 'assets', 'pk-hook.sh')
  const before = spooled(sb).length
  const row = await sb.bgRow(['--', 'sh', '-c', `while [ ! -e "${go}" ]; do sleep 0.1; done; printf %s '${payload}' | "${hook}" claude; exec sleep 100000`])
  writeFileSync(go, '')
  await waitFor('the event pending', () => spooled(sb).length === before + 1, 15_000)
  return row
}
