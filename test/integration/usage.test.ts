import {copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LsJson, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'

/**
 * Issue #25: usage per session from the agents' own transcripts. A stand-in Claude whose hook names its
 * transcript (as Claude's payload does, transcript_path), holding the real transcript of two turns.
 */
let sb: Sandbox
let env: NodeJS.ProcessEnv
beforeEach(() => {
  sb = new Sandbox()
  const bin = join(sb.root, 'bin')
  mkdirSync(bin)
  const hook = join(ROOT, 'assets', 'pk-hook.sh')
  writeFileSync(
    join(bin, 'claude'),
    `#!/bin/sh\nprintf '{"hook_event_name":"Stop","session_id":"%s","transcript_path":"%s"}' "$CONV" "$TRANSCRIPT" | "${hook}" claude "${process.execPath}"\nprintf '? for shortcuts\\n'\nexec sleep 100000\n`,
    {mode: 0o755},
  )
  env = {PATH: `${bin}:${process.env.PATH}`}
})
afterEach(() => sb.cleanup())

describe('usage', () => {
  it('pk ls --json and pk usage --json report what the transcript says, read on as it grows; the table shows it', async () => {
    const transcript = join(sb.root, 'conv.jsonl')
    const real = readFileSync(join(ROOT, 'test', 'fixtures', 'transcripts', 'claude-2.1.197.jsonl'), 'utf8')
    const lines = real.trim().split('\n')
    const cut = lines.findIndex((l) => l.includes('"type":"assistant"')) + 1
    writeFileSync(transcript, lines.slice(0, cut).join('\n') + '\n')
    const row = await sb.bgRow(['claude'], {env: {...env, CONV: '1f40164e-bcd0-4f3f-b48d-25debeccc5c6', TRANSCRIPT: transcript}})
    const first = await waitFor(
      'usage',
      async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id && s.usage?.input === 1),
      15_000,
    )
    expect(first.usage).toMatchObject({
      model: 'claude-opus-4-8',
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      cost: null,
      unpriced: 'claude-opus-4-8',
      source: transcript,
      skippedLines: 0,
    })
    // The second turn is appended, with a line torn by a crash in between: skipped and counted.
    writeFileSync(transcript, lines.slice(0, cut).join('\n') + '\n{"type":"assist\n' + lines.slice(cut).join('\n') + '\n')
    const second = (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id)!
    expect(second.usage).toMatchObject({input: 2, output: 2, skippedLines: 1})
    // With a rate in your config: a cost.
    mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
    writeFileSync(join(sb.home, '.config', 'pk', 'config.json'), JSON.stringify({usage: {rates: {'claude-opus-4-8': {input: 1_000_000, output: 2_000_000}}}}))
    const priced = await sb.pk(['usage', '--json'], {env})
    expect(priced.code, priced.stderr).toBe(0)
    expect(JSON.parse(priced.stdout)).toMatchObject({
      by: 'session',
      lines: [{key: row.id, input: 2, output: 2, cost: 6, sessions: 1}],
      total: {input: 2, output: 2, cost: 6},
    })
    expect((await sb.pk(['ls'], {env})).stdout).toMatch(/USAGE[\s\S]*\b4\b/)
    // Ended sessions count until pruned.
    await sb.pk(['stop', row.id])
    expect(JSON.parse((await sb.pk(['usage', '--json', '--by', 'agent'], {env})).stdout).lines).toEqual([expect.objectContaining({key: 'claude', input: 2})])
    expect((await sb.pk(['usage', '--since', 'soon'], {env})).code).toBe(2)
  }, 60_000)

  it('the writer remembers how far it read, so a reader reads only what came after', async () => {
    const transcript = join(sb.root, 'conv.jsonl')
    copyFileSync(join(ROOT, 'test', 'fixtures', 'transcripts', 'claude-2.1.197.jsonl'), transcript)
    const row = await sb.bgRow(['claude'], {env: {...env, CONV: 'c', TRANSCRIPT: transcript}})
    await waitFor(
      'remembered',
      () => {
        try {
          return JSON.parse(readFileSync(join(sb.stateDir, 'usage', `${row.id}.json`), 'utf8')).offset === readFileSync(transcript).length
        } catch {
          return false
        }
      },
      15_000,
    )
    expect((await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id)!.usage).toMatchObject({input: 2, output: 2})
  }, 60_000)
})

/**
 * Gemini CLI names its session file in every hook payload (transcript_path). A stand-in that runs the hooks
 * `pk setup gemini` installs as Gemini 0.61 does (through sh -c, the payload on stdin), started by hand in
 * a tmux pane of the user's own (not by pk bg), answering each turn with 1 token in and 1 out.
 */
