import type {Writable} from 'node:stream'

import {parseAnswer} from '../agents/dialogs.js'
import {Context} from '../config/context.js'
import {SessionRow} from '../model/contract.js'
import {PkError} from '../model/errors.js'
import {resolveId} from '../listing/resolve.js'
import {collectSessions} from '../listing/sessions.js'
import {lookAtSessions, waitForStates, WaitTarget} from '../listing/watch.js'
import {answerDialog} from '../verbs/answer.js'
import {launch} from '../verbs/bg.js'
import {readLogs, readScreen, stopSession} from '../verbs/lifecycle.js'
import {diffChanges, landSession} from '../verbs/review.js'
import {sendText} from '../verbs/send.js'
import {Caller} from './rights.js'
import {rowForAgent, untrusted} from './untrusted.js'

/**
 * pk mcp's tools: each one of pk's verbs, called as the command calls it, under the same checks. What a
 * session's agent wrote comes back apart, marked untrusted (untrusted.ts). Rights are decided before any
 * of these runs (rights.ts); these only do what was asked.
 */

/** How long an action waits for a slow tmux server or an agent not ready yet: what the CLI's --timeout defaults to. */
const ACTION_TIMEOUT_MS = 30_000
/** How long start_session's first message waits for the new agent to be ready for it. */
const FIRST_MESSAGE_TIMEOUT_MS = 120_000

export interface ListArgs {
  attention?: boolean
  state?: string
  agent?: string
  children?: boolean
  all?: boolean
}

/** Pure: the rows list_sessions gives, filtered as asked (children: the caller's). */
export function listFor(rows: readonly SessionRow[], args: ListArgs, isChild: (row: SessionRow) => boolean): SessionRow[] {
  return rows.filter(
    (r) =>
      r.kind !== 'pane' &&
      (args.all === true || r.resumedBy === null) &&
      (args.attention !== true || r.attention) &&
      (args.state === undefined || r.state === args.state) &&
      (args.agent === undefined || r.agent === args.agent) &&
      (args.children !== true || isChild(r)),
  )
}

export async function listSessions(ctx: Context, args: ListArgs, isChild: (row: SessionRow) => boolean) {
  const listing = await collectSessions(ctx)
  return {
    sessions: listFor(listing.rows, args, isChild).map(rowForAgent),
    problems: listing.problems.map((p) => ({code: p.code, message: p.message})),
  }
}

/** One session as the listing has it now (the id resolved, a prefix made whole), for the rights to look at. */
export async function targetOf(ctx: Context, idArg: string): Promise<SessionRow> {
  return resolveId(idArg, (await collectSessions(ctx)).rows)
}

export interface StartArgs {
  agent?: string
  command?: string[]
  name?: string
  cwd?: string
  worktree?: boolean
  branch?: string
  message?: string
}

/** pk bg (its parent found by identity, as for any pk bg run among a session's processes), then the first message when idle. */
export async function startSession(ctx: Context, args: StartArgs, setupOutput: Writable, onStarted: (id: string) => Promise<void>, live: () => void) {
  if (args.agent === undefined && (args.command === undefined || args.command.length === 0))
    throw new PkError('no-command', 'start_session needs an agent (a preset: claude, codex, gemini, opencode, pi, aider) or a command')
  if (args.branch !== undefined && args.worktree !== true) throw new PkError('bad-flags', 'branch goes with worktree: true')
  live()
  const started = await launch(ctx, {
    agent: args.agent,
    extra: args.command ?? [],
    cwd: args.cwd,
    name: args.name,
    socket: undefined,
    worktree: args.worktree === true ? {branch: args.branch, from: undefined} : null,
    // (never the MCP stream: the command hands in stderr)
    setupOutput,
  })
  await onStarted(started.id)
  const sent =
    args.message === undefined
      ? null
      : await sendText(started.id, ctx, args.message, {enter: true, timeoutMs: FIRST_MESSAGE_TIMEOUT_MS, whenIdle: true, check: live})
  return {
    id: started.id,
    agent: started.record.agent,
    parent: started.record.parent ?? null,
    worktree: started.record.worktree ?? null,
    message: sent,
  }
}

export async function sendMessage(ctx: Context, id: string, text: string, whenIdle: boolean, live: () => void) {
  return sendText(id, ctx, text, {enter: true, timeoutMs: whenIdle ? 10 * 60_000 : ACTION_TIMEOUT_MS, whenIdle, check: live})
}

export interface AnswerArgs {
  answer?: string
  text?: string
  dialog?: string
}

/** pk answer: a choice (yes, no, always, a number) for a dialog, or words for a question; pinned to the dialog read when its digest is given. */
export async function answer(ctx: Context, id: string, args: AnswerArgs, live: () => void) {
  if ((args.answer === undefined) === (args.text === undefined))
    throw new PkError('bad-flags', 'answer_dialog takes answer (yes, no, always, a number) or text, one of them')
  if (args.text !== undefined)
    return sendText(id, ctx, args.text, {
      enter: true,
      timeoutMs: ACTION_TIMEOUT_MS,
      whenIdle: false,
      answering: true,
      check: live,
      ...(args.dialog ? {dialog: args.dialog} : {}),
    })
  const choice = parseAnswer(args.answer!)
  if (choice === null) throw new PkError('bad-flags', `answer ${JSON.stringify(args.answer)}: yes, no, always, or the number of a choice`)
  live()
  const done = await answerDialog(id, ctx, choice, {timeoutMs: ACTION_TIMEOUT_MS, ...(args.dialog ? {dialog: args.dialog} : {})})
  const {question, choice: chosen, ...own} = done
  return {...own, choice: chosen.n, dialog: untrusted(`the dialog of session ${done.id}, as its agent drew it`, {question, choice: chosen.label})}
}

