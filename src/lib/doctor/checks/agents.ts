import {judgeRelease} from '../../agents/releases.js'
import {Check} from '../types.js'

/** Which release of each agent on PATH pk found, and whether pk is verified on it (agents/releases.ts). */
export const agentsCheck: Check = {
  id: 'agents',
  title: 'the agents on your PATH are releases pk is verified on',
  judge(facts) {
    const found = facts.agentReleases ?? []
    if (found.length === 0) return {status: 'pass', message: 'no agent pk knows is on your PATH', fix: null, fixable: false}
    const verdicts = found.map((a) =>
      a.release === null
        ? {verified: false, note: `${a.agent} at ${a.path}: its release is not known (not installed from npm)`}
        : judgeRelease(a.agent, a.release),
    )
    const off = verdicts.filter((v) => !v.verified)
    return {
      status: off.length === 0 ? 'pass' : 'warn',
      message: verdicts.map((v) => v.note).join('; '),
      fix:
        off.length === 0
          ? null
          : 'use a release pk is verified on (docs/agents.md lists them), or a newer pk; pk still works, its reading of these may be wrong',
      fixable: false,
    }
  },
}
