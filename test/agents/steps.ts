import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'vitest'

import {readDialog} from '../../src/lib/agents/dialogs.js'
import {AgentLab, timesSent} from './lab.js'
import {Step} from './scenario.js'

/**
 * The steps every agent's check takes, each through pk's own verbs as a user or a script would, checking
 * what pk says of the session on each screen, the exit of each verb, what reached the fake model API, and
 * that each turn end, failure and dialog is told (told more than once fails the whole agent's check).
 */

/** The session the steps act on (a resume gives it a new id). */
export interface Session {
  id: string
}

/** The agent's dialog is on its screen (a hook's report can come before the agent draws it). */
export const dialogShown = (agent: string) => (_: unknown, screen: string) => readDialog(agent, screen) !== null

/** pk send, which must exit 0. */
export async function send(lab: AgentLab, s: Session, text: string, extra: string[] = []): Promise<void> {
  const sent = await lab.pk(['send', s.id, text, ...extra])
  expect(sent.code, `pk send ${text}: ${sent.stderr}`).toBe(0)
}

/** Starts the agent with pk bg and waits for its prompt. */
export function start(step: Step, lab: () => AgentLab, s: Session, opts: {fixture?: string} = {}): void {
  step('start: its prompt', async () => {
    s.id = await lab().bg(`${lab().driver.name}-check`)
    await lab().expectState(s.id, 'idle', {fixture: opts.fixture ?? 'prompt', timeoutMs: 90_000})
  })
}

/** A turn answered with text at once: idle, a turn end told once, the message taken once. */
export function plainTurn(step: Step, lab: () => AgentLab, s: Session, done: RegExp): void {
  step('a plain turn', async () => {
    await lab().fake.behave({answer: 'text', text: 'Done with the first turn.'})
    const since = Date.now()
    await send(lab(), s, 'the first turn')
    await lab().expectState(s.id, 'idle', {attention: true, fixture: 'turn-done', also: (_, screen) => done.test(screen), timeoutMs: 60_000})
    expect(timesSent(await lab().fake.turns(), 'the first turn')).toBe(1)
    expect((await lab().toldSince(s.id, since)).map((t) => t.reason)).toEqual(['finished its turn'])
  })
}

/** A slow turn (working), and a message sent while it works: taken once, and the turns end told. */
export function workingAndQueued(step: Step, lab: () => AgentLab, s: Session, opts: {fixture?: string; queued?: (screen: string) => boolean} = {}): void {
  step('working, and a message sent while it works', async () => {
    await lab().fake.behave({answer: 'text', text: 'Done slowly.', delayMs: 15_000})
    await send(lab(), s, 'a slow turn')
    await lab().expectState(s.id, 'working', {fixture: opts.fixture ?? 'thinking', timeoutMs: 14_000})
    const since = Date.now()
    await send(lab(), s, 'sent while it works')
    if (opts.queued) await lab().expectState(s.id, 'working', {fixture: 'queued', also: (_, screen) => opts.queued!(screen), timeoutMs: 10_000})
    await lab().fake.behave({answer: 'text', text: 'Done with both.'})
    await lab().expectState(s.id, 'idle', {attention: true, timeoutMs: 90_000, also: () => true})
    // Both taken, each once (an agent may have taken the second as a turn of its own, or with the first).
    await waitForTurns(lab(), s, ['a slow turn', 'sent while it works'])
    await lab().expectState(s.id, 'idle', {attention: true, timeoutMs: 60_000})
    await lab().toldSince(s.id, since)
  })
}

/** Until the newest request of the conversation has each text once (an agent may need a turn more for the second). */
async function waitForTurns(lab: AgentLab, s: Session, texts: string[]): Promise<void> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const turns = await lab.fake.turns()
    const counts = texts.map((t) => timesSent(turns, t))
    if (counts.every((n) => n === 1)) return
    const look = await lab.look(s.id)
    if (counts.some((n) => n > 1) || Date.now() > deadline)
      throw lab.failure(`each of ${JSON.stringify(texts)} sent once (sent: ${JSON.stringify(counts)})`, look)
    await new Promise((r) => setTimeout(r, 500))
  }
}

/**
 * A permission dialog (the agent asked to run `touch FILE`), answered as given: waiting and told, the dialog
 * read with the choices `means`, the answer taken, and the file made or not.
 */
export function permission(
  step: Step,
  lab: () => AgentLab,
  s: Session,
  answer: string,
  opts: {file: string | null; means: string[]; fixture?: string; behavior?: Record<string, unknown>},
): void {
  step(`a permission dialog answered ${answer}`, async () => {
    const file = opts.file ?? `refused-by-${answer}`
    await lab().fake.behave({answer: 'tool', command: `touch ${file}`, ...opts.behavior})
    const since = Date.now()
    await send(lab(), s, `make a file (${answer})`)
    const agent = lab().driver.preset
    await lab().expectState(s.id, 'waiting', {attention: true, also: dialogShown(agent), ...(opts.fixture ? {fixture: opts.fixture} : {}), timeoutMs: 60_000})
    const screen = JSON.parse((await lab().pk(['logs', s.id, '--screen', '--json'])).stdout) as {dialog: {choices: {means: string}[]} | null}
    expect(screen.dialog?.choices.map((c) => c.means)).toEqual(opts.means)
    await lab().toldSince(s.id, since)
    const answered = await lab().pk(['answer', s.id, answer])
    expect(answered.code, answered.stderr).toBe(0)
    await lab().expectState(s.id, 'idle', {timeoutMs: 60_000})
    expect(existsSync(join(lab().work, file)), `${file} made`).toBe(opts.file !== null)
  })
}

