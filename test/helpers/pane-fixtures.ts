import {readdirSync} from 'node:fs'
import {join} from 'node:path'

import {ROOT} from './sandbox.js'

/** Where the agents' screens are kept: one file per screen. */
export const PANE_FIXTURES = join(ROOT, 'test', 'fixtures', 'panes')

/** What a pane fixture's name says: the agent, its release, the state the screen must read as, what it shows. */
export interface PaneFixture {
  file: string
  agent: string
  /** The release it was captured from (null for a screen written by hand, `.synthetic.`). */
  release: string | null
  state: string
  what: string
  /** `.ansi`: captured with its colours (`capture-pane -e`). */
  ansi: boolean
}

/**
 * Pure: a fixture's name, `AGENT-RELEASE.STATE.WHAT.txt` for a screen captured from a release (`.ansi` with its
 * colours), `AGENT.STATE.WHAT.synthetic.txt` for one written by hand; null for any other name.
 */
export function parsePaneFixture(file: string): PaneFixture | null {
  const m = /^([a-z]+)(?:-(\d+\.\d+\.\d+))?\.(working|waiting|idle|limited|unknown)\.([a-z0-9.-]+)\.(txt|ansi)$/.exec(file)
  if (m === null) return null
  const synthetic = /(^|\.)synthetic$/.test(m[4]!)
  if ((m[2] === undefined) !== synthetic) return null
  return {file, agent: m[1]!, release: m[2] ?? null, state: m[3]!, what: m[4]!, ansi: m[5] === 'ansi'}
}

export const paneFixtures = (): PaneFixture[] =>
  readdirSync(PANE_FIXTURES).map((file) => parsePaneFixture(file) ?? {file, agent: '?', release: null, state: '?', what: '?', ansi: false})
