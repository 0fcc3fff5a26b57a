// pk integration for the Pi coding agent, installed by `pk setup pi`.
// Reports Pi's state to pk (which finds this session by process ancestry, not by any token) and adds
// /bg, which moves this conversation into a background tmux session and then ends this Pi.
import {execFile} from 'node:child_process'

/* global __PK_ARGV__, __PK_HOOK__ */
// Filled in by `pk setup pi`: the argv that runs pk (node and pk's bin/run.js), and pk's sh hook, which
// takes an event without starting node.
const PK = __PK_ARGV__
const HOOK = __PK_HOOK__

function sessionId(ctx) {
  try {
    return ctx?.sessionManager?.getSessionId?.() ?? null
  } catch {
    return null
  }
}

function report(event, ctx) {
  // `at`: Pi's own clock orders the reports, which can arrive out of order across /reload.
  const payload = JSON.stringify({event, sessionId: sessionId(ctx), cwd: ctx?.cwd ?? null, at: Date.now()})
  // Fire and forget: pk hook always exits 0 and quickly; Pi never waits on it.
  const child = execFile(HOOK[0], [...HOOK.slice(1), payload], {timeout: 10_000}, () => {})
  child.unref?.()
}

export default function (pi) {
  pi.on('session_start', async (_event, ctx) => report('session_start', ctx))
  pi.on('agent_start', async (_event, ctx) => report('agent_start', ctx))
  pi.on('agent_end', async (_event, ctx) => report('agent_end', ctx))
  pi.on('session_shutdown', async (_event, ctx) => report('session_shutdown', ctx))

  pi.registerCommand('bg', {
    description: 'Continue this conversation in a background tmux session (pk), then close this one',
    handler: async (_args, ctx) => {
      const id = sessionId(ctx)
      if (!id) {
        ctx.ui?.notify?.('pk: this session has no id yet; say something first', 'error')
        return
      }
      execFile(PK[0], [...PK.slice(1), 'bg', '--handoff', '--conversation', id, '--agent-name', 'pi'], {timeout: 30_000}, (error, stdout, stderr) => {
        if (error) ctx.ui?.notify?.(`pk: ${String(stderr || error.message).trim()}`, 'error')
        else ctx.ui?.notify?.(`pk: continued in session ${String(stdout).trim()}`, 'info')
      })
    },
  })
}
