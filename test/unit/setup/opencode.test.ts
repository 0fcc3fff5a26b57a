import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterEach, describe, expect, it} from 'vitest'

import {parseHookPayload} from '../../../src/lib/events/hook.js'
import {renderOpencodePlugin} from '../../../src/lib/setup/opencode.js'
import {accumulate, emptyAcc} from '../../../src/lib/usage/usage.js'

const ROOT = join(import.meta.dirname, '..', '..', '..')
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

async function until<T>(probe: () => T, ms = 5000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const value = probe()
    if (value || Date.now() > end) return value
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * The shipped plugin, fed the events opencode 1.18.33 really sent (two turns answered 11 in, 7 out, then a
 * bash permission asked and allowed once), with a hook that writes down what it is given.
 */
describe("pk's opencode plugin on opencode 1.18's own events", () => {
  it('reports busy once per turn, idle at the end, waiting for a permission; writes each answer once to its usage file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pk-oc-'))
    dirs.push(dir)
    const got = join(dir, 'got')
    const plugin = join(dir, 'pk.mjs')
    writeFileSync(
      plugin,
      renderOpencodePlugin(readFileSync(join(ROOT, 'assets', 'opencode-plugin.js'), 'utf8'), ['/usr/bin/node', '/x/bin/run.js']).replace(
        /const HOOK = .*/,
        `const HOOK = ${JSON.stringify(['/bin/sh', '-c', `printf '%s\\n' "$0" >> '${got}'`])}`,
      ),
    )
    process.env.XDG_DATA_HOME = dir
    try {
      const {PkPlugin} = await import(pathToFileURL(plugin).href)
      const hooks = await PkPlugin({})
      const events = readFileSync(join(ROOT, 'test', 'fixtures', 'events', 'opencode-1.18-events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
      // A few milliseconds apart, so the plugin's clock orders its reports as it sent them.
      for (const event of events) {
        await hooks.event({event})
        await new Promise((r) => setTimeout(r, 3))
      }
    } finally {
      delete process.env.XDG_DATA_HOME
    }
    const lines = await until(
      () => (existsSync(got) ? readFileSync(got, 'utf8').trim().split('\n') : []).filter(Boolean).length >= 7 && readFileSync(got, 'utf8').trim().split('\n'),
    )
    const reports = (lines || []).map((l) => parseHookPayload('opencode', l)!)
    // The hook runs concurrently, so lines land in any order: sorted by the plugin's clock, as pk orders them.
    reports.sort((a, b) => a.sentAt! - b.sentAt!)
    const conv = 'ses_dcf17006cffehGYunMWqxOU2HX'
    expect(reports.filter((r) => r.conversationId === conv).map((r) => [r.event, r.state, r.turnEnded])).toEqual([
      ['session.created', 'idle', false],
      ['session.busy', 'working', false],
      ['session.idle', 'idle', true],
      ['session.busy', 'working', false],
      ['session.idle', 'idle', true],
    ])
    expect(reports.filter((r) => r.conversationId !== conv).map((r) => [r.event, r.state])).toEqual([
      ['permission.asked', 'waiting'],
      ['permission.replied', 'working'],
    ])
    const file = join(dir, 'opencode', 'pk-usage', `${conv}.jsonl`)
    expect(reports[0]!.transcript).toBe(file)
    const acc = accumulate('opencode', emptyAcc(), readFileSync(file, 'utf8'))
    expect(acc.total).toEqual({input: 22, output: 14, cacheRead: 0, cacheWrite: 0, cost: 0})
    expect(acc).toMatchObject({model: 'fake-model', contextTokens: 18, skippedLines: 0})
  })
  it('the usage file of a real run reads as opencode showed it (three turns of 11 in, 7 out)', () => {
    const acc = accumulate('opencode', emptyAcc(), readFileSync(join(ROOT, 'test', 'fixtures', 'transcripts', 'opencode-1.18.jsonl'), 'utf8'))
    expect(acc.total).toEqual({input: 33, output: 21, cacheRead: 0, cacheWrite: 0, cost: 0})
  })
})

describe('pk setup opencode (plan)', () => {
  it('installs the shipped plugin with this pk filled in, once', async () => {
    const {planOpencode, opencodePluginFile} = await import('../../../src/lib/setup/opencode.js')
    const pk = ['/usr/bin/node', '/opt/pk/bin/run.js']
    const plan = planOpencode(null, '/h/.config/opencode/plugins/pk.js', pk)
    expect(plan).toMatchObject({changed: true, notes: ['plugin: state reports and usage']})
    expect(plan.after).toContain('"/opt/pk/assets/pk-hook.sh","opencode","/usr/bin/node"')
    expect(plan.after).not.toMatch(/= __PK_HOOK__/)
    expect(planOpencode(plan.after, plan.file, pk)).toMatchObject({changed: false})
    expect(opencodePluginFile('/h', {})).toBe('/h/.config/opencode/plugins/pk.js')
    expect(opencodePluginFile('/h', {XDG_CONFIG_HOME: '/x'})).toBe('/x/opencode/plugins/pk.js')
  })
})
