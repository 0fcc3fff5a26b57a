import {appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {NO_RULES, accumulate, emptyAcc, readOn, rulesOf, sinceDay, totals, usageOf} from '../../../src/lib/usage/usage.js'

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'transcripts')
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

describe('transcripts of the real agents (two turns each, the fake API answering 1 in, 1 out)', () => {
  it('Claude Code 2.1.197: usage per assistant message, once per message id', () => {
    const acc = accumulate('claude', emptyAcc(), readFileSync(join(FIXTURES, 'claude-2.1.197.jsonl'), 'utf8'))
    expect(acc.total).toMatchObject({input: 2, output: 2, cacheRead: 0, cacheWrite: 0})
    expect(acc.model).toBe('claude-opus-4-8')
    expect(acc.skippedLines).toBe(0)
    // The same message on several lines (one per content block, each the child of the last) counts once.
    const line = JSON.parse(
      readFileSync(join(FIXTURES, 'claude-2.1.197.jsonl'), 'utf8')
        .split('\n')
        .find((l) => l.includes('"type":"assistant"'))!,
    )
    const block = {...line, uuid: 'second-block', parentUuid: line.uuid}
    const twice = accumulate('claude', emptyAcc(), `${JSON.stringify(line)}\n${JSON.stringify(block)}\n`)
    expect(twice.total.output).toBe(1)
  })
  it('Claude Code 2.1.197, a turn that failed (the fake API answering 400): the context stays what the last answer said, not 0', () => {
    const text = readFileSync(join(FIXTURES, 'claude-2.1.197.failed.jsonl'), 'utf8')
    expect(text).toContain('"model":"<synthetic>"')
    const acc = accumulate('claude', emptyAcc(), text)
    expect(acc).toMatchObject({model: 'claude-opus-4-8', contextTokens: 2, skippedLines: 0})
    expect(acc.total).toMatchObject({input: 1, output: 1})
  })
  it('Codex 0.171: the running total of its token_count events, and its context window', () => {
    const acc = accumulate('codex', emptyAcc(), readFileSync(join(FIXTURES, 'codex-0.171.jsonl'), 'utf8'))
    expect(acc.total).toMatchObject({input: 2, output: 2})
    expect(acc).toMatchObject({model: 'fake-model', contextWindow: 258400, contextTokens: 2})
  })
  it('Pi 0.74 (the fake API answering 11 in, 7 out): what its own footer says, ↑22 ↓14', () => {
    const acc = accumulate('pi', emptyAcc(), readFileSync(join(FIXTURES, 'pi-0.74.jsonl'), 'utf8'))
    expect(acc.total).toMatchObject({input: 22, output: 14, cost: 0})
    expect(acc).toMatchObject({model: 'fake-model', skippedLines: 0})
  })
  it('Gemini CLI 0.61: the tokens of each gemini message; $set lines and the header count nothing', () => {
    const acc = accumulate('gemini', emptyAcc(), readFileSync(join(FIXTURES, 'gemini-0.61.jsonl'), 'utf8'))
    expect(acc.total).toMatchObject({input: 2, output: 2, cacheRead: 0, cacheWrite: 0})
    expect(acc).toMatchObject({model: 'gemini-3.1-pro-preview', contextTokens: 2, skippedLines: 0})
    // Cached input is inside `input`; thoughts are billed as output; a message written again replaces itself.
    const message = {
      id: 'm1',
      timestamp: '2026-12-01T10:00:00Z',
      type: 'gemini',
      model: 'g',
      tokens: {input: 100, output: 5, cached: 60, thoughts: 3, tool: 0, total: 108},
    }
    const again = accumulate('gemini', emptyAcc(), `${JSON.stringify(message)}\n${JSON.stringify({...message, content: 'more'})}\n`)
    expect(again.total).toMatchObject({input: 40, output: 8, cacheRead: 60})
    expect(again.contextTokens).toBe(108)
  })
  it('Pi: per-message usage with its own cost', () => {
    const message = (input: number, cost: number) =>
      JSON.stringify({
        type: 'message',
        timestamp: '2026-12-01T10:00:00.000Z',
        message: {role: 'assistant', model: 'm1', usage: {input, output: 7, cacheRead: 0, cacheWrite: 0, totalTokens: input + 7, cost: {total: cost}}},
      })
    const acc = accumulate('pi', emptyAcc(), `${message(11, 0.5)}\n${message(11, 0.25)}\n`)
    expect(acc.total).toMatchObject({input: 22, output: 14, cost: 0.75})
    expect(usageOf(acc, 'f', NO_RULES)).toMatchObject({cost: 0.75, costSource: 'agent', contextTokens: 18})
  })
  it('a malformed or truncated line is skipped and counted, never fatal; unknown stays null', () => {
    const acc = accumulate('codex', emptyAcc(), 'not json\n{"type":"event_msg","payload":{"type":"token_count","info":{}}}\n')
    expect(acc.skippedLines).toBe(2)
    expect(usageOf(acc, 'f', NO_RULES)).toMatchObject({model: null, cost: null, contextTokens: null, contextWindow: null})
  })
  it('prices from your rates, or names the model unpriced', () => {
    const acc = accumulate('claude', emptyAcc(), readFileSync(join(FIXTURES, 'claude-2.1.197.jsonl'), 'utf8'))
    expect(usageOf(acc, 'f', NO_RULES)).toMatchObject({cost: null, unpriced: 'claude-opus-4-8'})
    expect(usageOf(acc, 'f', rulesOf({rates: {'claude-opus-4-8': {input: 15e6, output: 75e6}}}))).toMatchObject({
      cost: 2 * 15 + 2 * 75,
      costSource: 'rates',
      unpriced: null,
    })
  })
})

