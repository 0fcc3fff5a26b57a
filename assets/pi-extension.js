// pk integration for the Pi coding agent, installed by `pk setup pi`.
// Reports Pi's state to pk (which finds this session by process ancestry, not by any token) and adds
// /bg, which moves this conversation into a background tmux session and then ends this Pi.
import {execFile} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

/* global __PK_ARGV__, __PK_HOOK__, clearTimeout */
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

function sessionFile(ctx) {
  try {
    return ctx?.sessionManager?.getSessionFile?.() ?? null
  } catch {
    return null
  }
}

function report(event, ctx, extra = {}) {
  // `at`: Pi's own clock orders the reports, which can arrive out of order across /reload. `transcript`:
  // the session file, where pk reads what the conversation spends.
  const payload = JSON.stringify({event, sessionId: sessionId(ctx), cwd: ctx?.cwd ?? null, transcript: sessionFile(ctx), at: Date.now(), ...extra})
  // Fire and forget: pk hook always exits 0 and quickly; Pi never waits on it.
  const child = execFile(HOOK[0], [...HOOK.slice(1), payload], {timeout: 10_000}, () => {})
  child.unref?.()
}

// Pi retries a failed attempt by itself (overloaded, rate limits, 5xx, network errors), and fires
// agent_end after each failed attempt while it shows "Retrying (n/3)": that is not the end of the turn.
// The same test as Pi 0.74's own (AgentSession._isRetryableError), and its retry settings.
const RETRYABLE =
  /overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed|fetch failed|upstream.?connect|reset before headers|socket hang up|ended without|stream ended before message_stop|http2 request did not get a response|timed? out|timeout|terminated|retry delay/i

function retrySettings(cwd) {
  const settings = {enabled: true, maxRetries: 3}
  const dir = process.env.PI_CODING_AGENT_DIR || join(homedir(), '.pi', 'agent')
  for (const file of [join(dir, 'settings.json'), join(cwd || '.', '.pi', 'settings.json')]) {
    try {
      const retry = JSON.parse(readFileSync(file, 'utf8')).retry
      if (typeof retry?.enabled === 'boolean') settings.enabled = retry.enabled
      if (Number.isInteger(retry?.maxRetries)) settings.maxRetries = retry.maxRetries
    } catch {
      // no such settings: Pi's defaults
    }
  }
  return settings
}

const lastAssistant = (messages) => [...(messages ?? [])].reverse().find((m) => m?.role === 'assistant')

export default function (pi) {
  let retries = 0
  let giveUp = null
  pi.on('session_start', async (_event, ctx) => report('session_start', ctx))
  pi.on('agent_start', async (_event, ctx) => {
    clearTimeout(giveUp)
    report('agent_start', ctx)
  })
  pi.on('agent_end', async (event, ctx) => {
    clearTimeout(giveUp)
    const last = lastAssistant(event?.messages)
    const failed = last?.stopReason === 'error'
    const settings = failed ? retrySettings(ctx?.cwd) : null
    if (failed && settings.enabled && RETRYABLE.test(String(last.errorMessage ?? '')) && retries < settings.maxRetries) {
      retries++
      report('agent_retry', ctx, {attempt: retries})
      // Should Pi not come back (the retry cancelled with Escape), the turn has ended after all.
      giveUp = setTimeout(() => {
        retries = 0
        report('agent_end', ctx, {failed: true})
      }, 120_000)
      giveUp.unref?.()
      return
    }
    retries = 0
    report('agent_end', ctx, failed ? {failed: true} : {})
  })
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
        // pk's own messages start with "pk: " already.
        if (error) ctx.ui?.notify?.(`pk: ${String(stderr || error.message).trim().replace(/^pk: /, '')}`, 'error')
        else ctx.ui?.notify?.(`pk: continued in session ${String(stdout).trim()}`, 'info')
      })
    },
  })
}
