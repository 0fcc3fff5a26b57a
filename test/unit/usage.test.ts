import {appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {accumulate, emptyAcc, readOn, sinceDay, totals, usageOf} from '../../src/lib/usage.js'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'transcripts')
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
    const line = JSON.parse(readFileSync(join(FIXTURES, 'claude-2.1.197.jsonl'), 'utf8').split('\n').find((l) => l.includes('"type":"assistant"'))!)
    const block = {...line, uuid: 'second-block', parentUuid: line.uuid}
    const twice = accumulate('claude', emptyAcc(), `${JSON.stringify(line)}\n${JSON.stringify(block)}\n`)
    expect(twice.total.output).toBe(1)
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
  it('Pi: per-message usage with its own cost', () => {
    const message = (input: number, cost: number) => JSON.stringify({type: 'message', timestamp: '2026-12-01T10:00:00.000Z', message: {role: 'assistant', model: 'm1', usage: {input, output: 7, cacheRead: 0, cacheWrite: 0, totalTokens: input + 7, cost: {total: cost}}}})
    const acc = accumulate('pi', emptyAcc(), `${message(11, 0.5)}\n${message(11, 0.25)}\n`)
    expect(acc.total).toMatchObject({input: 22, output: 14, cost: 0.75})
    expect(usageOf(acc, 'f', {})).toMatchObject({cost: 0.75, costSource: 'agent', contextTokens: 18})
  })
  it('a malformed or truncated line is skipped and counted, never fatal; unknown stays null', () => {
    const acc = accumulate('codex', emptyAcc(), 'not json\n{"type":"event_msg","payload":{"type":"token_count","info":{}}}\n')
    expect(acc.skippedLines).toBe(2)
    expect(usageOf(acc, 'f', {})).toMatchObject({model: null, cost: null, contextTokens: null, contextWindow: null})
  })
  it('prices from your rates, or names the model unpriced', () => {
    const acc = accumulate('claude', emptyAcc(), readFileSync(join(FIXTURES, 'claude-2.1.197.jsonl'), 'utf8'))
    expect(usageOf(acc, 'f', {})).toMatchObject({cost: null, unpriced: 'claude-opus-4-8'})
    expect(usageOf(acc, 'f', {'claude-opus-4-8': {input: 15e6, output: 75e6}})).toMatchObject({cost: 2 * 15 + 2 * 75, costSource: 'rates', unpriced: null})
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

describe('pk usage totals', () => {
  it('by session, agent or day, since a day; a cost only where every part is known', () => {
    const a = accumulate('pi', emptyAcc(), JSON.stringify({type: 'message', timestamp: '2026-11-30T10:00:00Z', message: {role: 'assistant', model: 'm', usage: {input: 10, output: 1, cost: {total: 1}}}}) + '\n' + JSON.stringify({type: 'message', timestamp: '2026-12-01T10:00:00Z', message: {role: 'assistant', model: 'm', usage: {input: 20, output: 2, cost: {total: 2}}}}))
    const b = accumulate('claude', emptyAcc(), readFileSync(join(FIXTURES, 'claude-2.1.197.jsonl'), 'utf8'))
    const items = [{id: 'aaaa0001', agent: 'pi', acc: a, rates: {}}, {id: 'bbbb0002', agent: 'claude', acc: b, rates: {}}]
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
