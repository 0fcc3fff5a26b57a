import {expect} from 'vitest'

import {codex} from './drivers.js'
import {timesSent} from './lab.js'
import {agentCheck} from './scenario.js'
import {Session, failedTurn, permission, plainTurn, resetAhead, send, start, stopAndResume, usageLimit, workingAndQueued} from './steps.js'

agentCheck(codex, (lab, step) => {
  const s: Session = {id: ''}
  start(step, lab, s)
  plainTurn(step, lab, s, /Done with the first turn/)
  workingAndQueued(step, lab, s, {fixture: 'busy', queued: (screen) => /Messages to be submitted after next tool call/.test(screen)})
  // Codex asks before it runs a command outside its sandbox; it has no hook for it: the screen says waiting.
  const means = ['yes', 'always', 'no']
  permission(step, lab, s, 'yes', {file: 'by-yes', means, fixture: 'permission', behavior: {escalate: true}})
  permission(step, lab, s, 'no', {file: null, means, behavior: {escalate: true}})
  permission(step, lab, s, '1', {file: 'by-number', means, behavior: {escalate: true}})
  // A lead's call of pk's MCP tools: Codex 0.171.0 asks first ("Allow the pk MCP server to run tool ...?"), which pk
  // read as unknown until issue 69; a Codex lead sat unanswered. A dialog now, answered by its digit.
  step("a call of pk's MCP tool: Codex asks first, pk reads that as a dialog and answers it", async () => {
    await lab().fake.behave({answer: 'tool', toolName: 'list_sessions', namespace: 'mcp__pk', args: {}})
    const sent = await lab().pk(['send', s.id, 'list the sessions'])
    expect(sent.code, sent.stderr).toBe(0)
    await lab().expectState(s.id, 'waiting', {
      fixture: 'mcp-approval',
      also: (_, screen) => /Allow the pk MCP server to run tool "list_sessions"\?/.test(screen),
    })
    const answered = await lab().pk(['answer', s.id, 'yes'])
    expect(answered.code, answered.stderr).toBe(0)
    await lab().expectState(s.id, 'idle', {timeoutMs: 60_000, also: (_, screen) => /Called pk\.list_sessions/.test(screen)})
    expect((await lab().fake.turns()).flatMap((r) => r.toolResults).some((r) => /"sessions"/.test(r))).toBe(true)
  })
  // (a server error, retried while the screen says so; a request Codex does not retry, 400, fails within a
  // moment with no work ever on the screen and no notify: pk cannot tell that turn, see docs/agents.md)
  failedTurn(step, lab, s, {answer: 'error', status: 500}, /\u25A0/, 120_000)
  // Its plan's usage limit (429, usage_limit_reached, with its reset): "try again at 5:10 AM", read off the screen.
  const reset = resetAhead(3)
  usageLimit(step, lab, s, {
    behavior: {answer: 'error', status: 429, limit: 'usage', resetsAt: reset.getTime() / 1000},
    fixture: 'usage-limit',
    reset,
    what: /usage limit/,
  })
  stopAndResume(step, lab, s, /Done after the resume/)

  // Codex 0.171 runs every window's notify from one daemon, started by the first window: each window's turns
  // land on it, also once that first window has stopped.
  step('several windows, the one that started the daemon stopped', async () => {
    await lab().fake.behave({answer: 'text', text: 'Done in a window.'})
    const first = s.id
    const other = {id: await lab().bg('codex-other', `${lab().work}-other`)}
    await lab().expectState(other.id, 'idle', {timeoutMs: 90_000})
    let since = Date.now()
    await send(lab(), other, 'a turn of the other window')
    await lab().expectState(other.id, 'idle', {attention: true, also: (_, screen) => /Done in a window/.test(screen)})
    await lab().toldSince(other.id, since)
    const stopped = await lab().pk(['stop', first])
    expect(stopped.code, stopped.stderr).toBe(0)
    since = Date.now()
    await send(lab(), other, 'after the first window stopped')
    await lab().expectState(other.id, 'idle', {attention: true, also: (_, screen) => /after the first window stopped[\s\S]*Done in a window/.test(screen)})
    expect(timesSent(await lab().fake.turns(), 'after the first window stopped')).toBe(1)
    // Told by its hook, on its own session (no watcher needed: the notify came through the daemon).
    await lab().toldSince(other.id, since)
  })
})
