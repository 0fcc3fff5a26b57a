import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {createContext} from '../../../src/invocation/context.js'
import {attachCommand, remoteAttachCommand, runAttach} from '../../../src/lib/verbs/attach-run.js'
import {Sandbox} from '../../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe('attaching', () => {
  it('prints the tmux command that attaches to exactly that pane, and refuses without a terminal', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    const ctx = createContext(sb.env, {cwd: sb.root})
    const line = await attachCommand(row.id.slice(0, 5), ctx)
    expect(line).toContain(sb.pkSocket)
    expect(line).toContain(row.tmux!.pane)
    expect(line).toMatch(/^tmux /)
    await expect(runAttach(row.id, ctx, false)).rejects.toMatchObject({code: 'no-terminal', exitCode: 1})
    await expect(attachCommand('ffffffff', ctx)).rejects.toMatchObject({exitCode: 3})
  })
  it("reaches another host's session through its own pk, with ssh", async () => {
    mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
    writeFileSync(join(sb.home, '.config', 'pk', 'config.json'), JSON.stringify({hosts: [{name: 'box', destination: 'me@box', pk: 'npx pk'}]}))
    const argv = await remoteAttachCommand('box', 'ab12cd34', createContext({...sb.env, XDG_CONFIG_HOME: join(sb.home, '.config')}, {cwd: sb.home}))
    expect(argv[0]).toBe('ssh')
    expect(argv).toContain('me@box')
    expect(argv.at(-1)).toMatch(/npx pk attach ab12cd34$/)
  })
})
