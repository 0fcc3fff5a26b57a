import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {PK_BIN, Sandbox, waitFor} from '../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe('pk ls spawns one tmux per server, plus one capture call per server with agent panes', () => {
  it('counts tmux invocations through a shim, whatever the number of sessions', async () => {
    const bin = join(sb.root, 'agents')
    const shim = join(sb.root, 'shim')
    const {mkdirSync, readFileSync} = await import('node:fs')
    mkdirSync(bin)
    mkdirSync(shim)
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\nprintf "esc to interrupt\\n"\nwhile :; do sleep 1000; done\n', {mode: 0o755})
    for (const socket of [sb.pkSocket, sb.socket('other')]) {
      for (let i = 0; i < 3; i++) sb.tmux(socket, 'new-session', '-d', '--', 'sh', join(bin, 'claude'))
      sb.tmux(socket, 'new-session', '-d', '--', 'sleep', '1000')
    }
    const {execFileSync} = await import('node:child_process')
    const real = execFileSync('sh', ['-c', 'command -v tmux'], {encoding: 'utf8'}).trim()
    const log = join(sb.root, 'tmux-calls')
    writeFileSync(join(shim, 'tmux'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, {mode: 0o755})
    const rows = await waitFor(
      'agents seen working',
      async () => {
        writeFileSync(log, '')
        const result = await sb.pk(['ls', '--json'], {env: {PATH: `${shim}:${process.env.PATH}`}})
        const sessions = JSON.parse(result.stdout).sessions as {state: string; stateSource: string}[]
        return sessions.length === 6 && sessions.every((s) => s.state === 'working' && s.stateSource === 'pane') ? sessions : null
      },
      10_000,
    )
    expect(rows).toHaveLength(6)
    const calls = readFileSync(log, 'utf8').trim().split('\n')
    expect(calls.filter((c) => c.includes('list-panes'))).toHaveLength(2)
    expect(calls.filter((c) => c.includes('capture-pane'))).toHaveLength(2)
    expect(calls).toHaveLength(4)
  })

  it('a verb acting on one session looks once (a look begun a moment ago is its verification), on both paths', async () => {
    const live = await sb.bgRow(['--', 'sh', '-c', 'echo hello; exec sleep 1000'])
    const ended = await sb.bgRow(['--', 'sleep', '1001'])
    expect((await sb.pk(['stop', ended.id])).code).toBe(0)
    const {execFileSync} = await import('node:child_process')
    const {mkdirSync, readFileSync} = await import('node:fs')
    const real = execFileSync('sh', ['-c', 'command -v tmux'], {encoding: 'utf8'}).trim()
    const shim = join(sb.root, 'shim')
    mkdirSync(shim)
    const log = join(sb.root, 'tmux-calls')
    writeFileSync(join(shim, 'tmux'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, {mode: 0o755})
    const env = {PATH: `${shim}:${process.env.PATH}`}
    const listPanes = () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((c) => c.includes('list-panes')).length
    // Until tmux has reaped the stopped one's process: before that, a look nudges the server and looks again.
    await waitFor('the stopped session settled', async () => {
      writeFileSync(log, '')
      await sb.pk(['ls', '--all'], {env})
      return listPanes() === 1 || null
    })
    for (const fast of [true, false]) {
      for (const args of [
        ['attach', live.id, '--print'],
        ['stop', ended.id],
        ['logs', live.id, '--lines', '1'],
        ['wait', ended.id, '--for', 'exited'],
      ]) {
        writeFileSync(log, '')
        const result = await sb.pk(args, {env: {...env, ...(fast ? {} : {PK_FAST_PATH: '0'})}})
        expect({args, fast, code: result.code}).toEqual({args, fast, code: 0})
        expect({args, fast, looks: listPanes()}).toEqual({args, fast, looks: 1})
      }
    }
  })
})

