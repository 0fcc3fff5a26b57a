import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {run, runInTerminal} from '../../../src/lib/exec/run.js'
import {alive, waitFor} from '../../helpers/sandbox.js'

const dir = mkdtempSync(join(tmpdir(), 'pk-run-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))
describe('run: the one child-process runner', () => {
  it('runs an argv without a shell and hands back status, stdout and stderr', async () => {
    const ran = await run(['sh', '-c', 'printf "%s" "$1"; echo err >&2; exit 3', 'sh', '$(not run) ;|'])
    expect(ran).toEqual({code: 3, signal: null, stdout: '$(not run) ;|', stderr: 'err\n', timedOut: false, error: null})
  })
  it('feeds input through a pipe and passes env and cwd', async () => {
    const ran = await run(['sh', '-c', 'cat; printf " %s %s" "$PK_X" "$(pwd)"'], {input: 'in', env: {PATH: process.env.PATH, PK_X: 'x'}, cwd: dir})
    expect(ran.stdout).toBe(`in x ${dir}`)
  })
  it('a program that does not exist is an error, never a throw', async () => {
    const ran = await run(['/nonexistent/pk-no-such-program'])
    expect(ran.code).toBeNull()
    expect(ran.error?.code).toBe('ENOENT')
  })
  it('kills a program that runs past its deadline, even when another process holds its pipes', async () => {
    // The child hands its stdout to a grandchild that outlives it (as tmux hands a client's to its server).
    const pidFile = join(dir, 'holder')
    const started = Date.now()
    const ran = await run(['sh', '-c', `sleep 30 & echo $! > ${pidFile}; sleep 30`], {deadlineMs: 300})
    expect(ran.timedOut).toBe(true)
    expect(ran.signal).toBe('SIGKILL')
    expect(Date.now() - started).toBeLessThan(10_000)
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL')
  })
  it('with group, kills the helpers a program started along with it', async () => {
    const pidFile = join(dir, 'helper')
    const ran = await run(['sh', '-c', `sleep 30 & echo $! > ${pidFile}; wait`], {deadlineMs: 300, group: true, until: 'exit'})
    expect(ran.timedOut).toBe(true)
    const helper = Number(readFileSync(pidFile, 'utf8'))
    await waitFor('the helper to be killed with its group', () => !alive(helper) || null, 5000)
  })
  it("until 'exit' and 'stdout' end at the program's exit though a helper keeps stderr open", async () => {
    const pidFile = join(dir, 'lingering')
    for (const until of ['exit', 'stdout'] as const) {
      const started = Date.now()
      const ran = await run(['sh', '-c', `(exec >/dev/null; sleep 30) & echo $! > ${pidFile}; echo done`], {until, deadlineMs: 20_000})
      expect(ran).toMatchObject({code: 0, stdout: 'done\n', timedOut: false})
      expect(Date.now() - started).toBeLessThan(10_000)
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL')
    }
  })
  it('hands stdout over line by line, the last line without a newline too, and ends on abort', async () => {
    const lines: string[] = []
    const ran = await run(['sh', '-c', 'printf "a\\nb\\nc"'], {onLine: (l) => lines.push(l)})
    expect(lines).toEqual(['a', 'b', 'c'])
    expect(ran.stdout).toBe('')
    const abort = new AbortController()
    const seen: string[] = []
    const running = run(['sh', '-c', 'echo up; exec sleep 30'], {signal: abort.signal, onLine: (l) => (seen.push(l), abort.abort())})
    expect((await running).signal).toBe('SIGTERM')
    expect(seen).toEqual(['up'])
  })
  it('sends output where it is told instead of reading it', async () => {
    const file = join(dir, 'out')
    const {openSync, closeSync} = await import('node:fs')
    const fd = openSync(file, 'w')
    const ran = await run(['sh', '-c', 'echo to-fd; echo err >&2'], {output: fd})
    closeSync(fd)
    expect(ran).toMatchObject({code: 0, stdout: '', stderr: ''})
    expect(readFileSync(file, 'utf8')).toBe('to-fd\nerr\n')
  })
  it('runInTerminal hands back the exit status, and ENOENT for a missing program', () => {
    expect(runInTerminal(['sh', '-c', 'exit 7'], process.env)).toEqual({status: 7, error: null})
    expect(runInTerminal(['/nonexistent/pk-no-such-program'], process.env).error?.code).toBe('ENOENT')
    expect(existsSync(dir)).toBe(true)
  })
})
