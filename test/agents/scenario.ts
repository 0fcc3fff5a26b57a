import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {AgentDriver} from './drivers.js'
import {AgentLab, installedAgents} from './lab.js'
import {AgentReport, drift, writeFixtures, writeReport} from './report.js'

/** A step of an agent's check: run in order; once one fails, the later ones are skipped (said in the report). */
export type Step = (name: string, body: () => Promise<void>, timeoutMs?: number) => void

const wanted = (agent: string) => {
  const only = process.env.PK_AGENTS_ONLY
  return only === undefined || only === '' || only.split(',').includes(agent)
}

/**
 * One agent's check, run only by `npm run agents` (which installs the releases and says where): a sandbox
 * and the fake API for the whole agent, its steps in order, and at the end what the screens it saw say
 * of the release's fixtures, written where run.mjs finds it.
 */
export function agentCheck(driver: AgentDriver, steps: (lab: () => AgentLab, step: Step) => void): void {
  const installed = installedAgents()
  describe.skipIf(installed === null || !wanted(driver.name))(`${driver.name} (${installed?.versions[driver.name] ?? 'not installed'})`, () => {
    let lab: AgentLab
    const report: AgentReport = {
      agent: driver.name,
      release: installed?.versions[driver.name] ?? '',
      pinned: installed?.pinned[driver.name] ?? null,
      steps: [],
      drift: [],
      written: [],
    }
    let setupFailed: string | null = null
    beforeAll(async () => {
      try {
        lab = new AgentLab(driver, installed!)
        await lab.start()
      } catch (error) {
        // A check that could not start is a failed check: said as one, never "1 of 1 steps passed".
        setupFailed = error instanceof Error ? error.message : String(error)
        report.steps.push({name: 'setup: its home, the fake model API, the agent installed', ok: false, error: setupFailed})
        writeReport(installed!.out, report)
        throw error
      }
    }, 120_000)
    afterAll(async () => {
      if (setupFailed !== null) {
        await lab?.finish().catch(() => undefined)
        return
      }
      // No event told twice, and no event of this agent's put on nobody, in the whole run.
      const twice = lab.toldTwice()
      const strays = lab.strays()
      report.steps.push({name: 'told at most once, each event on its own session', ok: twice.length === 0 && strays.length === 0})
      if (twice.length > 0 || strays.length > 0) report.steps.at(-1)!.error = `told twice: ${JSON.stringify(twice)}; nobody's: ${strays.join(' | ')}`
      report.drift = drift(driver.name, report.release, report.pinned ?? undefined, lab.screens.standing)
      if (process.env.PK_AGENTS_UPDATE_FIXTURES === '1' && lab.broken === null)
        report.written = writeFixtures(driver.name, report.release, lab.screens.standing)
      writeReport(installed!.out, report)
      await lab.finish()
      expect(twice, 'an event told twice').toEqual([])
      expect(strays, 'events of this agent that landed on nobody (hook.log)').toEqual([])
    }, 120_000)
    steps(
      () => lab,
      (name, body, timeoutMs = 180_000) =>
        it(
          name,
          async (ctx) => {
            if (setupFailed !== null) {
              report.steps.push({name, ok: false, skipped: true, error: 'not run: its setup failed'})
              writeReport(installed!.out, report)
              ctx.skip()
            }
            if (lab.broken !== null) {
              report.steps.push({name, ok: false, skipped: true, error: `not run: "${lab.broken}" failed before it`})
              ctx.skip()
            }
            lab.step = name
            try {
              await body()
              report.steps.push({name, ok: true})
            } catch (error) {
              lab.broken = name
              report.steps.push({name, ok: false, error: error instanceof Error ? error.message : String(error)})
              throw error
            }
          },
          timeoutMs,
        ),
    )
  })
}
