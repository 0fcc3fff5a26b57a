import {join} from 'node:path'
import {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ARTIFACTS, launchBrowser, noBrowser, servePk, SIZES} from '../helpers/browser.js'
import {codexLimitScreen, inLab, lines, resetIn} from '../helpers/limit-lab.js'

/**
 * Issue 64 on the page, in a real browser at phone and desktop size: a session at its usage limit is listed
 * with its reset, says in words who carries it on and when, and Continue now is pk continue. Screenshots in
 * test-artifacts/web/.
 */
const skip = noBrowser
let browser: Browser
beforeAll(async () => {
  if (skip === null) browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
})

describe.skipIf(skip !== null)('a session at its usage limit, on the page', () => {
  it.each(SIZES)(
    'at $name size: its reset in the list, the limit in words, and Continue now carries it on once',
    async ({name, width, height}) =>
      inLab(async (lab) => {
        const reset = resetIn(3 * 3600_000)
        const screen = codexLimitScreen(reset)
        const id = await lab.start('codex', screen, {}, ['--name', 'parser'])
        const row = await lab.limited(id, (x) => x.limit!.since !== null && x.limit!.continuedBy === 'pk')
        const served = await servePk(lab.sb, lab.env)
        try {
          // (the browser reads clocks in UTC, as the stand-in writes them: the reset reads as the agent showed it)
          const context = await browser.newContext({viewport: {width, height}, timezoneId: 'UTC', locale: 'en-GB'})
          const page = await context.newPage()
          const problems: string[] = []
          page.on('pageerror', (error) => problems.push(String(error)))
          await page.goto(served.url)
          const hhmm = (iso: string) => iso.slice(11, 16)
          const item = page.getByRole('button', {name: new RegExp(`codex · parser.*limited · resets ${hhmm(reset.toISOString())}`)})
          await item.waitFor({timeout: 20_000})
          await item.click()
          await page.getByText(`At its usage limit; it resets at ${hhmm(reset.toISOString())}. pk continues it at ${hhmm(row.limit!.continueAt!)}.`).waitFor()
          await page.screenshot({path: join(ARTIFACTS, `${name}-limited.png`), fullPage: true})
          await page.getByRole('button', {name: 'Continue now'}).click()
          await page.getByText('continued', {exact: true}).waitFor({timeout: 30_000})
          expect(lines(lab.submitted)).toEqual(['"continue"'])
          // Its turn ran and ended: no longer at a limit, the button goes.
          await page.getByRole('button', {name: 'Continue now'}).waitFor({state: 'hidden', timeout: 20_000})
          await page.screenshot({path: join(ARTIFACTS, `${name}-continued.png`), fullPage: true})
          expect(problems).toEqual([])
          await context.close()
        } finally {
          served.child.kill('SIGTERM')
        }
      })(),
    120_000,
  )
})
