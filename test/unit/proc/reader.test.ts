import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {
  pipeHasReader,
  readSmallFile,
  readBootId,
  readBootTime,
  readChildren,
  readCmdline,
  readCwd,
  readExe,
  readPidNamespace,
  readStat,
  startTimeToDate,
} from '../../../src/lib/proc/reader.js'
import {ROOT} from '../../helpers/sandbox.js'

describe('reading /proc (the real one)', () => {
  it('reads /proc after a file of megabytes (a big spool event) grew its buffer: the kernel is never asked for megabytes at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pk-read-'))
    try {
      const big = join(dir, 'big')
      writeFileSync(big, 'x'.repeat(6 * 1024 * 1024))
      expect(readSmallFile(big, undefined, 8 * 1024 * 1024)).toHaveLength(6 * 1024 * 1024)
      // It failed with ENOMEM here: an 8 MB read() of /proc/PID/cmdline.
      expect(readCmdline(process.pid)).toEqual(process.argv.length > 0 ? expect.any(Array) : null)
      expect(readStat(process.pid)).toMatchObject({pid: process.pid})
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
  it('reads this process: its stat, argv, cwd, executable and namespace', () => {
    const stat = readStat(process.pid)!
    expect(stat).toMatchObject({pid: process.pid, ppid: process.ppid})
    expect(readCwd(process.pid)).toBe(process.cwd())
    expect(readExe(process.pid)).toBe(process.execPath)
    expect(readPidNamespace('self')).toMatch(/^\d+$/)
    expect(readBootId()).toMatch(/^[0-9a-f-]{36}$/)
  })
  it("dates a process's start by the boot time, within the clock's tick", () => {
    const started = startTimeToDate(readStat(process.pid)!.startTime)!
    expect(readBootTime()).toBeLessThan(Date.now() / 1000)
    expect(started.getTime()).toBeLessThanOrEqual(Date.now())
    expect(started.getTime()).toBeGreaterThan(Date.now() - 24 * 3600_000 * 365)
  })
  it('finds children, and answers null (never throws) for a process that is gone', async () => {
    const child = spawn('sleep', ['30'])
    try {
      expect(readChildren(process.pid)).toContain(child.pid)
      expect(readCmdline(child.pid!)).toEqual(['sleep', '30'])
    } finally {
      child.kill()
    }
    await new Promise((resolve) => child.on('exit', resolve))
    for (const read of [readStat, readCmdline, readCwd, readExe]) expect(read(child.pid!)).toBeNull()
    expect(readChildren(child.pid!)).toEqual([])
  })
  it('says whether a pipe on stdout still has a reader, and null for what is not a pipe', async () => {
    // The built module (npm test builds first): a child asks about its own stdout.
    const probe = `import(${JSON.stringify(join(ROOT, 'dist', 'lib', 'proc', 'reader.js'))}).then((m) => process.stderr.write(String(m.pipeHasReader(1))))`
    // A shell's pipe to cat (node's own 'pipe' stdio is a socket pair, not a pipe).
    const run = (stdout: 'pipe' | 'ignore') =>
      new Promise<string>((resolve) => {
        const node = `${JSON.stringify(process.execPath)} -e ${JSON.stringify(probe).replaceAll('$', '\\$')}`
        const child = spawn('sh', ['-c', stdout === 'pipe' ? `${node} | cat` : node], {stdio: ['ignore', 'ignore', 'pipe']})
        let err = ''
        child.stderr!.on('data', (d) => (err += d))
        child.on('exit', () => resolve(err))
      })
    expect(await run('pipe')).toBe('true')
    expect(await run('ignore')).toBe('null')
    expect(pipeHasReader(99)).toBeNull()
  })
})