describe('usage that needs you (usage.attention)', () => {
  const codexTurn = (at: string, input: number, window = 1000) =>
    JSON.stringify({
      timestamp: at,
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: {total_token_usage: {input_tokens: input, output_tokens: 0}, last_token_usage: {total_tokens: input}, model_context_window: window},
      },
    })
  it('past a share of the context window: dated by the line that passed it; under it again re-arms', () => {
    const rules = rulesOf({attention: {context: 90}})
    const acc = accumulate(
      'codex',
      emptyAcc(),
      [codexTurn('2026-12-01T10:00:00Z', 500), codexTurn('2026-12-01T10:01:00Z', 910), codexTurn('2026-12-01T10:02:00Z', 950)].join('\n'),
      rules,
    )
    expect(usageOf(acc, 'f', rules).attention).toEqual({reason: 'context', since: '2026-12-01T10:01:00Z', threshold: 90})
    // Without the threshold configured: nothing.
    expect(usageOf(acc, 'f', NO_RULES).attention).toBeNull()
    // Compacted (its running total reset is not how Codex counts; the context alone falls): re-armed.
    accumulate('codex', acc, codexTurn('2026-12-01T10:03:00Z', 960, 100000), rules)
    expect(usageOf(acc, 'f', rules).attention).toBeNull()
  })
  it('a model whose agent writes no window takes it from your config; a budget is passed once', () => {
    const claude = (at: string, id: string, input: number) =>
      JSON.stringify({type: 'assistant', timestamp: at, uuid: id, message: {id, model: 'm', usage: {input_tokens: input, output_tokens: 0}}})
    const rules = rulesOf({rates: {m: {input: 1_000_000}}, contextWindows: {m: 100}, attention: {context: 80, cost: 150}})
    const acc = accumulate(
      'claude',
      emptyAcc(),
      [claude('2026-12-01T10:00:00Z', 'a', 50), claude('2026-12-01T10:01:00Z', 'b', 85), claude('2026-12-01T10:02:00Z', 'c', 10)].join('\n'),
      rules,
    )
    // 50 + 85 = $135: under budget; 85 tokens of 100: the context event at 10:01, gone at 10:02 (10 of 100).
    expect(acc.alerts).toEqual({})
    accumulate('claude', acc, claude('2026-12-01T10:03:00Z', 'd', 20), rules)
    expect(usageOf(acc, 'f', rules)).toMatchObject({cost: 165, contextWindow: 100, attention: {reason: 'cost', since: '2026-12-01T10:03:00Z', threshold: 150}})
  })
  it('a cache read with other thresholds is read again from the start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pk-usage-'))
    dirs.push(dir)
    const file = join(dir, 't.jsonl')
    writeFileSync(file, codexTurn('2026-12-01T10:00:00Z', 950) + '\n')
    const plain = readOn('codex', file, null)!
    expect(plain.acc.alerts).toBeUndefined()
    const rules = rulesOf({attention: {context: 90}})
    const alerted = readOn('codex', file, plain, rules)!
    expect(usageOf(alerted.acc, file, rules).attention?.since).toBe('2026-12-01T10:00:00Z')
  })
})

