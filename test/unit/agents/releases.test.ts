import {mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {VERIFIED, compareReleases, installedRelease, judgeRelease} from '../../../src/lib/agents/releases.js'
import {paneFixtures} from '../../helpers/pane-fixtures.js'
import {ROOT} from '../../helpers/sandbox.js'

describe('the releases pk is verified on', () => {
  it('are the ones test/agents/package.json pins (what npm run agents drives)', () => {
    const pinned = (JSON.parse(readFileSync(join(ROOT, 'test', 'agents', 'package.json'), 'utf8')) as {dependencies: Record<string, string>}).dependencies
    for (const [agent, known] of Object.entries(VERIFIED)) expect([agent, pinned[known.packages[0]!]]).toEqual([agent, known.release])
    expect(Object.keys(pinned).sort()).toEqual(
      Object.values(VERIFIED)
        .map((v) => v.packages[0])
        .sort(),
    )
  })
  it('and the earlier ones are those whose captured screens are kept (test/fixtures/panes)', () => {
    for (const [agent, known] of Object.entries(VERIFIED)) {
      const captured = new Set(
        paneFixtures()
          .filter((f) => f.agent === agent && f.release !== null)
          .map((f) => f.release!),
      )
      expect([agent, [...captured].sort(compareReleases)]).toEqual([agent, [...known.earlier, known.release].sort(compareReleases)])
    }
  })
  it('says of a release whether pk is verified on it, reads it from captures, or neither', () => {
    expect(compareReleases('2.1.332', '2.1.197')).toBeGreaterThan(0)
    expect(compareReleases('0.9.0', '0.10.0')).toBeLessThan(0)
    expect(compareReleases('1.6.0', '1.6')).toBe(0)
    expect(judgeRelease('claude', '2.1.337')).toEqual({verified: true, note: 'claude 2.1.337: verified'})
    expect(judgeRelease('claude', '2.1.332').verified).toBe(true)
    expect(judgeRelease('claude', '2.1.197').verified).toBe(true)
    expect(judgeRelease('claude', '2.1.340')).toEqual({
      verified: false,
      note: 'claude 2.1.340: newer than the newest release pk is verified on (2.1.337): working, waiting and idle come from its own record of itself; limits and dialogs, read from its screen, may be misread',
    })
    expect(judgeRelease('codex', '0.150.0').note).toMatch(/^codex 0\.150\.0: older than the release pk is verified on \(0\.171\.0\)/)
  })
})

describe("an agent's release, read from what is installed (never by running it)", () => {
  const root = mkdtempSync(join(tmpdir(), 'pk-releases-'))
  afterAll(() => rmSync(root, {recursive: true, force: true}))
  it("npm's package.json above the program a link on PATH points to; Claude Code's own installer's versions folder", () => {
    const pkg = join(root, 'lib', 'node_modules', '@anthropic-ai', 'claude-code')
    mkdirSync(join(pkg, 'bin'), {recursive: true})
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({name: '@anthropic-ai/claude-code', version: '2.1.340'}))
    writeFileSync(join(pkg, 'bin', 'claude.exe'), '')
    mkdirSync(join(root, 'bin'))
    symlinkSync(join(pkg, 'bin', 'claude.exe'), join(root, 'bin', 'claude'))
    expect(installedRelease(join(root, 'bin', 'claude'), ['@anthropic-ai/claude-code'])).toBe('2.1.340')
    // Another package's manifest on the way up is not its.
    expect(installedRelease(join(root, 'bin', 'claude'), ['@openai/codex'])).toBeNull()
    const native = join(root, 'share', 'claude', 'versions', '2.1.332')
    mkdirSync(native, {recursive: true})
    writeFileSync(join(native, 'claude'), '')
    symlinkSync(join(native, 'claude'), join(root, 'bin', 'claude-native'))
    expect(installedRelease(join(root, 'bin', 'claude-native'), ['@anthropic-ai/claude-code'])).toBe('2.1.332')
    expect(installedRelease(join(root, 'bin', 'nothing'), ['@anthropic-ai/claude-code'])).toBeNull()
  })
})

describe('docs/agents.md', () => {
  it('lists the releases pk is verified on, and the earlier ones it reads, as VERIFIED says', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'agents.md'), 'utf8')
    const table = /\| agent \| npm package \| verified on \| earlier releases whose screens pk reads \|\n\|[-|]+\|\n([\s\S]+?)\n\n/.exec(doc)![1]!
    const rows = table.split('\n').map((line) => line.split('|').map((cell) => cell.trim()))
    expect(rows.map(([, agent, pkg, release, earlier]) => [agent, pkg, release, [...earlier!.matchAll(/\d+\.\d+\.\d+/g)].map((m) => m[0])])).toEqual(
      Object.entries(VERIFIED).map(([agent, v]) => [agent, `\`${v.packages[0]}\``, v.release, v.earlier]),
    )
  })
})
