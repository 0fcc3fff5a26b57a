import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {blocking, gatherClaims, isPkArgv} from '../../../src/lib/doctor/claims.js'
import {processSource} from '../../../src/lib/proc/source.js'
import {stateLayout} from '../../../src/lib/registry/state-dir.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

describe('who claims the state lock and the writer', () => {
  it('a pk is node running pk', () => {
    expect(isPkArgv(['node', '/usr/lib/node_modules/pk-sessions/bin/run.js', 'bg'])).toBe(true)
    expect(isPkArgv(['/sbin/init', 'splash'])).toBe(false)
    expect(isPkArgv(null)).toBe(false)
  })

  it('judges each entry by the kernel: pid 1 alive is no pk; another namespace cannot be told; a dead one is harmless', () => {
    const root = mkdtempSync(join(tmpdir(), 'pk-claims-'))
    dirs.push(root)
    const state = stateLayout(root)
    mkdirSync(join(root, 'registry.lock'))
    const measured = processSource().measureView()
    if (!measured.ok) throw new Error(measured.reason)
    const {bootId, pidNs} = measured.view
    const init = processSource().stat(1)!
    const names = {
      init: `H_${bootId}_${pidNs}_1_${init.startTime}_aa`,
      foreign: `H_${bootId}_4026599999_7_123_bb`,
      dead: `W_${bootId}_${pidNs}_999999_1_cc`,
      me: `H_${bootId}_${pidNs}_${process.pid}_${processSource().stat(process.pid)!.startTime}_dd`,
    }
    for (const name of Object.values(names)) writeFileSync(join(root, 'registry.lock', name), '')
    writeFileSync(join(root, 'writer'), `1 ${init.startTime}\n`)
    const claims = gatherClaims(state, measured.view)
    const judged = Object.fromEntries(claims.lock.map((c) => [c.name, c.judged]))
    expect(judged[names.init]).toBe('not-pk')
    expect(judged[names.foreign]).toBe('unknown')
    expect(judged[names.dead]).toBe('dead')
    // (this test's own process is node running vitest, no pk: it is judged by its argv as any would be)
    expect(['alive', 'not-pk']).toContain(judged[names.me])
    expect(claims.writer).toMatchObject({kind: 'file', pid: 1, judged: 'not-pk'})
    expect(blocking(claims).lock.map((c) => c.name)).toEqual(expect.arrayContaining([names.init, names.foreign]))
    expect(blocking(claims).writer).toMatchObject({pid: 1})
  })
})