/** A turn that fails (the fake API answers `behavior`): idle once the agent gave up, told once. */
export function failedTurn(step: Step, lab: () => AgentLab, s: Session, behavior: Record<string, unknown>, shows: RegExp, timeoutMs = 60_000): void {
  step(
    'a failed turn',
    async () => {
      await lab().fake.behave(behavior)
      const since = Date.now()
      await send(lab(), s, 'this one fails')
      await lab().expectState(s.id, 'idle', {attention: true, fixture: 'failed', also: (_, screen) => shows.test(screen), timeoutMs})
      const told = await lab().toldSince(s.id, since)
      expect(told.length).toBe(1)
    },
    timeoutMs + 60_000,
  )
}

/** pk stop, then pk resume: the new session goes on with the same conversation, and takes a message once. */
export function stopAndResume(step: Step, lab: () => AgentLab, s: Session, done: RegExp): void {
  step('stopped and resumed, the conversation goes on', async () => {
    await lab().fake.behave({answer: 'text', text: 'Done after the resume.'})
    const stopped = await lab().pk(['stop', s.id])
    expect(stopped.code, stopped.stderr).toBe(0)
    await lab().expectState(s.id, 'exited')
    const resumed = await lab().pk(['resume', s.id, '--json'])
    expect(resumed.code, resumed.stderr).toBe(0)
    s.id = (JSON.parse(resumed.stdout) as {session: {id: string}}).session.id
    const since = Date.now()
    // (sent at once: pk send waits for the resumed agent to be ready, as a script would have it)
    await send(lab(), s, 'after the resume')
    await lab().expectState(s.id, 'idle', {attention: true, also: (_, screen) => done.test(screen), timeoutMs: 60_000})
    const turns = await lab().fake.turns()
    const said = `the newest request's messages: ${JSON.stringify(turns.at(-1)?.users.map((u) => u.slice(0, 60)))}`
    expect(timesSent(turns, 'after the resume'), said).toBe(1)
    // (the same conversation: its earlier turns are in what the agent sent; Gemini CLI 0.61 folds the first
    // prompt into a context it may draw again, so the slow turn stands for them)
    expect(
      ['the first turn', 'a slow turn'].map((t) => timesSent(turns, t)),
      said,
    ).toContain(1)
    await lab().toldSince(s.id, since)
  })
}

/**
 * A turn that meets a usage or rate limit (the fake API answers `behavior`): listed limited (with its reset
 * where the agent shows one, `reset`: that moment, or `shown`: one the agent worked out), told once as a limit, never as a finished turn; then, the limit
 * lifted, `pk continue` carries it on once (Gemini CLI's Keep trying, else the message "continue").
 */
export function usageLimit(
  step: Step,
  lab: () => AgentLab,
  s: Session,
  opts: {behavior: Record<string, unknown>; fixture: string; reset: Date | 'shown' | null; what: RegExp; timeoutMs?: number},
): void {
  const timeoutMs = opts.timeoutMs ?? 90_000
  step(
    'a usage limit, told once, continued by pk continue',
    async () => {
      await lab().fake.behave(opts.behavior)
      const since = Date.now()
      await send(lab(), s, 'this one meets the limit')
      const {row} = await lab().expectState(s.id, 'limited', {
        attention: true,
        fixture: opts.fixture,
        also: (r) => r.limit !== null && r.limit.since !== null && opts.what.test(r.limit.what),
        timeoutMs,
      })
      if (opts.reset === 'shown') expect(row!.limit!.resetsAt).not.toBeNull()
      else expect(row!.limit!.resetsAt).toBe(opts.reset === null ? null : opts.reset.toISOString())
      const told = await lab().toldSince(s.id, since)
      expect(told.map((t) => t.reason)).toEqual([expect.stringMatching(/^hit its .*limit/)])
      await lab().fake.behave({answer: 'text', text: 'Done after the limit.'})
      const continued = await lab().pk(['continue', s.id, '--json'])
      expect(continued.code, continued.stderr).toBe(0)
      await lab().expectState(s.id, 'idle', {attention: true, also: (_, screen) => /Done after the limit/.test(screen), timeoutMs: 60_000})
      // (typed once: the message, or Gemini's choice, which sends no words of its own)
      if (JSON.parse(continued.stdout).typed === 'continue') expect(timesSent(await lab().fake.turns(), 'continue')).toBe(1)
    },
    timeoutMs + 120_000,
  )
}

/** A reset the agent shows to the minute, `minutes` whole minutes from now. */
export const resetAhead = (minutes: number) => new Date((Math.floor(Date.now() / 60_000) + minutes) * 60_000)
