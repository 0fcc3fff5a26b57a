import {Check} from '../types.js'

/**
 * Whether pk reads each agent session's state from the agent's own word (docs/agents.md, "Where each state
 * comes from"): a record of its own that is not believed (a link, writable by others, another user's), and a
 * screen that has read otherwise than the agent's word for longer than a moment (a rule that does not fit
 * the release), each a warning with the session it is about. pk changes nothing here.
 */
export const agentStatesCheck: Check = {
  id: 'agent-states',
  title: "agents' states come from what they say of themselves",
  judge(facts) {
    const seen = facts.agentStates
    if (seen === undefined) return {status: 'skip', message: 'no listing could be taken', fix: null, fixable: false}
    const lines = seen.problems.map((p) => p.message)
    if (lines.length === 0)
      return {
        status: 'pass',
        message: seen.read === 0 ? 'no session whose agent keeps a record of itself' : `${seen.read} session(s) read from their agent's own record`,
        fix: null,
        fixable: false,
      }
    const refused = seen.problems.some((p) => p.code === 'own-state-refused')
    return {
      status: 'warn',
      message: lines.join('; '),
      fix: refused
        ? "make the agent's folder yours and writable only by you (chmod go-w ~/.claude/sessions), and its records plain files"
        : 'npm run agents -- --latest names the screens that read differently on a new release',
      fixable: false,
    }
  },
}
