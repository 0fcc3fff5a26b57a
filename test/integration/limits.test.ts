import {readFileSync, unlinkSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {claudeClock, codexClock, codexLimitScreen, fixture, inLab, lines, readdir, resetIn} from '../helpers/limit-lab.js'
import {startWatcher, waitFor} from '../helpers/sandbox.js'

/**
 * Sessions at a usage limit (issue 64), end to end: the stand-ins draw Claude Code 2.1.332's and Codex
 * 0.171.0's captured limit screens (test/helpers/limit-standin.cjs) with a reset a minute or two from now,
 * and report the limit as each does. pk lists them `limited` with their reset, tells it once, and carries
 * them on once at the reset (a sleeping pk: no user manager here), or leaves them to the agent.
 */

describe('a session at a usage limit', () => {
  it.concurrent(
    'Codex: listed limited with its reset, told once, continued by pk once shortly after the reset, and its turn told after',
    inLab(async (lab) => {
      // (a reset two minutes away, give or take: the agents show it to the minute)
      const reset = resetIn(110_000)
      const screen = codexLimitScreen(reset)
      const id = await lab.start('codex', screen)
      const r = await lab.limited(id, (x) => x.limit!.since !== null && x.limit!.continuedBy === 'pk')
      expect(r.limit).toMatchObject({what: 'usage limit', shown: codexClock(reset), resetsAt: reset.toISOString(), continuedBy: 'pk'})
      expect(Date.parse(r.limit!.continueAt!) - reset.getTime()).toBe(90_000)
      expect(r.attention).toBe(true)
      await waitFor('told', () => lines(lab.told).length > 0, 20_000)
      expect(lines(lab.told)).toEqual([expect.stringMatching(new RegExp(`^${id} limited hit its usage limit; continues at \\d\\d:\\d\\d`))])
      // Every pk process of the test has ended but the wake-up itself (a sleeping pk: no user manager here).
      const wake = JSON.parse(readFileSync(join(lab.sb.stateDir, 'continue', `${id}.json`), 'utf8')).wake as {kind: string; pid: number}
      expect(wake.kind).toBe('sleeper')
      await lab.sb.settled([wake.pid])
      // Nothing typed before the moment.
      expect(lines(lab.submitted)).toEqual([])
      await waitFor('continued', () => lines(lab.submitted).length > 0, reset.getTime() + 90_000 + 45_000 - Date.now())
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(r.limit!.continueAt!))
      expect(lines(lab.submitted)).toEqual(['"continue"'])
      await waitFor('its turn told', () => lines(lab.told).length > 1, 20_000)
      await lab.sb.settled()
      expect(lines(lab.told)).toEqual([expect.stringMatching(/ limited hit its usage limit/), `${id} idle finished its turn`])
      expect(lines(lab.submitted)).toEqual(['"continue"'])
      expect((await lab.row(id))?.state).toBe('idle')
    }),
    300_000,
  )

  it.concurrent(
    'Claude Code continuing by itself at the reset: said so, and pk types nothing',
    inLab(async (lab) => {
      const reset = resetIn(0)
      const screen = fixture('claude-2.1.332.limited.five-hour-auto-continue.txt').replaceAll('5:09am', claudeClock(reset))
      const auto = Date.now() + 8000
      const id = await lab.start('claude', screen, {STANDIN_AUTO_AT: String(auto)})
      const r = await lab.limited(id)
      expect(r.limit).toMatchObject({what: '5-hour limit', continuedBy: 'agent', continueAt: null})
      await waitFor('told', () => lines(lab.told).length > 0, 20_000)
      expect(lines(lab.told)[0]).toMatch(new RegExp(`^${id} limited hit its 5-hour limit; continues by itself at \\d\\d:\\d\\d$`))
      await waitFor('its own turn told', () => lines(lab.told).length > 1, 30_000)
      await lab.sb.settled()
      expect(lines(lab.told)).toEqual([expect.stringMatching(/continues by itself/), `${id} idle finished its turn`])
      expect(lines(lab.keys)).toEqual([])
      expect(readdir(join(lab.sb.stateDir, 'continue')).map((f) => JSON.parse(readFileSync(join(lab.sb.stateDir, 'continue', f), 'utf8')).wake)).toEqual([null])
    }),
    120_000,
  )

  it.concurrent(
    "Claude Code's limit menu: pk send refused; pk continue --at moves the moment, and the wake-up closes the menu (Esc) before its message",
    inLab(async (lab) => {
      const reset = resetIn(3 * 3600_000)
      const screen = fixture('claude-2.1.332.limited.five-hour-menu.txt').replaceAll('5:10am', claudeClock(reset))
      const id = await lab.start('claude', screen)
      await lab.limited(id, (x) => x.limit!.since !== null && x.limit!.continuedBy === 'pk')
      const sent = await lab.pk(['send', id, 'hello'])
      expect(sent).toMatchObject({code: 1})
      expect(sent.stderr).toMatch(/usage limit's menu, which takes a choice, not text; nothing was typed \(pk continue/)
      expect(lines(lab.keys)).toEqual([])
      const moved = await lab.pk(['continue', id, '--at', '+4s', '--json'])
      expect(moved.code).toBe(0)
      expect(JSON.parse(moved.stdout)).toMatchObject({done: 'at', continueAt: expect.any(String)})
      await waitFor('continued', () => lines(lab.submitted).length > 0, 30_000)
      expect(lines(lab.submitted)).toEqual(['"continue"'])
      expect(lines(lab.keys)[0]).toBe(JSON.stringify('\x1b'))
    }),
    120_000,
  )

  it.concurrent(
    'pk continue ID carries it on now; --off turns the wake-up off; at no limit, pk continue refuses (exit 1)',
    inLab(async (lab) => {
      const reset = resetIn(3 * 3600_000)
      const screen = codexLimitScreen(reset)
      const id = await lab.start('codex', screen)
      // (one started with pk bg --no-continue is nobody's to continue, and says why)
      const mine = await lab.start('codex', screen, {}, ['--no-continue'])
      expect((await lab.limited(mine)).limit).toMatchObject({continuedBy: 'nobody', why: 'started with pk bg --no-continue'})
      await lab.limited(id, (x) => x.limit!.since !== null && x.limit!.continuedBy === 'pk')
      const off = await lab.pk(['continue', id, '--off'])
      expect(off.code).toBe(0)
      expect((await lab.row(id))?.limit).toMatchObject({continuedBy: 'nobody', why: expect.stringMatching(/pk continue --off/)})
      // pk's sleeper for it has ended: nothing will type later.
      await lab.sb.settled()
      const now = await lab.pk(['continue', id, '--json'])
      expect(now.code).toBe(0)
      expect(JSON.parse(now.stdout)).toMatchObject({id, done: 'continued', typed: 'continue'})
      expect(lines(lab.submitted)).toEqual(['"continue"'])
      await waitFor('idle', async () => (await lab.row(id))?.state === 'idle', 20_000)
      const again = await lab.pk(['continue', id])
      expect(again).toMatchObject({code: 1})
      expect(again.stderr).toMatch(/is idle, not at a usage limit; nothing was typed/)
      expect(lines(lab.submitted)).toEqual(['"continue"'])
    }),
    120_000,
  )

  it.concurrent(
    'someone attached at the moment: nothing is typed, the limit is left to them, and said so',
    inLab(async (lab) => {
      const reset = resetIn(3 * 3600_000)
      const screen = codexLimitScreen(reset)
      const id = await lab.start('codex', screen)
      const r = await lab.limited(id, (x) => x.limit!.since !== null && x.limit!.continuedBy === 'pk')
      const term = lab.sb.socket('term')
      lab.sb.tmux(
        term,
        'new-session',
        '-d',
        '-x',
        '150',
        '-y',
        '40',
        '--',
        'env',
        '-u',
        'TMUX',
        'tmux',
        '-S',
        lab.sb.pkSocket,
        'attach',
        '-t',
        r.tmux!.sessionId,
      )
      await waitFor('attached', () => lab.sb.tmuxTry(lab.sb.pkSocket, 'list-clients').stdout.trim() !== '')
      const arranged = await lab.pk(['continue', id, '--at', '+3s'])
      expect(arranged.code, arranged.stderr).toBe(0)
      await waitFor('left to them', async () => (await lab.row(id))?.limit?.why?.includes('someone was attached'), 30_000)
      await lab.sb.settled()
      expect(lines(lab.submitted)).toEqual([])
      expect(lines(lab.keys)).toEqual([])
      expect((await lab.row(id))?.limit).toMatchObject({continuedBy: 'nobody', continueAt: null})
    }),
    120_000,
  )

  it.concurrent(
    'a limit met again at once after each continue: a new limit each time, told each time, and after three in a row pk stops continuing it',
    inLab(async (lab) => {
      const {id} = await lab.codexAgain(resetIn(3 * 3600_000))
      let since = (await lab.limited(id)).limit!.since
      for (let n = 1; n <= 3; n++) {
        expect((await lab.pk(['continue', id])).code).toBe(0)
        const next = await lab.limited(id, (x) => x.limit!.since !== null && x.limit!.since !== since && (x.limit!.why !== null) === (n === 3))
        since = next.limit!.since
      }
      const r = (await lab.row(id))!
      expect(r.limit).toMatchObject({continuedBy: 'nobody', why: '3 limits in a row without a finished turn: pk stopped continuing it'})
      expect(lines(lab.submitted)).toEqual(['"continue"', '"continue"', '"continue"'])
      await waitFor('each limit told', () => lines(lab.told).length === 4, 20_000)
      await lab.sb.settled()
      expect(lines(lab.told).at(-1)).toMatch(/hit its usage limit \(resets \d\d:\d\d\); not continued: 3 limits in a row/)
    }),
    120_000,
  )

  it.concurrent(
    'Codex meeting its limit in a turn, with no notify (0.171.0 fires none there): a watcher dates it, it is told once, and continued',
    inLab(async (lab) => {
      const reset = resetIn(3 * 3600_000)
      const {id, again} = await lab.codexAgain(reset, {STANDIN_START_IDLE: '1', STANDIN_QUIET_LIMIT: '1'})
      await waitFor('idle', async () => (await lab.row(id))?.state === 'idle', 20_000)
      const watcher = startWatcher({...lab.sb.env, ...lab.env})
      try {
        expect((await lab.pk(['send', id, 'meet the limit'])).code).toBe(0)
        const r = await lab.limited(id)
        expect(r.limit).toMatchObject({what: 'usage limit', resetsAt: reset.toISOString(), continuedBy: 'pk'})
        await waitFor('told', () => lines(lab.told).some((l) => / limited /.test(l)), 20_000)
        expect(lines(lab.told).filter((l) => / limited /.test(l))).toEqual([expect.stringMatching(/hit its usage limit; continues at/)])
        unlinkSync(again)
        expect((await lab.pk(['continue', id])).code).toBe(0)
        await waitFor('its turn done', async () => (await lab.row(id))?.state === 'idle', 20_000)
        expect(lines(lab.submitted)).toEqual(['"meet the limit"', '"continue"'])
      } finally {
        watcher.child.kill('SIGTERM')
      }
    }),
    120_000,
  )

  it.concurrent(
    'a continue that cannot be typed at the moment (a draft in its input) is told once, and not tried again',
    inLab(async (lab) => {
      // As Codex 0.171.0 does: a turn meets the limit with no notify, and a watcher dates it (its sight of it
      // is kept in the record: a draft typed later moves the screen, not that date).
      const reset = resetIn(3 * 3600_000)
      const {id} = await lab.codexAgain(reset, {STANDIN_START_IDLE: '1', STANDIN_QUIET_LIMIT: '1'})
      await waitFor('idle', async () => (await lab.row(id))?.state === 'idle', 20_000)
      const watcher = startWatcher({...lab.sb.env, ...lab.env})
      const limitsTold = () => lines(lab.told).filter((l) => l.startsWith(`${id} limited `))
      try {
        expect((await lab.pk(['send', id, 'meet the limit'])).code).toBe(0)
        const r = await lab.limited(id, (x) => x.limit!.since !== null && x.limit!.continuedBy === 'pk')
        await waitFor('told', () => limitsTold().length === 1, 20_000)
        // Someone typed in it and left it there, seconds later (tmux dates the window's output to the second).
        await waitFor('seconds after its limit', () => Date.now() > Date.parse(r.limit!.since!) + 2500, 10_000)
        lab.sb.tmux(lab.sb.pkSocket, 'send-keys', '-t', r.tmux!.pane, '-l', 'half a thought')
        await waitFor('drawn', () => lab.sb.tmux(lab.sb.pkSocket, 'capture-pane', '-p', '-t', r.tmux!.pane).includes('› half a thought'))
        const arranged = await lab.pk(['continue', id, '--at', '+2s'])
        expect(arranged.code, arranged.stderr).toBe(0)
        await waitFor('told it failed', () => limitsTold().length === 2, 30_000)
        expect(limitsTold()[1]).toMatch(new RegExp(`^${id} limited could not be continued at its limit's reset: .*has a draft in its input \\(14 characters`))
      } finally {
        watcher.child.kill('SIGTERM')
      }
      await lab.sb.settled()
      expect(lines(lab.submitted)).toEqual(['"meet the limit"'])
      expect((await lab.row(id))?.limit).toMatchObject({
        continuedBy: 'nobody',
        why: expect.stringMatching(/^pk continued it once at this limit already \(not carried on: /),
      })
      expect(limitsTold()).toHaveLength(2)
    }),
    120_000,
  )
})