describe('the fast path', () => {
  it('prints exactly what the oclif command prints, for every combination of the flags both serve', async () => {
    sb.tmux(sb.pkSocket, 'new-session', '-d', '--', 'sleep', '1000')
    await sb.pk(['bg', '--', 'sleep', '1001'])
    writeFileSync(join(sb.stateDir, 'sessions', 'broken.json'), '{')
    const choices = [[], ['--json'], ['--all'], ['--format', 'short'], ['--format', 'table'], ['--color']]
    const combos: string[][] = [[]]
    for (const choice of choices.slice(1)) for (const combo of [...combos]) combos.push([...combo, ...choice])
    // Ages can tick between the two runs; everything else must be the same.
    const steady = (text: string) => text.replaceAll(/ \d+[smhd] +/g, ' AGE ').replaceAll(/AGE +/g, 'AGE ')
    const compare = async (args: string[]) => {
      const fast = await sb.pk(['ls', ...args])
      // --interval is a flag the fast path does not know, so this argv goes through oclif.
      const viaOclif = await sb.pk(['ls', ...args, '--interval', '1'])
      expect({args, code: fast.code, stdout: steady(fast.stdout), stderr: fast.stderr}).toEqual({
        args,
        code: viaOclif.code,
        stdout: steady(viaOclif.stdout),
        stderr: viaOclif.stderr,
      })
    }
    // 64 runs: four combinations at a time (one after another they passed two minutes on a loaded machine).
    for (let i = 0; i < combos.length; i += 4) await Promise.all(combos.slice(i, i + 4).map(compare))
  }, 240_000)

  it('prints exactly what the oclif command prints', async () => {
    sb.tmux(sb.pkSocket, 'new-session', '-d', '--', 'sleep', '1000')
    await sb.pk(['bg', '--', 'sleep', '1001'])
    const fast = await sb.pk(['ls', '--all', '--json'])
    // --interval is a flag the fast path does not know, so this argv goes through oclif.
    const viaOclif = await sb.pk(['ls', '--all', '--json', '--interval', '1'])
    expect(fast.code).toBe(0)
    expect(fast.stdout).toBe(viaOclif.stdout)
    expect((await sb.pk(['--version'])).stdout).toMatch(/^pk-sessions\/\d+\.\d+\.\d+ linux-\w+ node-v\d+/)
    // -v and -h are what people type (they used to be answered "Did you mean: pk bg?")
    expect((await sb.pk(['-v'])).stdout).toMatch(/^pk-sessions\//)
    expect((await sb.pk(['-h'])).stdout).toMatch(/USAGE/)
    expect((await sb.pk(['ls', '--nope'])).code).toBe(2)
  })
})

describe('scripts never see a stack trace', () => {
  it('output into a closed pipe ends quietly, exit 0, for ls (fast path and oclif) and the watch stream', async () => {
    for (let i = 0; i < 30; i += 5) await Promise.all([0, 1, 2, 3, 4].map((j) => sb.pk(['bg', '--name', `s${i + j}`, '--', 'sleep', '1000'])))
    const {spawnSync} = await import('node:child_process')
    for (const args of [
      ['ls', '--json'],
      ['ls', '--json', '--interval', '1'],
      ['doctor', '--json'],
    ]) {
      const result = spawnSync('bash', ['-c', `set -o pipefail; "$NODE" "$PK" ${args.join(' ')} | true; echo "rc=$?"`], {
        env: {...sb.env, NODE: process.execPath, PK: PK_BIN},
        encoding: 'utf8',
        timeout: 60_000,
      })
      expect(result.stderr, args.join(' ')).toBe('')
      expect(result.stdout.trim(), args.join(' ')).toMatch(/^rc=(0|141)$/)
    }
  }, 240_000)

  it('refuses flag combinations that mean nothing, on both paths (exit 2)', async () => {
    for (const args of [['--color'], ['--format', 'short', '--json'], ['--color', '--format', 'table']]) {
      for (const extra of [[], ['--interval', '1']]) {
        const result = await sb.pk(['ls', ...args, ...extra])
        expect(result.code, [...args, ...extra].join(' ')).toBe(2)
        expect(result.stderr).toMatch(/--color goes with --format short|two different outputs/)
      }
    }
  })

  it('pk hook with no arguments, or a bad flag, still exits 0 (it runs inside the agent) and logs why', async () => {
    await sb.pk(['bg', '--', 'sleep', '1000'])
    expect((await sb.pk(['hook'])).code).toBe(0)
    expect((await sb.pk(['hook', 'claude', '--no-such-flag'], {input: '{}'})).code).toBe(0)
    const {readFileSync} = await import('node:fs')
    expect(readFileSync(join(sb.stateDir, 'hook.log'), 'utf8')).toMatch(/without the agent name[\s\S]*no-such-flag/)
  })

  it('pk prune --json always has dryRun', async () => {
    expect(JSON.parse((await sb.pk(['prune', '--yes', '--json'])).stdout)).toMatchObject({dryRun: false})
    expect(JSON.parse((await sb.pk(['prune', '--dry-run', '--json'])).stdout)).toMatchObject({dryRun: true})
  })
})

describe('what a reader loads', () => {
  it('pk ls and pk attach --print never load node:crypto (3 ms of every start); pk bg does, for its random names', async () => {
    const live = await sb.bgRow(['--', 'sleep', '1000'])
    const probe = join(sb.root, 'crypto-probe.cjs')
    writeFileSync(probe, "process.on('exit', () => { if (process.moduleLoadList.includes('NativeModule crypto')) process.stderr.write('[crypto]') })\n")
    const env = {NODE_OPTIONS: `--require ${probe}`}
    for (const args of [['ls', '--json'], ['ls'], ['attach', live.id, '--print'], ['logs', live.id], ['wait', live.id, '--for', 'exited', '--timeout', '0']])
      expect({args, crypto: (await sb.pk(args, {env})).stderr.includes('[crypto]')}).toEqual({args, crypto: false})
    // (the probe works: a writer that names temporary files loads it)
    expect((await sb.pk(['bg', '--', 'sleep', '1001'], {env})).stderr).toContain('[crypto]')
  })
})

describe('pk attach on the fast path', () => {
  it('prints and fails exactly as the oclif command does, without loading oclif; anything else goes to oclif', async () => {
    const live = await sb.bgRow(['--', 'sleep', '1000'])
    const ended = await sb.bgRow(['--', 'sleep', '1001'])
    expect((await sb.pk(['stop', ended.id])).code).toBe(0)
    // Whether this run loaded oclif: a module node loaded, seen at exit.
    const probe = join(sb.root, 'probe.cjs')
    writeFileSync(
      probe,
      "process.on('exit', () => { if (Object.keys(require('node:module')._cache).some((k) => k.includes('@oclif/core'))) process.stderr.write('[oclif]') })\n",
    )
    const env = {NODE_OPTIONS: `--require ${probe}`}
    const ids = [live.id, live.id.slice(0, 3).toUpperCase(), ended.id, 'ffffffff', live.id[0]!]
    for (const id of ids) {
      const fast = await sb.pk(['attach', id, '--print'], {env})
      // `--` is a word the fast path does not take: this argv goes through oclif.
      const viaOclif = await sb.pk(['attach', '--print', '--', id], {env})
      expect(fast.stderr).not.toContain('[oclif]')
      expect(viaOclif.stderr).toContain('[oclif]')
      expect({id, code: fast.code, stdout: fast.stdout, stderr: fast.stderr}).toEqual({
        id,
        code: viaOclif.code,
        stdout: viaOclif.stdout,
        stderr: viaOclif.stderr.replace('[oclif]', ''),
      })
    }
    expect((await sb.pk(['attach', live.id, '--print'])).stdout).toMatch(new RegExp(`attach-session -t ${live.tmux!.pane}`))
    for (const other of [
      ['attach', 'zz', '--print'],
      ['attach', '--help'],
      ['attach', 'box/ab12', '--print'],
      ['attach', live.id, '--print', 'extra'],
    ]) {
      expect((await sb.pk(other, {env})).stderr, other.join(' ')).toContain('[oclif]')
    }
  })
})

describe('stop, logs, usage, wait, send, doctor, prune, notify, bg and resume on the fast path', () => {
  /** Two sessions to point at (one talking, one stopped), and a run of pk that notes whether oclif loaded. */
  async function world() {
    const probe = join(sb.root, 'probe.cjs')
    writeFileSync(
      probe,
      "process.on('exit', () => { if (Object.keys(require('node:module')._cache).some((k) => k.includes('@oclif/core'))) process.stderr.write('[oclif]') })\n",
    )
    const talker = await sb.bgRow(['--', 'sh', '-c', 'printf "one\\ntwo\\nthree\\n"; exec sleep 1000'])
    const ended = await sb.bgRow(['--', 'sleep', '1001'])
    expect((await sb.pk(['stop', ended.id])).code).toBe(0)
    await waitFor('the output', async () => (await sb.pk(['logs', talker.id])).stdout.includes('three') || null)
    const run = (args: string[], fast: boolean) => sb.pk(args, {env: {NODE_OPTIONS: `--require ${probe}`, ...(fast ? {} : {PK_FAST_PATH: '0'})}})
    /** Each argv prints, fails and exits on the fast path as through oclif, and never loads oclif there. */
    const same = async (cases: string[][]) => {
      for (const args of cases) {
        const [fast, viaOclif] = [await run(args, true), await run(args, false)]
        expect({args, oclif: fast.stderr.includes('[oclif]')}).toEqual({args, oclif: false})
        expect({args, code: fast.code, stdout: fast.stdout, stderr: fast.stderr}).toEqual({
          args,
          code: viaOclif.code,
          stdout: viaOclif.stdout,
          stderr: viaOclif.stderr.replace('[oclif]', ''),
        })
      }
    }
    /** Each argv goes to oclif. */
    const toOclif = async (cases: string[][]) => {
      for (const args of cases) expect({args, oclif: (await run(args, true)).stderr.includes('[oclif]')}).toEqual({args, oclif: true})
    }
    return {talker, ended, run, same, toOclif}
  }

  // (each runs pk twice per form, once through oclif: beside a CPU hog that took over two minutes for all)
  it('stop, logs, usage and wait print, fail and exit exactly as through oclif (PK_FAST_PATH=0), without loading oclif; unusual forms go to oclif', async () => {
    const {talker, ended, run, same, toOclif} = await world()
    await same([
      ['logs', talker.id, '-n', '2'],
      ['logs', talker.id, '--lines=1', '--json'],
      ['logs', ended.id, '--json'],
      ['logs', 'ffffffff'],
      ['usage', '--json'],
      ['usage', '--by', 'agent'],
      ['usage', talker.id, '--json'],
      ['usage', '--since', 'someday'],
      ['wait', ended.id, '--for', 'exited'],
      ['wait', ended.id, talker.id, '--for', 'exited', '--any'],
      ['wait', talker.id, '--for', 'idle', '--timeout', '0'],
      ['wait', 'ffffffff', '--timeout', '1'],
      ['stop', ended.id],
      ['stop', 'ffffffff', '--json'],
      ['stop', ended.id, 'ffffffff', '--timeout', '0'],
    ])
    // Stopping a live session: the same words either way (its id and how long it took aside).
    const [a, b] = [await sb.bgRow(['--', 'sleep', '1002']), await sb.bgRow(['--', 'sleep', '1003'])]
    const [fast, viaOclif] = [await run(['stop', a.id, '--json'], true), await run(['stop', b.id, '--json'], false)]
    const shape = (text: string, id: string) => text.replaceAll(id, 'ID').replaceAll(/"seconds": ?[0-9.]+/g, '"seconds": X')
    expect(shape(fast.stdout, a.id)).toBe(shape(viaOclif.stdout, b.id))
    expect([fast.code, viaOclif.code]).toEqual([0, 0])
    await toOclif([
      ['logs', talker.id, '-n', '0'],
      ['wait', talker.id, '--all', '--any'],
      ['stop', talker.id, '--timeout', '-1'],
      ['usage', '--by', 'week'],
      ['logs', '--help'],
    ])
  }, 300_000)

  it('send, doctor, prune and notify print, fail and exit exactly as through oclif, without loading oclif; hosts and unusual forms go to oclif', async () => {
    const {talker, ended, same, toOclif} = await world()
    await same([
      ['send', 'ffffffff', 'x'],
      ['send', ended.id, 'x', '--json'],
      ['send', talker.id, '--no-enter', 'typed', '--json'],
      ['send', talker.id],
      ['send', talker.id, 'x', '--enter-only'],
      ['doctor', '--json'],
      ['doctor'],
      ['prune', '--dry-run', '--json'],
      ['prune', '--dry-run', '--include-resumable'],
      ['prune'],
      ['notify', '--json'],
      ['notify', '--test', '--json'],
      ['notify', '--fold', '--check', 'ffffffff', '--json'],
    ])
    await toOclif([
      ['send', talker.id, '--', '-x'],
      ['send', talker.id, '--no-json', 'x'],
      ['doctor', '--json', '--host', 'nowhere'],
      ['doctor', '--fleet'],
    ])
  }, 300_000)

  it('bg and resume start, fail and exit as through oclif, without loading oclif; --handoff, --worktree and stray words go to oclif', async () => {
    const {ended, run, same, toOclif} = await world()
    await same([
      ['bg', 'nosuchagent'],
      ['bg', '--cwd', join(sb.root, 'nowhere'), '--', 'sleep', '1'],
      ['resume', 'ffffffff'],
      ['resume', ended.id, '--json'],
    ])
    // A session started either way: the same words (its id and times aside), and the command as given.
    const [fast, viaOclif] = [
      await run(['bg', '--json', '--name', 'a b', '--', 'sh', '-c', 'exec sleep 1004', 'x y'], true),
      await run(['bg', '--json', '--name', 'a b', '--', 'sh', '-c', 'exec sleep 1004', 'x y'], false),
    ]
    expect([fast.code, viaOclif.code, fast.stderr]).toEqual([0, 0, ''])
    const [mine, theirs] = [JSON.parse(fast.stdout).session, JSON.parse(viaOclif.stdout).session]
    expect(mine.command).toEqual(['sh', '-c', 'exec sleep 1004', 'x y'])
    const shape = (row: Record<string, unknown>) => ({...row, id: 'ID', pid: 0, startedAt: 'T', tmux: 'T', record: 'R'})
    expect(shape(mine)).toEqual(shape(theirs))
    const plain = await run(['bg', '--', 'sleep', '1005'], true)
    expect([plain.code, plain.stderr, /^[0-9a-f]{8}\n$/.test(plain.stdout)]).toEqual([0, '', true])
    await toOclif([
      ['bg', '--handoff'],
      ['bg', '--worktree', '--', 'sleep', '1'],
      ['bg', 'claude', 'extra'],
      ['resume', '--help'],
    ])
  }, 300_000)
})

describe("the fast path's code cache", () => {
  it('is made by the build, accepted by this node, and never needed: a stale or damaged one falls back to a plain load', async () => {
    const {cpSync, readFileSync, symlinkSync} = await import('node:fs')
    const {execFileSync} = await import('node:child_process')
    const {dirname} = await import('node:path')
    const repo = dirname(dirname(PK_BIN))
    const cacheFile = join(repo, 'dist', 'fast-path.cjs.cache')
    const accepted = execFileSync(
      process.execPath,
      [
        '-e',
        `
      const vm = require('node:vm'), fs = require('node:fs'), Module = require('node:module')
      const file = ${JSON.stringify(join(repo, 'dist', 'fast-path.cjs'))}
      const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), {filename: file, cachedData: fs.readFileSync(file + '.cache').subarray(56)})
      process.stdout.write(String(!script.cachedDataRejected))`,
      ],
      {encoding: 'utf8'},
    )
    expect(accepted).toBe('true')
    // The built bundle is known by one stat: its size, inode and mtime, as the cache recorded them.
    const {statSync: stat} = await import('node:fs')
    const built = stat(join(repo, 'dist', 'fast-path.cjs'))
    const header = readFileSync(cacheFile)
    expect([header.readDoubleLE(32), header.readDoubleLE(40), header.readDoubleLE(48)]).toEqual([built.size, built.ino, built.mtimeMs])
    // Code compiled from a cache has no loader for import(): the bundle must load its packages with require.
    expect(readFileSync(join(repo, 'dist', 'fast-path.cjs'), 'utf8')).not.toMatch(/\bimport\(/)
    // pk mcp's SDK (and its zod) is loaded by pk mcp alone: nothing of it in what pk ls and the hook load.
    expect(readFileSync(join(repo, 'dist', 'fast-path.cjs'), 'utf8')).not.toMatch(/@modelcontextprotocol|lib\/mcp\/|require\("zod"\)/)

    sb.tmux(sb.pkSocket, 'new-session', '-d', '--', 'sleep', '1000')
    const expected = (await sb.pk(['ls', '--json', '--all'])).stdout
    // A copy of the installed files, whose cache is then spoiled in each way in turn.
    const copy = join(sb.root, 'copy')
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(repo, part), join(copy, part), {recursive: true})
    symlinkSync(join(repo, 'node_modules'), join(copy, 'node_modules'))
    const original = readFileSync(cacheFile)
    const {statSync} = await import('node:fs')
    const copied = statSync(join(copy, 'dist', 'fast-path.cjs'))
    const facts = Buffer.alloc(24)
    facts.writeDoubleLE(copied.size, 0)
    facts.writeDoubleLE(copied.ino, 8)
    facts.writeDoubleLE(copied.mtimeMs, 16)
    const spoiled = {
      'made from another bundle': Buffer.concat([Buffer.alloc(32), original.subarray(32)]),
      'not a V8 cache at all': Buffer.concat([original.subarray(0, 56), Buffer.from('garbage'.repeat(100))]),
      'not a V8 cache, though size, inode and mtime are the bundle’s': Buffer.concat([Buffer.alloc(32), facts, Buffer.from('garbage'.repeat(100))]),
      'cut short': original.subarray(0, 40),
    }
    for (const [how, bytes] of Object.entries(spoiled)) {
      writeFileSync(join(copy, 'dist', 'fast-path.cjs.cache'), bytes)
      const result = await sb.pk(['ls', '--json', '--all'], {bin: join(copy, 'bin', 'run.js')})
      expect({how, code: result.code, stderr: result.stderr, stdout: result.stdout}).toEqual({how, code: 0, stderr: '', stdout: expected})
    }
  })
})
