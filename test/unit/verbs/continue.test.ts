import {describe, expect, it} from 'vitest'

import {createContext} from '../../../src/invocation/context.js'
import {continueSession, scheduleContinue, wakeToContinue} from '../../../src/lib/verbs/continue.js'
import {readContinueFile} from '../../../src/lib/limits/store.js'
import {stateLayout} from '../../../src/lib/registry/state-dir.js'
import {fixture, inLab, lines, resetIn} from '../../helpers/limit-lab.js'

describe('continueSession and scheduleContinue', () => {
  it(
    'refuse, typing nothing: an unknown id, a plain command, a session at no limit; a wake-up with nothing arranged does nothing',
    inLab(async (lab) => {
      const plain = await lab.sb.bgRow(['--', 'sh', '-c', 'echo "You\'ve hit your usage limit."; exec cat'])
      const ctx = createContext(lab.sb.env, {cwd: lab.sb.root})
      await expect(continueSession(ctx, 'ffffffff', {timeoutMs: 5000})).rejects.toMatchObject({exitCode: 3})
      await expect(continueSession(ctx, plain.id, {timeoutMs: 5000})).rejects.toMatchObject({code: 'not-limited', exitCode: 1})
      await expect(scheduleContinue(ctx, plain.id, {off: true})).rejects.toMatchObject({code: 'not-limited'})
      expect(await wakeToContinue(ctx, plain.id, Date.now())).toMatchObject({done: 'skipped', why: 'the moment was moved or cancelled'})
      expect(readContinueFile(stateLayout(lab.sb.stateDir), plain.id)).toBeNull()
    }),
    60_000,
  )

  it(
    "Gemini CLI's limit dialog: pk chooses its Keep trying (1), sees the dialog go, and keeps what came of it",
    inLab(async (lab) => {
      const reset = resetIn(3 * 3600_000)
      const clock = `${reset.getUTCHours() % 12 || 12}:${String(reset.getUTCMinutes()).padStart(2, '0')} ${reset.getUTCHours() < 12 ? 'AM' : 'PM'}`
      const id = await lab.start('gemini', fixture('gemini-0.61.0.limited.usage-limit.txt').replace('5:14 AM', clock))
      // (no hook of Gemini's tells its limit: read off the screen, undated until a watcher looks)
      const row = await lab.limited(id, () => true)
      expect(row.limit).toMatchObject({resetsAt: reset.toISOString(), continuedBy: 'pk'})
      const ctx = createContext(lab.sb.env, {cwd: lab.sb.root})
      await expect(continueSession(ctx, id, {timeoutMs: 20_000})).resolves.toMatchObject({done: 'continued', typed: 'Keep trying'})
      expect(lines(lab.submitted)).toEqual(['"1"'])
      expect(readContinueFile(stateLayout(lab.sb.stateDir), id)).toMatchObject({
        inARow: 1,
        continuedEpisode: row.limit!.since,
        lastOutcome: expect.stringMatching(/^continued at /),
      })
    }),
    60_000,
  )
})
