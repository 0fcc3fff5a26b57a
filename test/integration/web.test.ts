import {ChildProcess, spawnSync} from 'node:child_process'
import {chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Browser, Page} from 'playwright-core'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {ARTIFACTS, launchBrowser, noBrowser, servePk, SIZES} from '../helpers/browser.js'
import {GIT_ENV, gitIn, makeRepo} from '../helpers/git-repo.js'
import {installTuiStandin} from '../helpers/standins.js'
import {LsJson, PK_BIN, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'

/**
 * Issue 53: pk serve driven by a real browser (Debian's chromium, by playwright-core; never a download), at
 * phone and desktop size, found by visible text and role as a person finds things. Screenshots are kept in
 * test-artifacts/web/.
 */
const skip = noBrowser
if (skip) console.warn(`skipping the browser tests: ${skip}`)

let browser: Browser
let sb: Sandbox
let server: ChildProcess | null = null
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  if (skip) return
  mkdirSync(ARTIFACTS, {recursive: true})
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
})
beforeEach(() => {
  sb = new Sandbox()
  env = {PATH: installTuiStandin(sb.root)}
})
afterEach(() => {
  server?.kill('SIGTERM')
  server = null
  sb.cleanup()
})

/** pk serve on a free port; resolves with the address it printed. */
async function serve(args: string[] = []): Promise<string> {
  const served = await servePk(sb, env, args)
  server = served.child
  return served.url
}

const sizes = SIZES