describe('reading on from where it stopped', () => {
  it('reads only what was appended, whole lines only; starts again for another or a shorter file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pk-usage-'))
    dirs.push(dir)
    const file = join(dir, 't.jsonl')
    copyFileSync(join(FIXTURES, 'codex-0.171.jsonl'), file)
    const lines = readFileSync(file, 'utf8').trim().split('\n')
    writeFileSync(file, lines.slice(0, 4).join('\n') + '\n' + lines[4]!.slice(0, 20))
    const first = readOn('codex', file, null)!
    expect(first.acc.skippedLines).toBe(0)
    appendFileSync(file, lines[4]!.slice(20) + '\n' + lines.slice(5).join('\n') + '\n')
    const second = readOn('codex', file, first)!
    expect(second.offset).toBe(readFileSync(file).length)
    expect(second.acc.total).toEqual(accumulate('codex', emptyAcc(), readFileSync(file, 'utf8')).total)
    writeFileSync(file, lines[0] + '\n')
    expect(readOn('codex', file, second)!.offset).toBe(lines[0]!.length + 1)
  })
})

describe('a transcript with a line longer than any read', () => {
  it('is passed over once: the offset moves past it, later lines count, and no look reads it again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pk-usage-'))
    dirs.push(dir)
    const file = join(dir, 't.jsonl')
    const lines = readFileSync(join(FIXTURES, 'codex-0.171.jsonl'), 'utf8').trim().split('\n')
    const chunk = 1024 * 1024
    // A line of 2.5 reads (here a read is 1 MiB), then the rest of the transcript.
    writeFileSync(file, lines.slice(0, 3).join('\n') + '\n' + 'x'.repeat(2.5 * chunk) + '\n' + lines.slice(3).join('\n') + '\n')
    const first = readOn('codex', file, null, NO_RULES, chunk)!
    expect(first.skipping).toBeUndefined()
    const second = readOn('codex', file, first, NO_RULES, chunk)!
    expect([second.skipping, second.offset - first.offset]).toEqual([true, chunk])
    const third = readOn('codex', file, second, NO_RULES, chunk)!
    expect([third.skipping, third.offset - second.offset]).toEqual([true, chunk])
    let last = third
    for (let i = 0; i < 3 && (last.skipping || last.offset < readFileSync(file).length); i++) last = readOn('codex', file, last, NO_RULES, chunk)!
    expect([last.skipping, last.offset]).toEqual([undefined, readFileSync(file).length])
    // Everything but the long line counted.
    expect(last.acc.total).toEqual(accumulate('codex', emptyAcc(), lines.join('\n') + '\n').total)
  })
})

describe('pk usage totals', () => {
  it('by session, agent or day, since a day; a cost only where every part is known', () => {
    const a = accumulate(
      'pi',
      emptyAcc(),
      JSON.stringify({
        type: 'message',
        timestamp: '2026-11-30T10:00:00Z',
        message: {role: 'assistant', model: 'm', usage: {input: 10, output: 1, cost: {total: 1}}},
      }) +
        '\n' +
        JSON.stringify({
          type: 'message',
          timestamp: '2026-12-01T10:00:00Z',
          message: {role: 'assistant', model: 'm', usage: {input: 20, output: 2, cost: {total: 2}}},
        }),
    )
    const b = accumulate('claude', emptyAcc(), readFileSync(join(FIXTURES, 'claude-2.1.197.jsonl'), 'utf8'))
    const items = [
      {id: 'aaaa0001', agent: 'pi', acc: a, rates: {}},
      {id: 'bbbb0002', agent: 'claude', acc: b, rates: {}},
    ]
    expect(totals(items, 'session', null).map((l) => [l.key, l.input, l.cost])).toEqual([
      ['aaaa0001', 30, 3],
      ['bbbb0002', 2, null],
    ])
    expect(totals(items, 'day', '2026-12-01').map((l) => [l.key, l.input])).toEqual([['2026-12-01', 22]])
    expect(totals(items, 'agent', null).find((l) => l.key === 'claude')).toMatchObject({unpriced: ['claude-opus-4-8'], cost: null})
    expect(sinceDay('2d', Date.parse('2026-12-03T12:00:00Z'))).toBe('2026-12-01')
    expect(sinceDay('soon', 0)).toBeNull()
  })
})
