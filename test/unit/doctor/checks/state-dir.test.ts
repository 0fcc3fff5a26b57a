import {chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {stateDirCheck} from '../../../../src/lib/doctor/checks/state-dir.js'
import {StoredRecord} from '../../../../src/lib/registry/records.js'
import {judgeStateDir} from '../../../../src/lib/registry/state-dir.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'
import {sampleRecord} from '../../../helpers/fixtures.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pk-doctor-state-'))
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

const sound = {path: '/st', exists: true, verdict: {ok: true as const}, sessionsVerdict: {ok: true as const}, inner: []}
const base = {state: sound, records: [] as StoredRecord[], recordProblems: [], conflicts: [], earlierBoot: [] as StoredRecord[], restorable: 0, paneless: []}

describe('the state-dir check', () => {
  it('passes for none yet and for sound records', () => {
    expect(stateDirCheck.judge(doctorFacts({...base, state: {...sound, exists: false}})).status).toBe('pass')
    expect(stateDirCheck.judge(doctorFacts({...base, records: [{file: 'a.json', record: sampleRecord()}]}))).toMatchObject({
      status: 'pass',
      message: '1 record(s) in /st',
    })
  })
  it('warns with the one command that helps: stop what outlived its server, restore, or prune', () => {
    const old = [{file: 'o.json', record: sampleRecord()}]
    expect(stateDirCheck.judge(doctorFacts({...base, earlierBoot: old}))).toMatchObject({status: 'warn', fix: 'pk prune'})
    expect(stateDirCheck.judge(doctorFacts({...base, earlierBoot: old, restorable: 1}))).toMatchObject({status: 'warn', fix: 'pk restore'})
    expect(stateDirCheck.judge(doctorFacts({...base, paneless: [{id: 'abc1234', pid: 9, agent: 'pi'}]}))).toMatchObject({
      status: 'warn',
      fix: 'pk stop abc1234',
      message: expect.stringMatching(/abc1234 \(pi, pid 9\)/),
    })
    expect(
      stateDirCheck.judge(doctorFacts({...base, recordProblems: [{code: 'unknown-version', message: 'm', file: '/st/sessions/n.json', newer: true}]})),
    ).toMatchObject({status: 'warn', message: expect.stringMatching(/n\.json \(upgrade pk/)})
  })
  it('fails on unsafe directories, unreadable records and conflicts; never offers to guess a conflict', () => {
    const loose = judgeStateDir('/st', {isSymbolicLink: () => false, isDirectory: () => true, uid: process.getuid!(), mode: 0o40777}, process.getuid!())
    expect(stateDirCheck.judge(doctorFacts({...base, state: {...sound, verdict: loose}}))).toMatchObject({status: 'fail', fixable: true})
    const conflict = stateDirCheck.judge(doctorFacts({...base, conflicts: [{code: 'conflict', message: 'a.json and b.json claim the same process (pid 4)'}]}))
    expect(conflict).toMatchObject({status: 'fail', fixable: false, fix: 'conflicts: remove the record that is wrong by hand (pk never guesses)'})
  })
  it('--fix tightens a loose directory and moves unreadable records to quarantine/, deleting nothing', async () => {
    const root = join(dir, 'state')
    mkdirSync(join(root, 'sessions'), {recursive: true})
    chmodSync(root, 0o777)
    writeFileSync(join(root, 'sessions', 'bad.json'), '{not json')
    const verdict = judgeStateDir(root, lstatSync(root), process.getuid!())
    const facts = doctorFacts({
      ...base,
      state: {path: root, exists: true, verdict, sessionsVerdict: {ok: true}, inner: []},
      recordProblems: [{code: 'corrupt-record', message: 'm', file: join(root, 'sessions', 'bad.json')}],
    })
    const done = await stateDirCheck.fix!(facts)
    expect(done[0]).toBe(`chmod 700 ${root}`)
    expect(statSync(root).mode & 0o777).toBe(0o700)
    expect(existsSync(join(root, 'sessions', 'bad.json'))).toBe(false)
    expect(readdirSync(join(root, 'quarantine'))).toEqual([expect.stringMatching(/-bad\.json$/)])
  })
})
