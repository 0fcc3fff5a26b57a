import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {applyPaneRules} from '../../src/lib/agents/pane-rules.js'
import {findPreset} from '../../src/lib/agents/presets.js'
import {readDialog} from '../../src/lib/agents/dialogs.js'
import {readLimit} from '../../src/lib/agents/limits.js'
import type {SessionRow} from '../../src/lib/model/contract.js'
import {PANE_FIXTURES} from '../helpers/pane-fixtures.js'

/** One look of the check: what pk said of the session, and what its pane showed. */
export interface Look {
  at: number
  step: string
  row: SessionRow | null
  screen: string
}

/** One notification, as the check's notifier wrote it. */
export interface Told {
  id: string
  state: string
  reason: string
  since: string
}

/** Pure: the notifier's lines (`ID|STATE|REASON|SINCE`). */
export const parseTold = (text: string): Told[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', state = '', reason = '', since = ''] = line.split('|')
      return {id, state, reason, since}
    })

/** Where a screen's paths are put in a fixture (the check's sandbox is a new folder each run). */
export const FIXTURE_ROOT = '/tmp/pk-agents'

/** Pure: a screen with the sandbox's paths made the fixtures' (`roots[0]` is the sandbox, the rest inside it). */
export function generalize(screen: string, root: string): string {
  return screen.replaceAll(root, FIXTURE_ROOT)
}

/**
 * Pure: a screen's bottom as lines to compare across runs: blank lines out, digits as 0, spinners and
 * Claude Code's changing verbs ("✶ Twisting…", "✻ Baked for 0s") as one word, tips out.
 */
export function comparable(screen: string): string[] {
  return screen
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '' && !/\bTip:/.test(line))
    .slice(-15)
    .map((line) =>
      line
        .replace(/[\u2800-\u28FF]/g, '*')
        .replace(/^[\u00B7\u2722\u2733\u2736\u273B\u273D*] [A-Z][a-z]+(\u2026| for)/, '* Verb$1')
        .replace(/\d+/g, '0')
        .replace(/\s+/g, ' '),
    )
}

/** Pure: how alike two screens' bottoms are, 0 to 1 (lines in common over lines in either). */
export function likeness(a: string, b: string): number {
  const x = new Set(comparable(a))
  const y = new Set(comparable(b))
  const common = [...x].filter((line) => y.has(line)).length
  const either = new Set([...x, ...y]).size
  return either === 0 ? 1 : common / either
}

/**
 * Pure: what pk reads off a screen: the state its rules give, the limit (which outranks them: Claude Code
 * 2.1.337's `∷` 429 read as no limit where 2.1.332's `●` one was), and the dialog's question and choices.
 */
export function readingOf(agent: string, screen: string): string {
  const preset = findPreset(agent)
  const state = preset === undefined ? null : applyPaneRules(screen, preset.paneRules)
  const shown = readLimit(agent, screen)
  // (whether a reset is read, not which: each run's limit resets at another time)
  const limit = shown === null ? null : {what: shown.what, reset: shown.reset !== null, agentContinues: shown.agentContinues}
  const dialog = readDialog(agent, screen)
  return JSON.stringify({state, limit, dialog: dialog === null ? null : {question: dialog.question, choices: dialog.choices.map((c) => [c.n, c.means])}})
}

export type Drift = {
  fixture: string
  /**
   * same: reads alike and looks alike; looks-different: reads alike, drawn otherwise; reads-differently: pk
   * reads it otherwise; new: none of this release yet (`against`, where set, is the pinned one it reads like).
   */
  status: 'same' | 'looks-different' | 'reads-differently' | 'new'
  /** The screen stood for the fixture as a step failed waiting for its state: what the step waited for, pk did not read. */
  failed?: boolean
  /** The fixture compared with (this release's, else the pinned release's), or null. */
  against: string | null
  artifact: string
}

/** Every look of a run, kept as files; and which of them stand for a fixture. */
export class ScreenLog {
  private n = 0
  private previous = new Map<string, string>()
  /** Fixture name (STATE.WHAT) -> the screen that stood for it, and where it was kept (failed: a step waited for it in vain). */
  readonly standing = new Map<string, {screen: string; artifact: string; failed?: boolean}>()
  last: string | null = null

  constructor(
    readonly dir: string,
    private readonly root: string,
  ) {
    mkdirSync(dir, {recursive: true})
  }

  /** Keeps a look's screen when it differs from the step's last one. */
  keep(look: Look): void {
    if (this.previous.get(look.step) === look.screen) return
    this.previous.set(look.step, look.screen)
    const slug = look.step.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')
    const file = join(this.dir, `${String(++this.n).padStart(3, '0')}-${slug}.txt`)
    const said = look.row === null ? 'no session' : `${look.row.state} (${look.row.stateSource}), attention ${look.row.attention}`
    writeFileSync(file, generalize(look.screen, this.root))
    writeFileSync(`${file}.pk`, `${new Date(look.at).toISOString()} pk said: ${said}\n`)
    this.last = file
  }

  stands(fixture: string, look: Look, failed = false): void {
    this.standing.set(fixture, {screen: generalize(look.screen, this.root), artifact: this.last ?? '', ...(failed ? {failed} : {})})
  }
}

/**
 * Pure but for reading the fixtures: how each screen that stood for a fixture compares with the fixture of
 * its release (else with the pinned release's, for a run on a newer one).
 */
export function drift(agent: string, release: string, pinned: string | undefined, standing: ScreenLog['standing']): Drift[] {
  const out: Drift[] = []
  for (const [name, {screen, artifact, failed}] of standing) {
    const own = `${agent}-${release}.${name}.txt`
    const fallback = pinned === undefined || pinned === release ? null : `${agent}-${pinned}.${name}.txt`
    const against = [own, fallback].find((f) => f !== null && existsSync(join(PANE_FIXTURES, f))) ?? null
    const mark = failed ? {failed} : {}
    if (against === null) {
      out.push({fixture: own, status: 'new', against: null, artifact, ...mark})
      continue
    }
    const kept = readFileSync(join(PANE_FIXTURES, against), 'utf8')
    const status = readingOf(agent, kept) !== readingOf(agent, screen) ? 'reads-differently' : likeness(kept, screen) < 0.5 ? 'looks-different' : 'same'
    out.push({fixture: own, status: against === own ? status : status === 'reads-differently' ? status : 'new', against, artifact, ...mark})
  }
  return out
}

/**
 * `--update-fixtures`: this release's screens written as its fixtures, where it has none yet or pk reads the
 * one it has otherwise; one drawn otherwise but read alike (another width, another history) stays.
 */
export function writeFixtures(agent: string, release: string, standing: ScreenLog['standing']): string[] {
  const written: string[] = []
  for (const [name, {screen, failed}] of standing) {
    // (a screen a step waited on in vain is what broke, not a fixture)
    if (failed) continue
    const file = join(PANE_FIXTURES, `${agent}-${release}.${name}.txt`)
    if (existsSync(file) && readingOf(agent, readFileSync(file, 'utf8')) === readingOf(agent, screen)) continue
    writeFileSync(file, screen)
    written.push(file)
  }
  return written
}

/** What one agent's check found, for run.mjs's summary. */
export interface AgentReport {
  agent: string
  release: string
  pinned: string | null
  steps: {name: string; ok: boolean; skipped?: boolean; error?: string}[]
  drift: Drift[]
  written: string[]
}

export function writeReport(out: string, report: AgentReport): void {
  mkdirSync(out, {recursive: true})
  writeFileSync(join(out, `${report.agent}.report.json`), JSON.stringify(report, null, 2))
}
