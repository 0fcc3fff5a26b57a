import {assertMayWrite} from '../registry/ownership.js'
import {resolveStateDir, stateLayout} from '../registry/state-dir.js'
import {Context} from '../config/context.js'
import {orphanedServersCheck} from './checks/orphaned-servers.js'
import {pidNamespaceCheck} from './checks/pid-namespace.js'
import {processSourceCheck} from './checks/process-source.js'
import {serverEnvCheck} from './checks/server-env.js'
import {serversCheck} from './checks/servers.js'
import {socketDirCheck} from './checks/socket-dir.js'
import {staleSocketsCheck} from './checks/stale-sockets.js'
import {stateDirCheck} from './checks/state-dir.js'
import {stateLockCheck} from './checks/state-lock.js'
import {configCheck} from './checks/config.js'
import {surviveCheck} from './checks/survive.js'
import {wakeupsCheck} from './checks/wakeups.js'
import {mcpCheck} from './checks/mcp.js'
import {tmuxCheck} from './checks/tmux.js'
import {agentsCheck} from './checks/agents.js'
import {agentStatesCheck} from './checks/agent-states.js'
import {gatherFacts} from './facts.js'
import {Check, DoctorFacts} from './types.js'
import {CheckResult} from '../model/contract.js'

export const CHECKS: readonly Check[] = [
  tmuxCheck,
  socketDirCheck,
  serversCheck,
  staleSocketsCheck,
  orphanedServersCheck,
  processSourceCheck,
  pidNamespaceCheck,
  stateDirCheck,
  stateLockCheck,
  configCheck,
  serverEnvCheck,
  surviveCheck,
  wakeupsCheck,
  mcpCheck,
  agentsCheck,
  agentStatesCheck,
]

export function judgeAll(facts: DoctorFacts): CheckResult[] {
  return CHECKS.map((check) => ({id: check.id, title: check.title, ...check.judge(facts)}))
}

export interface Diagnosis {
  checks: CheckResult[]
  fixes: string[]
}

export async function diagnose(ctx: Context): Promise<Diagnosis> {
  return {checks: judgeAll(await gatherFacts(ctx)), fixes: []}
}

/** Apply every lossless fix that a fixable check offers, then diagnose again. */
export async function diagnoseAndFix(ctx: Context, opts: {confirm?: (question: string) => Promise<boolean>} = {}): Promise<Diagnosis> {
  // Checked on the directory as it is (not opened: an unsafe one is what --fix tightens), before anything.
  assertMayWrite(stateLayout(resolveStateDir(ctx.env)))
  const facts = await gatherFacts(ctx)
  const fixes: string[] = []
  for (const result of judgeAll(facts)) {
    const check = CHECKS.find((c) => c.id === result.id)!
    if (result.fixable && check.fix) for (const line of await check.fix(facts, opts)) fixes.push(line)
  }
  return {checks: judgeAll(await gatherFacts(ctx)), fixes}
}

export const failed = (d: Diagnosis) => d.checks.some((c) => c.status === 'fail')
export type {CheckResult} from '../model/contract.js'