describe('usage of Gemini CLI, started by hand', () => {
  it('two turns: ls --json and usage --json say 2 in, 2 out; the hook says the state and the conversation', async () => {
    expect((await sb.pk(['setup', 'gemini'])).code).toBe(0)
    const bin = join(sb.root, 'bin')
    symlinkSync(join(ROOT, 'test', 'helpers', 'gemini-standin.cjs'), join(bin, 'gemini'))
    const work = join(sb.root, 'work')
    mkdirSync(work)
    const mine = sb.socket('mine')
    const conv = '85909a10-7d3c-4d93-bcb8-5f07290985df'
    sb.tmux(mine, 'new-session', '-d', '-c', work, '-e', `GEMINI_SESSION=${conv}`, '-e', `PATH=${bin}:${process.env.PATH}`, '--', join(bin, 'gemini'))
    const row = await waitFor(
      'the hand-started gemini, from its SessionStart',
      async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.agent === 'gemini' && s.stateSource === 'hook'),
      20_000,
    )
    for (const prompt of ['one', 'two']) sb.tmux(mine, 'send-keys', '-t', row.tmux!.pane, prompt, 'Enter')
    const done = await waitFor(
      'two turns counted',
      async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id && s.usage?.input === 2),
      20_000,
    )
    expect(done.usage).toMatchObject({
      model: 'gemini-3.1-pro-preview',
      input: 2,
      output: 2,
      cacheRead: 0,
      cacheWrite: 0,
      contextTokens: 2,
      cost: null,
      unpriced: 'gemini-3.1-pro-preview',
      skippedLines: 0,
      attention: null,
    })
    expect(done).toMatchObject({state: 'idle', stateSource: 'hook', resume: ['gemini', '--resume', conv]})
    expect(done.usage!.source).toMatch(new RegExp(`/home/\\.gemini/tmp/work/chats/session-.*-${conv.slice(0, 8)}\\.jsonl$`))
    const usage = JSON.parse((await sb.pk(['usage', '--json'], {env})).stdout)
    expect(usage.total).toMatchObject({input: 2, output: 2, sessions: 1})
    // The writer recorded the hand-started session, its conversation and its file.
    await waitFor(
      'recorded',
      () =>
        existsSync(join(sb.stateDir, 'sessions', `${row.id}.json`)) &&
        JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8')).conversationId === conv,
      15_000,
    )
  }, 90_000)

  it('past your share of its context: needs you, told once with why', async () => {
    expect((await sb.pk(['setup', 'gemini'])).code).toBe(0)
    const bin = join(sb.root, 'bin')
    symlinkSync(join(ROOT, 'test', 'helpers', 'gemini-standin.cjs'), join(bin, 'gemini'))
    const told = join(sb.root, 'told')
    mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
    writeFileSync(
      join(sb.home, '.config', 'pk', 'config.json'),
      JSON.stringify({
        usage: {contextWindows: {'gemini-3.1-pro-preview': 100}, attention: {context: 90}},
        notify: [{command: ['sh', '-c', 'echo "$0" >> "$1"', '{id} {reason}', told]}],
      }),
    )
    const row = await sb.bgRow(['gemini'], {env: {...env, TOKENS_IN: '40,90', TOKENS_OUT: '10', PATH: `${bin}:${process.env.PATH}`}})
    await waitFor('started', async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id && s.stateSource === 'hook'), 20_000)
    // 50 tokens of 100: under 90%. Attached and detached, so the finished turn is seen.
    sb.tmux(sb.pkSocket, 'send-keys', '-t', row.tmux!.pane, 'one', 'Enter')
    const first = await waitFor(
      'first turn',
      async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id && s.usage?.input === 40),
      20_000,
    )
    expect(first.usage).toMatchObject({contextTokens: 50, contextWindow: 100, attention: null})
    await waitFor('the finished turn told', () => existsSync(told) && readFileSync(told, 'utf8').includes('finished its turn'), 15_000)
    // The next turn's context is 100 tokens: 100% >= 90%.
    sb.tmux(sb.pkSocket, 'send-keys', '-t', row.tmux!.pane, 'two', 'Enter')
    const over = await waitFor(
      'over',
      async () =>
        (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id && s.usage?.attention !== null && s.usage?.attention !== undefined),
      20_000,
    )
    expect(over.usage!.attention).toMatchObject({reason: 'context', threshold: 90})
    expect(over.attention).toBe(true)
    await waitFor('told once', () => readFileSync(told, 'utf8').includes('past 90% of its context'), 15_000)
    await sb.pk(['notify'], {env})
    await sb.pk(['notify'], {env})
    expect(
      readFileSync(told, 'utf8')
        .split('\n')
        .filter((l) => l.includes('past 90%')),
    ).toEqual([`${row.id} past 90% of its context (100%)`])
  }, 90_000)
})
