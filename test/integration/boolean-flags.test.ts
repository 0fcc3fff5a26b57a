import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {LsJson, ROOT, Sandbox} from '../helpers/sandbox.js'

/**
 * A boolean flag given a value (`--force=false`, `--enter=0`) is a usage error (exit 2) before anything is
 * done, on the fast path and through oclif: it was taken as the flag and a word, so "false" meant true.
 * The test walks every boolean flag of every command in oclif's manifest.
 */
interface ManifestFlag {
  type: string
  char?: string
  allowNo?: boolean
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {args: Record<string, {required?: boolean}>; flags: Record<string, ManifestFlag>}>
}

let sb: Sandbox
let id: string
let pane: string
let screen: string
beforeAll(async () => {
  sb = new Sandbox()
  const row = await sb.bgRow(['--', 'cat'])
  id = row.id
  pane = row.tmux!.pane
  screen = sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', pane)
})
afterAll(() => sb.cleanup())

/** The words a command needs besides its flags: a live session's id where it takes one. */
const wordsFor = (command: string, args: Record<string, {required?: boolean}>) => {
  const words = Object.keys(args).flatMap((name) => {
    if (name === 'id') return [id]
    if (name === 'agent') return [command === 'hook' ? 'claude' : 'claude']
    if (name === 'answer') return ['yes']
    if (name === 'shell') return ['bash']
    return []
  })
  if (command === 'send') words.push('typed')
  return words
}

describe('a boolean flag given a value', () => {
  it('every boolean flag of every command, =false, =true, =0 and =no, both paths: exit 2, nothing done', async () => {
    const cases: {argv: string[]; fast: boolean}[] = []
    const values = ['false', 'true', '0', 'no']
    let k = 0
    for (const [command, spec] of Object.entries(manifest.commands)) {
      for (const [name, flag] of Object.entries(spec.flags)) {
        // (`pk bg --worktree=BRANCH` is `--worktree --branch BRANCH`, as documented: a value, not a yes or no)
        if (flag.type !== 'boolean' || name === 'help' || name === 'version' || (command === 'bg' && name === 'worktree')) continue
        // Each flag on both paths, the four values taking turns (test/unit/cli/simple-argv.test.ts gives every flag all four).
        for (const fast of [true, false]) {
          const argv = [...command.split(':'), ...wordsFor(command, spec.args), `--${name}=${values[k++ % values.length]}`]
          if (command === 'bg') argv.push('--', 'sleep', '100000')
          cases.push({argv, fast})
        }
        if (flag.char) cases.push({argv: [...command.split(':'), ...wordsFor(command, spec.args), `-${flag.char}=false`], fast: false})
      }
    }
    expect(cases.length).toBeGreaterThan(100)
    const failures: string[] = []
    for (let at = 0; at < cases.length; at += 8) {
      await Promise.all(
        cases.slice(at, at + 8).map(async ({argv, fast}) => {
          const result = await sb.pk(argv, {env: fast ? {} : {PK_FAST_PATH: '0'}, input: ''})
          // An agent's hook never fails the agent (exit 0, the mistake in hook.log); it takes nothing either.
          const expected = argv[0] === 'hook' && !argv.some((a) => a === '--json') ? 0 : 2
          if (result.code !== expected || (expected === 2 && !/takes no value/.test(result.stderr)))
            failures.push(`${fast ? 'fast' : 'oclif'}: pk ${argv.join(' ')} -> ${result.code} ${result.stderr.trim().slice(0, 200)}`)
        }),
      )
    }
    expect(failures).toEqual([])
    // Nothing was done: the one session is still there, alone, unchanged, and nothing was typed into it.
    const listed = await sb.pkJson<LsJson>(['ls', '--all'])
    expect(listed.sessions.map((s) => [s.id, s.state])).toEqual([[id, expect.not.stringMatching(/exited/)]])
    expect(sb.tmux(sb.pkSocket, 'capture-pane', '-p', '-t', pane)).toBe(screen)
    expect(existsSync(join(sb.stateDir, 'spool')) ? readdirSync(join(sb.stateDir, 'spool')) : []).toEqual([])
  }, 300_000)

  it('--no-enter still says no, and a value after a boolean flag as its own word is a word, as before', async () => {
    const sent = await sb.pk(['send', id, '--no-enter', 'draft', '--json'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(JSON.parse(sent.stdout)).toMatchObject({enter: false})
  })
})
