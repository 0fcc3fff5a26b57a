// pk integration for opencode, installed by `pk setup opencode` (opencode loads every file in
// ~/.config/opencode/plugins/ at start). Reports opencode's state to pk, which finds this session by
// process ancestry, not by any token: the session id is only the conversation to resume.
// opencode keeps its messages in a SQLite database pk does not read; what each finished answer cost
// (opencode's own tokens and cost) is appended here to a usage file per conversation, which the hook
// names, so pk counts it like any agent's transcript.
import {execFile} from 'node:child_process'
import {appendFileSync, mkdirSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

/* global __PK_HOOK__ */
// Filled in by `pk setup opencode`: pk's sh hook, which takes an event without starting node.
const HOOK = __PK_HOOK__
const USAGE_DIR = join(process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'opencode', 'pk-usage')
const usageFile = (sessionId) => join(USAGE_DIR, `${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.jsonl`)

function report(state, event, sessionId, extra = {}) {
  const payload = JSON.stringify({state, event, conversationId: sessionId, transcript: sessionId ? usageFile(sessionId) : null, at: Date.now(), ...extra})
  // Fire and forget: the hook always exits 0 and quickly; opencode never waits on it.
  const child = execFile(HOOK[0], [...HOOK.slice(1), payload], {timeout: 10_000}, () => {})
  child.unref?.()
}

export const PkPlugin = async () => {
  // Subagent sessions (the task tool) are part of the conversation that started them: their answers
  // count for it, and their events are not this pane's conversation.
  const parentOf = new Map()
  const root = (id) => {
    let at = id
    for (let i = 0; i < 32 && parentOf.has(at); i++) at = parentOf.get(at)
    return at
  }
  const counted = new Set()
  let busy = new Set()
  return {
    event: async ({event}) => {
      const p = event?.properties ?? {}
      const info = p.info ?? {}
      switch (event?.type) {
        case 'session.created':
        case 'session.updated':
          if (info.id && info.parentID) parentOf.set(info.id, info.parentID)
          if (event.type === 'session.created' && info.id && !info.parentID) report('idle', 'session.created', info.id)
          return
        case 'session.status': {
          const id = p.sessionID
          if (!id || parentOf.has(id)) return
          // Reported once per turn: opencode repeats `busy` while it works.
          if (p.status?.type === 'busy' && !busy.has(id)) {
            busy.add(id)
            report('working', 'session.busy', id)
          } else if (p.status?.type === 'retry' && !busy.has(id)) {
            busy.add(id)
            report('working', 'session.retry', id)
          }
          return
        }
        case 'session.idle':
          if (!p.sessionID || parentOf.has(p.sessionID)) return
          busy.delete(p.sessionID)
          report('idle', 'session.idle', p.sessionID, {turnEnded: true})
          return
        case 'permission.asked':
        case 'question.asked':
          report('waiting', event.type, root(p.sessionID ?? info.sessionID ?? null))
          return
        case 'permission.replied':
        case 'question.replied':
        case 'question.rejected':
          report('working', event.type, root(p.sessionID ?? info.sessionID ?? null))
          return
        case 'message.updated': {
          // A finished answer, once: opencode's own tokens and cost, for its root conversation.
          if (info.role !== 'assistant' || !info.time?.completed || !info.tokens || counted.has(info.id)) return
          counted.add(info.id)
          const line = {type: 'assistant', id: info.id, sessionID: info.sessionID, time: info.time.completed, modelID: info.modelID ?? null, providerID: info.providerID ?? null, tokens: info.tokens, cost: typeof info.cost === 'number' ? info.cost : null}
          try {
            mkdirSync(USAGE_DIR, {recursive: true, mode: 0o700})
            appendFileSync(usageFile(root(info.sessionID)), JSON.stringify(line) + '\n', {mode: 0o600})
          } catch {
            // usage is a nicety: never in opencode's way
          }
          return
        }
        default:
      }
    },
  }
}