describe.skipIf(skip !== null)('pk serve in a browser', () => {
  it.each(sizes)(
    'at $name size: the list, a dialog answered with a tap, a line sent once, a stop asked and done',
    async ({name, width, height}) => {
      const submitted = join(sb.root, 'submitted')
      const ran = join(sb.root, 'ran')
      const row = await sb.bgRow(['--name', 'fix login', 'claude'], {
        env: {
          ...env,
          STANDIN_READY_MS: '0',
          STANDIN_DIALOG_SCREEN: join(ROOT, 'test', 'fixtures', 'panes', 'claude-2.1.197.waiting.permission.txt'),
          STANDIN_TOOL_RAN: ran,
          STANDIN_SUBMITTED: submitted,
          STANDIN_TURN_MS: '1500',
        },
      })
      sb.tmux(sb.pkSocket, 'resize-window', '-t', row.tmux!.pane, '-x', '120', '-y', '35')
      const other = await sb.bgRow(['--name', 'second', 'claude'], {env: {...env, STANDIN_READY_MS: '0'}})
      await waitFor('waiting', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id && s.state === 'waiting'), 20_000)

      const url = await serve()
      const context = await browser.newContext({viewport: {width, height}, colorScheme: name === 'phone' ? 'dark' : 'light'})
      const page = await context.newPage()
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(String(error)))
      // (a refusal the page shows, like a screen that cannot be read for a moment, is logged by the browser too)
      page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()))
      await page.goto(url)
      // The address bar no longer holds the token.
      expect(page.url()).not.toContain('token')

      // The list: both sessions, the waiting one first.
      const first = page.getByRole('button', {name: /claude · fix login/})
      await first.waitFor({timeout: 15_000})
      await page.getByRole('button', {name: /claude · second/}).waitFor()
      const names = await page.locator('.session .name').allTextContents()
      expect(names[0]).toBe('claude · fix login')
      expect(await first.textContent()).toContain('waiting')

      await first.click()
      // The dialog's choices, as pk answer reads them, as large buttons visible without scrolling.
      await page.getByRole('heading', {name: 'Do you want to proceed?'}).waitFor({timeout: 15_000})
      const yes = page.getByRole('button', {name: 'Yes', exact: true})
      await yes.waitFor()
      await page.getByRole('button', {name: 'No', exact: true}).waitFor()
      const box = (await yes.boundingBox())!
      expect(box.height).toBeGreaterThanOrEqual(44)
      expect(box.y + box.height).toBeLessThanOrEqual(height)
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
      await page.screenshot({path: join(ARTIFACTS, `${name}-dialog.png`), fullPage: true})
      // The same look for a script, or for another host's page: pk logs --screen --json, the same choices.
      const look = await sb.pkJson<{dialog: {question: string; choices: {label: string; means: string}[]} | null; question: boolean; screen: {text: string}}>(
        ['logs', row.id, '--screen', '--json'],
        {env},
      )
      expect(look.dialog?.question).toBe('Do you want to proceed?')
      expect(look.dialog?.choices.map((c) => c.means)).toEqual(['yes', 'always', 'no'])
      expect(look.question).toBe(false)
      expect(look.screen.text).toContain('Do you want to proceed?')
      expect(look.screen.text).not.toContain('\u001b')

      await yes.click()
      await page.getByText('answered: Yes').waitFor({timeout: 20_000})
      await waitFor('the tool ran', () => existsSync(ran), 10_000)
      await waitFor('working again', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id && s.state !== 'waiting'), 15_000)
      await waitFor('idle', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id && s.state === 'idle'), 15_000)

      // A line typed in the page arrives once, exactly.
      const line = `run the tests; "quoted" $(whoami) <b>${name}</b>`
      await page.getByLabel('Message').fill(line)
      await page.getByRole('button', {name: 'Send'}).click()
      await page.getByText('sent', {exact: true}).waitFor({timeout: 30_000})
      await waitFor('submitted', () => existsSync(submitted), 10_000)
      expect(
        readFileSync(submitted, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual([line])
      // The screen shows it, drawn by xterm.js.
      await page.locator('.xterm-rows').getByText('✻ Working', {exact: false}).or(page.locator('.xterm-rows').getByText('for shortcuts')).first().waitFor()
      await page.screenshot({path: join(ARTIFACTS, `${name}-screen.png`), fullPage: true})

      // Stop asks first; Cancel changes nothing; Stop session stops it.
      await page.getByRole('button', {name: 'Stop', exact: true}).click()
      await page.getByRole('button', {name: 'Cancel'}).click()
      expect((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id)?.state).not.toBe('exited')
      await page.getByRole('button', {name: 'Stop', exact: true}).click()
      await page.getByRole('button', {name: 'Stop session'}).click()
      await page.getByText('stopped', {exact: true}).waitFor({timeout: 20_000})
      await waitFor('exited', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id && s.state === 'exited'), 15_000)
      expect((await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === other.id)?.state).not.toBe('exited')
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
      expect(problems).toEqual([])
      await context.close()
    },
    120_000,
  )

  it('hostile names and screens are shown as text; read-only refuses every action', async () => {
    const hostile = '<img src=x onerror=alert(1)>'
    const row = await sb.bgRow([
      '--name',
      hostile,
      '--',
      'sh',
      '-c',
      `printf '%s\\n' '</script><script>alert(2)</script>' '<img src=x onerror=alert(3)>'; exec sleep 1000`,
    ])
    const url = await serve(['--read-only'])
    const context = await browser.newContext({viewport: {width: 1280, height: 800}})
    const page: Page = await context.newPage()
    const dialogs: string[] = []
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    await page.goto(url)
    const button = page.getByRole('button', {name: new RegExp(`sh · ${hostile.replace(/[()[\]]/g, '\\$&')}`)})
    await button.waitFor({timeout: 15_000})
    await button.click()
    await page.locator('.xterm-rows').getByText('</script><script>alert(2)</script>').waitFor({timeout: 15_000})
    expect(await page.locator('img').count()).toBe(0)
    await page.getByText(/started with --read-only/).waitFor()
    expect(await page.getByRole('button', {name: 'Send'}).isDisabled()).toBe(true)
    expect(await page.getByRole('button', {name: 'Stop', exact: true}).isDisabled()).toBe(true)
    // The API refuses too, whatever the page shows.
    const refused = await page.evaluate(async (id) => {
      // (signed in as the page is: its token, kept in its own storage, for a key sent in a header)
      const token = localStorage.getItem('pk-serve-token')
      const issued = await fetch('/api/session', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({token})})
      const {key} = (await issued.json()) as {key: string}
      const headers = {'Content-Type': 'application/json', Authorization: `Bearer ${key}`}
      return (await fetch(`/api/sessions/${id}/send`, {method: 'POST', headers, body: JSON.stringify({text: 'x'})})).status
    }, row.id)
    expect(refused).toBe(403)
    expect(dialogs).toEqual([])
    await page.screenshot({path: join(ARTIFACTS, 'hostile-read-only.png'), fullPage: true})
    await context.close()
    expect(sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', row.tmux!.pane)).not.toContain('x\n')
  }, 60_000)

  it("Claude Code's question with choices, at phone size: its choices as buttons and a box for words; a tap picks one", async () => {
    const bin = join(sb.root, 'bin-question')
    mkdirSync(bin, {recursive: true})
    copyFileSync(join(ROOT, 'test', 'helpers', 'question-standin.cjs'), join(bin, 'claude'))
    chmodSync(join(bin, 'claude'), 0o755)
    const answers = join(sb.root, 'answers')
    env = {PATH: `${bin}:${process.env.PATH}`, STANDIN_PK: PK_BIN, STANDIN_ANSWERED: answers}
    const row = await sb.bgRow(['claude'], {env})
    await waitFor('waiting', async () => (await sb.pkJson<LsJson>(['ls'], {env})).sessions.find((s) => s.id === row.id && s.state === 'waiting'), 15_000)
    const url = await serve()
    const context = await browser.newContext({viewport: {width: 360, height: 640}})
    const page = await context.newPage()
    await page.goto(url)
    await page.getByRole('button', {name: /^claude/}).click({timeout: 15_000})
    await page.getByRole('heading', {name: 'Which database should the migration run against?'}).waitFor({timeout: 15_000})
    // (each choice with what the question says of it)
    await page.getByRole('button', {name: 'staging The staging copy'}).waitFor()
    expect(await page.getByRole('button', {name: 'Type something.'}).count()).toBe(0)
    await page.getByLabel('The agent asks a question: answer it').waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await page.screenshot({path: join(ARTIFACTS, 'phone-question.png'), fullPage: true})
    await page.getByRole('button', {name: 'production The live database'}).click()
    await page.getByText('answered: production').waitFor({timeout: 20_000})
    await waitFor('answered', () => existsSync(answers), 10_000)
    expect(readFileSync(answers, 'utf8')).toBe('"production"\n')
    await context.close()
  }, 60_000)

  it.skipIf(spawnSync('ssh', ['-V']).error !== undefined)(
    'a host that cannot be reached (pk serve --host) is said on the page, as text',
    async () => {
      mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
      const name = 'closed'
      writeFileSync(
        join(sb.home, '.config', 'pk', 'config.json'),
        JSON.stringify({hosts: [{name, destination: 'nobody@127.0.0.1', options: ['-F', '/dev/null', '-p', '1', '-o', 'BatchMode=yes']}]}),
      )
      const url = await serve(['--fleet'])
      const context = await browser.newContext({viewport: {width: 360, height: 640}})
      const page = await context.newPage()
      await page.goto(url)
      const problem = page.getByRole('list', {name: 'Problems'}).getByText(`${name}: `, {exact: false})
      await problem.waitFor({timeout: 20_000})
      expect(await problem.textContent()).toMatch(/refused/i)
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
      await page.screenshot({path: join(ARTIFACTS, 'phone-host-unreachable.png'), fullPage: true})
      await context.close()
    },
    60_000,
  )

  it('a session’s changes, read only: the counts, each file (a hostile name as text) and the commits', async () => {
    const repo = makeRepo(sb)
    const git = gitIn(sb)
    const started = await sb.pk(['bg', '--json', '--worktree', '--name', 'review', '--', 'sleep', '1000'], {cwd: repo, env: GIT_ENV})
    expect(started.code, started.stderr).toBe(0)
    const row = JSON.parse(started.stdout).session
    const hostile = '<img src=x onerror=alert(4)>.txt'
    writeFileSync(join(row.cwd, hostile), 'one\ntwo\n')
    git(row.cwd, 'add', '-A')
    git(row.cwd, 'commit', '-q', '-m', '<b>bold</b> work')
    writeFileSync(join(row.cwd, 'README'), 'app\nmore\n')
    const url = await serve(['--read-only'])
    const context = await browser.newContext({viewport: {width: 360, height: 640}})
    const page: Page = await context.newPage()
    await page.goto(url)
    const button = page.getByRole('button', {name: /sh · review|review/}).first()
    await button.waitFor({timeout: 15_000})
    await button.click()
    await page.getByRole('button', {name: 'Changes'}).click()
    const changes = page.getByLabel('What the session changed')
    await changes.getByText('2 file(s), +3 -0, 1 commit(s), uncommitted work').waitFor({timeout: 15_000})
    await changes.getByText(`A ${hostile}  +2 -0`).waitFor()
    await changes.getByText(/<b>bold<\/b> work/).waitFor()
    expect(await page.locator('img').count()).toBe(0)
    expect(await page.locator('b').count()).toBe(0)
    await page.screenshot({path: join(ARTIFACTS, 'changes-phone.png'), fullPage: true})
    await context.close()
  }, 60_000)
})
