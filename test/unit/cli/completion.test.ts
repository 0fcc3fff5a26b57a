import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {CompletionCommand, completionScript} from '../../../src/lib/cli/completion.js'

const commands: CompletionCommand[] = [
  {
    id: 'ls',
    summary: "List sessions: the ones [waiting] on you first, with 'quotes'",
    flags: [
      {name: 'json', description: 'machine output', value: null},
      {name: 'sort', description: 'order', value: {words: ['state', 'age']}},
    ],
    arg: null,
  },
  {id: 'stop', summary: 'Stop a session', flags: [{name: 'force', description: 'SIGKILL after the grace', value: null}], arg: {ids: 'live'}},
  {id: 'bg', summary: 'Start an agent', flags: [{name: 'cwd', description: 'where', value: 'dirs'}], arg: {words: ['claude', 'codex']}},
]

/** What bash's completion offers for a command line (the script evaluated in a real bash; pk __ids answered by a stand-in). */
function bashOffers(line: string[]): string[] {
  const script = `pk() { printf 'abc1234\\nabd5678\\n'; }\neval "$1"\nCOMP_WORDS=(${line.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${line.length - 1}\n_pk_complete\nprintf '%s\\n' "\${COMPREPLY[@]}"`
  const run = spawnSync('bash', ['--norc', '-c', script, 'bash', completionScript('bash', commands)], {encoding: 'utf8'})
  expect(run.stderr).toBe('')
  return run.stdout.split('\n').filter(Boolean)
}

describe('shell completion scripts', () => {
  it('bash offers commands, flags, flag values, fixed words and live ids', () => {
    expect(bashOffers(['pk', ''])).toEqual(['ls', 'stop', 'bg'])
    expect(bashOffers(['pk', 'ls', '--'])).toEqual(['--json', '--sort'])
    expect(bashOffers(['pk', 'ls', '--sort', 'a'])).toEqual(['age'])
    expect(bashOffers(['pk', 'bg', 'c'])).toEqual(['claude', 'codex'])
    expect(bashOffers(['pk', 'stop', 'abc'])).toEqual(['abc1234'])
  })
  it('every script parses in its own shell', () => {
    expect(spawnSync('bash', ['-n'], {input: completionScript('bash', commands)}).status).toBe(0)
    for (const shell of ['zsh', 'fish'] as const) {
      const file = join(mkdtempSync(join(tmpdir(), 'pk-completion-')), `pk.${shell}`)
      writeFileSync(file, completionScript(shell, commands))
      const probe = spawnSync(shell, shell === 'zsh' ? ['-f', '-n', file] : ['-n', file], {encoding: 'utf8'})
      rmSync(dirname(file), {recursive: true})
      if (probe.error) continue // not installed here; the integration tests run them where CI installs them
      expect(probe.status, `${shell}: ${probe.stderr}`).toBe(0)
    }
  })
  it("keeps a summary's brackets, colons and quotes out of zsh's specs, and quotes them for fish", () => {
    expect(completionScript('zsh', commands)).toContain("'ls:List sessions the ones waiting on you first, with ’quotes’'")
    expect(completionScript('fish', commands)).toContain("-a ls -d 'List sessions: the ones [waiting] on you first, with \\'quotes\\''")
    expect(completionScript('fish', commands)).toContain("complete -c pk -n '__fish_seen_subcommand_from stop' -a '(pk __ids live 2>/dev/null)'")
  })
})
