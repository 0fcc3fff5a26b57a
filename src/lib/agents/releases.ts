import {readFileSync, realpathSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {OWN_STATE_READERS} from './own-sources.js'

/**
 * The releases of each agent pk is verified on: the ones `npm run agents` drives in CI (test/agents/package.json
 * pins them, and a test holds this list to it), and the earlier ones whose captured screens pk still reads
 * (test/fixtures/panes names them). A rule about an agent's screen is a fact about one release: on another,
 * states and dialogs may be read wrong, and `pk doctor` says so.
 */
export interface VerifiedAgent {
  /** The npm packages it comes as (Pi moved from @mariozechner to @earendil-works). */
  packages: string[]
  release: string
  earlier: string[]
}

export const VERIFIED: Readonly<Record<string, VerifiedAgent>> = {
  claude: {packages: ['@anthropic-ai/claude-code'], release: '2.1.337', earlier: ['2.1.197', '2.1.332']},
  codex: {packages: ['@openai/codex'], release: '0.171.0', earlier: []},
  gemini: {packages: ['@google/gemini-cli'], release: '0.61.0', earlier: []},
  opencode: {packages: ['opencode-ai'], release: '1.18.33', earlier: []},
  pi: {packages: ['@earendil-works/pi-coding-agent', '@mariozechner/pi-coding-agent'], release: '1.6.0', earlier: ['0.73.1']},
}

/** Pure: `a` before (<0), alike (0) or after (>0) `b`, as dotted numbers (`2.1.332` after `2.1.197`). */
export function compareReleases(a: string, b: string): number {
  const x = a.split('.').map((n) => Number.parseInt(n, 10) || 0)
  const y = b.split('.').map((n) => Number.parseInt(n, 10) || 0)
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0)
  return 0
}

export type ReleaseVerdict = {verified: true; note: string} | {verified: false; note: string}

/** Pure: what pk can say of an agent's release: verified on, read before, or neither (newer or older). */
export function judgeRelease(agent: string, release: string): ReleaseVerdict {
  const known = VERIFIED[agent]
  if (known === undefined) return {verified: false, note: `${agent} ${release}: pk is verified on no release of it`}
  if (release === known.release) return {verified: true, note: `${agent} ${release}: verified`}
  if (known.earlier.includes(release)) return {verified: true, note: `${agent} ${release}: read from its captured screens (verified on ${known.release})`}
  const newer = compareReleases(release, known.release) > 0
  const where = `${agent} ${release}: ${newer ? 'newer than the newest' : 'older than the'} release pk is verified on (${known.release})`
  // An agent that says its own state is read right on working, waiting and idle whatever its screen draws.
  if (OWN_STATE_READERS[agent] !== undefined)
    return {
      verified: false,
      note: `${where}: working, waiting and idle come from its own record of itself; limits and dialogs, read from its screen, may be misread`,
    }
  return {verified: false, note: `${where}: states and dialogs may be misread`}
}

/**
 * The release of the agent a program on PATH runs, read from what is installed, never by running it: the
 * package.json of the npm package it belongs to (its own folder or one above), or the version in its path
 * (Claude Code's own installer keeps `.../versions/2.1.332`). Null where neither says.
 */
export function installedRelease(program: string, packages: readonly string[]): string | null {
  let real: string
  try {
    real = realpathSync(program)
  } catch {
    return null
  }
  let dir = dirname(real)
  for (let up = 0; up < 6; up++) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {name?: unknown; version?: unknown}
      if (typeof manifest.name === 'string' && packages.includes(manifest.name) && typeof manifest.version === 'string') return manifest.version
    } catch {
      // no manifest here, or not JSON: look higher
    }
    const parent = dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  return /\/versions\/(\d+\.\d+\.\d+)(\/|$)/.exec(real)?.[1] ?? null
}