// eslint-disable-next-line no-control-regex -- SGR sequences
const SGR = /\x1b\[[0-9;:]*m/g

/** Its screen now (with the dialog pk would answer, and its digest), or its last lines. */
export async function readSession(ctx: Context, id: string, lines: number | undefined) {
  if (lines !== undefined) {
    const out: string[] = []
    const read = await readLogs(id, ctx, {lines, color: false, follow: false, emit: (l) => out.push(...l)})
    return {id: read.id, dead: read.dead, output: untrusted(`the last ${lines} lines of session ${read.id}'s pane`, out.join('\n'))}
  }
  const look = await readScreen(id, ctx)
  return {
    id: look.id,
    state: look.state,
    dead: look.screen.dead,
    question: look.question,
    dialog: look.dialog === null ? null : {digest: look.dialog.digest, choices: look.dialog.choices.map((c) => c.n)},
    output: untrusted(`session ${look.id}'s screen, as its agent drew it`, look.screen.text.replace(SGR, '')),
    ...(look.dialog === null
      ? {}
      : {
          dialogText: untrusted(`the dialog on session ${look.id}'s screen`, {
            question: look.dialog.question,
            body: look.dialog.body,
            choices: look.dialog.choices,
          }),
        }),
  }
}

export async function sessionChanges(ctx: Context, id: string) {
  const {row, base, changes} = await diffChanges(ctx, id, [])
  return {
    id: row.id,
    base: {commit: base.commit, kind: base.kind},
    changes: untrusted(`what session ${row.id} changed since its base (files, commits, as its agent wrote them)`, {...changes, branch: base.branch}),
  }
}

export async function stop(ctx: Context, id: string, force: boolean) {
  return stopSession(id, ctx, {force, timeoutMs: 10_000})
}

export interface LandArgs {
  strategy?: 'merge' | 'squash' | 'rebase'
  message?: string
  commit?: string
  idle?: boolean
  dry_run?: boolean
}

export async function land(ctx: Context, id: string, args: LandArgs) {
  const landed = await landSession(ctx, id, {
    strategy: args.strategy ?? 'merge',
    commit: args.commit ?? null,
    message: args.message ?? null,
    idle: args.idle === true,
    push: false,
    pr: false,
    prune: false,
    dryRun: args.dry_run === true,
  })
  return landed
}

export interface WaitArgs {
  ids?: string[]
  children?: boolean
  for?: WaitTarget
  any?: boolean
  timeout_seconds?: number
}

/** Pure: the ids a wait waits on: those given, or the caller's children (those it started, as far as this server knows). */
export function waitIds(args: WaitArgs, caller: Caller): {idArgs: string[]; childrenOf: string | undefined} {
  const given = args.ids ?? []
  if (args.children === true && given.length > 0) throw new PkError('bad-flags', 'wait_for takes ids or children: true, not both')
  if (args.children !== true) {
    if (given.length === 0) throw new PkError('bad-flags', 'wait_for needs ids, or children: true (the sessions the caller started)')
    return {idArgs: given, childrenOf: undefined}
  }
  if (caller.session !== null) return {idArgs: [], childrenOf: caller.session}
  if (caller.started.size === 0) throw new PkError('no-children', 'the caller has no children to wait on (it started no session)')
  return {idArgs: [...caller.started], childrenOf: undefined}
}

/** pk wait, telling how it goes after each look (MCP progress), up to its timeout. */
export async function waitFor(ctx: Context, args: WaitArgs, caller: Caller, progress: (looks: number, states: string) => void, live: () => void) {
  const {idArgs, childrenOf} = waitIds(args, caller)
  const look = lookAtSessions(ctx)
  let looks = 0
  const done = await waitForStates({
    ctx,
    idArgs,
    childrenOf,
    // (a lead waits for its workers to stop working: whether the user looks at one is not its business)
    target: args.for ?? 'any',
    mode: args.any === true ? 'any' : 'all',
    timeoutMs: (args.timeout_seconds ?? 300) * 1000,
    intervalMs: 500,
    look: async (ms) => {
      // (the switch turned off ends a wait at once, refused)
      live()
      const seen = await look(ms)
      looks += 1
      progress(
        looks,
        seen.rows
          .filter((r) => r.parent === childrenOf || idArgs.some((a) => r.id.startsWith(a)))
          .map((r) => `${r.id} ${r.state}`)
          .join(', '),
      )
      return seen
    },
  })
  return {
    sessions: done.map((r) => ({id: r.id, agent: r.agent, state: r.state, attention: r.attention, attentionSince: r.attentionSince, exitStatus: r.exitStatus})),
  }
}
