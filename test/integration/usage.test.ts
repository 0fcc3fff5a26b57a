import {copyFileSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
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
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\nprintf '{"hook_event_name":"Stop","session_id":"%s","transcript_path":"%s"}' "$CONV" "$TRANSCRIPT" | "${hook}" claude "${process.execPath}"\nprintf '? for shortcuts\\n'\nexec sleep 100000\n`, {mode: 0o755})
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
    const first = await waitFor('usage', async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id && s.usage?.input === 1), 15_000)
    expect(first.usage).toMatchObject({model: 'claude-opus-4-8', input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: null, unpriced: 'claude-opus-4-8', source: transcript, skippedLines: 0})
    // The second turn is appended, with a line torn by a crash in between: skipped and counted.
    writeFileSync(transcript, lines.slice(0, cut).join('\n') + '\n{"type":"assist\n' + lines.slice(cut).join('\n') + '\n')
    const second = (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id)!
    expect(second.usage).toMatchObject({input: 2, output: 2, skippedLines: 1})
    // With a rate in your config: a cost.
    mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
    writeFileSync(join(sb.home, '.config', 'pk', 'config.json'), JSON.stringify({usage: {rates: {'claude-opus-4-8': {input: 1_000_000, output: 2_000_000}}}}))
    const priced = await sb.pk(['usage', '--json'], {env})
    expect(priced.code, priced.stderr).toBe(0)
    expect(JSON.parse(priced.stdout)).toMatchObject({by: 'session', lines: [{key: row.id, input: 2, output: 2, cost: 6, sessions: 1}], total: {input: 2, output: 2, cost: 6}})
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
    await waitFor('remembered', () => {
      try {
        return JSON.parse(readFileSync(join(sb.stateDir, 'usage', `${row.id}.json`), 'utf8')).offset === readFileSync(transcript).length
      } catch {
        return false
      }
    }, 15_000)
    expect((await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id)!.usage).toMatchObject({input: 2, output: 2})
  }, 60_000)
})
