import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {createContext} from '../../../src/invocation/context.js'
import {answerDialog} from '../../../src/lib/verbs/answer.js'
import {Sandbox} from '../../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe('answerDialog', () => {
  it('refuses, typing nothing, a session with no agent, one that exited, and an unknown id', async () => {
    const row = await sb.bgRow(['--', 'sh', '-c', 'echo "Do you want to proceed?"; echo " ❯ 1. Yes"; echo "   2. No"; exec cat'])
    const ctx = createContext(sb.env, {cwd: sb.root})
    // A plain command that prints a dialog's words is not an agent's dialog.
    await expect(answerDialog(row.id, ctx, 'yes')).rejects.toMatchObject({code: 'no-dialog', exitCode: 1})
    expect(sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', row.tmux!.pane)).not.toMatch(/^1$/m)
    await expect(answerDialog('ffffffff', ctx, 'yes')).rejects.toMatchObject({exitCode: 3})
    expect((await sb.pk(['stop', row.id])).code).toBe(0)
    await expect(answerDialog(row.id, ctx, 'no')).rejects.toMatchObject({code: 'exited', exitCode: 3})
  })
})
