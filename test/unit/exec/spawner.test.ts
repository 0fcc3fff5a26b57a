import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {run} from '../../../src/lib/exec/run.js'
import {Spawner} from '../../../src/lib/exec/spawner.js'
import {onlyReads} from '../../../src/lib/tmux/exec.js'
import {ROOT, alive, waitFor} from '../../helpers/sandbox.js'

let dir: string
let spawner: Spawner
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pk-unit-'))
  spawner = new Spawner({...process.env, TMPDIR: dir})
})
afterEach(() => {
  if (spawner.pid !== undefined) {
    try {
      process.kill(spawner.pid, 'SIGCONT')
      process.kill(spawner.pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
  rmSync(dir, {recursive: true, force: true})
})

describe('the spawner: programs started by a small shell, answered as run answers', () => {
  it('output, errors, exit status and every awkward word as run gives them', async () => {
    const words = ["it's", 'two words', '$HOME', '`id`', '"q"', 'line\nbreak', '\\n', '*', '', ';', '#{pane_id}']
    const cases = [
      ['printf', '%s|', ...words],
      ['sh', '-c', 'echo out; echo err >&2; exit 3'],
      ['sh', '-c', 'kill -TERM $$'],
    ]
    for (const argv of cases) {
      const [a, b] = [await spawner.run(argv, 5000), await run(argv, {deadlineMs: 5000})]
      expect(a).toEqual(b)
    }
    expect((await spawner.run(cases[0]!, 5000)).stdout).toBe(words.map((w) => `${w}|`).join(''))
  })

  it('no such program: the same ENOENT as run', async () => {
    const ran = await spawner.run(['pk-no-such-program'], 5000)
    expect(ran.error?.code).toBe('ENOENT')
  })

  it('many at once: each its own output', async () => {
    const ran = await Promise.all(Array.from({length: 30}, (_, i) => spawner.run(['sh', '-c', `sleep 0.0${i % 10}; echo ${i}`], 10_000)))
    expect(ran.map((r) => r.stdout)).toEqual(Array.from({length: 30}, (_, i) => `${i}\n`))
  })

  it('leaves no zombies behind: a poll every 0.7 s for days would fill the process table', async () => {
    for (let i = 0; i < 40; i++) await spawner.run(['true'], 5000)
    const children = spawnSync('ps', ['--ppid', String(spawner.pid), '-o', 'stat='], {encoding: 'utf8'})
      .stdout.trim()
      .split('\n')
      .filter(Boolean)
    expect(children.length).toBeLessThanOrEqual(2)
  })

  it('a program past its deadline is killed, and said to have timed out', async () => {
    const ran = await spawner.run(['sh', '-c', 'echo $$; exec sleep 60'], 1500)
    expect(ran).toMatchObject({timedOut: true, code: null})
    const pid = Number(ran.stdout.trim())
    await waitFor('the program killed', () => !alive(pid), 5000)
  })

  it('a shell stopped (SIGSTOP) holds nobody past the deadline; the program it starts later is killed as it starts', async () => {
    await spawner.run(['true'], 5000)
    process.kill(spawner.pid!, 'SIGSTOP')
    const started = Date.now()
    const ran = await spawner.run(['sh', '-c', `echo started > '${join(dir, 'late')}'; exec sleep 60`], 1000)
    expect(ran.timedOut).toBe(true)
    expect(Date.now() - started).toBeLessThan(4000)
    process.kill(spawner.pid!, 'SIGCONT')
    // (the program started once the shell went on, and was killed: no sleep 60 of it is left)
    await waitFor('no program left running', () => spawnSync('pgrep', ['-f', `echo started > '${join(dir, 'late')}'`]).status !== 0, 5000)
  })

  it('a shell killed while a program runs: asked again the usual way', async () => {
    await spawner.run(['true'], 5000)
    const asked = spawner.run(['sh', '-c', 'sleep 0.5; echo done'], 10_000)
    await waitFor('the program running', () => readdirSync(join(dir, readdirSync(dir)[0]!)).length > 0, 5000)
    process.kill(spawner.pid!, 'SIGKILL')
    expect(await asked).toMatchObject({code: 0, stdout: 'done\n', timedOut: false})
    expect(spawner.ended).toBe(true)
  })

  it('its directory goes with the pk that used it, however that pk ended', async () => {
    const script = `import(${JSON.stringify(join(ROOT, 'dist/lib/exec/spawner.js'))}).then(async ({Spawner}) => {
  const s = new Spawner(process.env)
  await s.run(['true'], 5000)
  process.stdout.write(readdirSync(process.env.TMPDIR).filter((n) => n.startsWith('pk-spawner.')).join(' '))
  process.kill(process.pid, 'SIGKILL')
})`
    const own = mkdtempSync(join(dir, 'tmp-'))
    const child = spawnSync(process.execPath, ['-e', `const {readdirSync} = require('node:fs'); ${script}`], {
      env: {...process.env, TMPDIR: own},
      encoding: 'utf8',
    })
    expect(child.stdout).toMatch(/^pk-spawner\.\w+$/)
    await waitFor('the directory removed', () => !readdirSync(own).includes(child.stdout), 5000)
  })
})

describe('the spawner and signals to the whole process group', () => {
  it('a Ctrl-C or SIGTERM to the group of the pk that used it (a watcher in a terminal) leaves no directory behind', async () => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      const own = mkdtempSync(join(dir, 'tmp-'))
      const script = `import(${JSON.stringify(join(ROOT, 'dist/lib/exec/spawner.js'))}).then(async ({Spawner}) => {
  const s = new Spawner(process.env)
  await s.run(['true'], 5000)
  process.stdout.write('ready\\n')
  setInterval(() => {}, 1000)
})`
      const child = spawn(process.execPath, ['-e', script], {env: {...process.env, TMPDIR: own}, stdio: ['ignore', 'pipe', 'ignore'], detached: true})
      await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
      expect(readdirSync(own).filter((n) => n.startsWith('pk-spawner.'))).toHaveLength(1)
      process.kill(-child.pid!, signal)
      await waitFor(`the directory removed after ${signal}`, () => readdirSync(own).length === 0, 5000)
    }
  })
})

describe('which tmux calls go through it', () => {
  it('only reads, every command of a chain', () => {
    expect(onlyReads(['-S', '/s', 'list-panes', '-a', '-F', '#{pane_id}'])).toBe(true)
    expect(onlyReads(['-S', '/s', 'list-panes', '-a', ';', 'capture-pane', '-p', '-t', '%1'])).toBe(true)
    expect(onlyReads(['-S', '/s', 'list-panes', ';', 'send-keys', '-t', '%1', 'x'])).toBe(false)
    expect(onlyReads(['-S', '/s', 'display-message', 'hello'])).toBe(false)
    expect(onlyReads(['-S', '/s', 'kill-server'])).toBe(false)
    expect(onlyReads(['-S', '/s'])).toBe(false)
    // (a ';' inside an argument is escaped by tmuxArgv: only a word of its own separates commands)
    expect(onlyReads(['-S', '/s', 'capture-pane', '-t', 'a;', 'send-keys'])).toBe(true)
  })
})
