import {spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {stateLockCheck} from '../../../../src/lib/doctor/checks/state-lock.js'
import {LockClaim, WriterClaim} from '../../../../src/lib/doctor/claims.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'

const claim = (over: Partial<LockClaim>): LockClaim => ({
  name: 'H_b_4026531836_1_1_aa',
  kind: 'H',
  pid: 1,
  pidNs: '4026531836',
  judged: 'alive',
  command: 'node /x/bin/run.js bg',
  ...over,
})
const none: WriterClaim = {kind: 'none', pid: null, judged: null, command: null}
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

describe('the state-lock check', () => {
  it('passes with the lock free, or held by a live pk', () => {
    expect(stateLockCheck.judge(doctorFacts({claims: {lock: [], writer: none}}))).toMatchObject({status: 'pass', message: 'the state lock is free'})
    expect(stateLockCheck.judge(doctorFacts({claims: {lock: [claim({pid: 42})], writer: none}})).message).toBe('the state lock is held by pk pid 42 (alive)')
  })

  it("names an entry that never dies: another namespace's, a live process that is no pk; and a writer's name that is not pk's", () => {
    const result = stateLockCheck.judge(
      doctorFacts({
        claims: {
          lock: [claim({judged: 'unknown', pid: 7, pidNs: '4026532999'}), claim({judged: 'not-pk', command: '/sbin/init'})],
          writer: {kind: 'fifo', pid: null, judged: null, command: null},
        },
      }),
    )
    expect(result.status).toBe('fail')
    expect(result.message).toMatch(/claims pid 7 of another pid namespace \(4026532999\); pk cannot tell from here whether it is alive/)
    expect(result.message).toMatch(/names pid 1, alive but no pk \(\/sbin\/init\)/)
    expect(result.message).toMatch(/writer is a FIFO, never what pk makes there/)
    expect(result.fix).toMatch(/only once you confirm/)
    expect(result.fixable).toBe(true)
  })

  it("--fix removes what is no pk's at once, another namespace's entry only with the person's yes, and moves a directory aside", async () => {
    const root = mkdtempSync(join(tmpdir(), 'pk-lock-'))
    dirs.push(root)
    mkdirSync(join(root, 'registry.lock'))
    const foreign = claim({name: 'H_b_4026532999_7_1_aa', judged: 'unknown', pid: 7})
    const notPk = claim({name: 'H_b_4026531836_1_1_bb', judged: 'not-pk'})
    for (const c of [foreign, notPk]) writeFileSync(join(root, 'registry.lock', c.name), '')
    mkdirSync(join(root, 'writer'))
    const facts = doctorFacts({
      state: {path: root, exists: true, verdict: null, sessionsVerdict: null},
      claims: {lock: [foreign, notPk], writer: {kind: 'directory', pid: null, judged: null, command: null}},
    })
    const without = await stateLockCheck.fix!(facts)
    expect(readdirSync(join(root, 'registry.lock'))).toEqual([foreign.name])
    expect(without.join('\n')).toMatch(/left registry.lock\/H_b_4026532999_7_1_aa/)
    expect(existsSync(join(root, 'writer'))).toBe(false)
    expect(readdirSync(join(root, 'quarantine'))).toEqual([expect.stringMatching(/-writer$/)])
    const asked: string[] = []
    await stateLockCheck.fix!({...facts, claims: {lock: [foreign], writer: none}}, {confirm: async (q) => (asked.push(q), true)})
    expect(asked).toEqual([expect.stringMatching(/claims pid 7 of pid namespace 4026531836|claims pid 7 of pid namespace/)])
    expect(readdirSync(join(root, 'registry.lock'))).toEqual([])
  })

  it("--fix removes a FIFO at the writer's name", async () => {
    const root = mkdtempSync(join(tmpdir(), 'pk-lock-'))
    dirs.push(root)
    spawnSync('mkfifo', [join(root, 'writer')])
    expect(existsSync(join(root, 'writer'))).toBe(true)
    await stateLockCheck.fix!(
      doctorFacts({
        state: {path: root, exists: true, verdict: null, sessionsVerdict: null},
        claims: {lock: [], writer: {kind: 'fifo', pid: null, judged: null, command: null}},
      }),
    )
    expect(existsSync(join(root, 'writer'))).toBe(false)
  })
})
