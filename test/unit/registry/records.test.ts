import {existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {ProcessIdentity, identityKey, sessionIdOf} from '../../../src/lib/proc/identity.js'
import {sha256Hex} from '../../../src/lib/model/sha256.js'
import {parseRecordText, readRecords, recordIndexPath, refreshRecordIndex, validateRecord} from '../../../src/lib/registry/records.js'
import {waitFor} from '../../helpers/sandbox.js'
import {sampleRecord} from '../../helpers/fixtures.js'
import {StateDir, judgeStateDir, resolveStateDir} from '../../../src/lib/registry/state-dir.js'

describe('record validation', () => {
  it('accepts a well-formed record', () => {
    expect(validateRecord(sampleRecord())).toEqual({ok: true, record: sampleRecord()})
  })

  it.each([
    ['identity.pid', {identity: {...sampleRecord().identity, pid: -1}}],
    ['identity.pid', {identity: {...sampleRecord().identity, pid: '10'}}],
    ['identity.startTime', {identity: {...sampleRecord().identity, startTime: 1.5}}],
    ['identity.pidNs', {identity: {...sampleRecord().identity, pidNs: 'pid:[1]'}}],
    ['tmux.paneId', {tmux: {...sampleRecord().tmux, paneId: 'main:0'}}],
    ['tmux.socket', {tmux: {...sampleRecord().tmux, socket: 'relative'}}],
    ['argv', {argv: ['ok', 3]}],
    ['createdAt', {createdAt: 'yesterday'}],
    ['label', {label: 5}],
  ])('names the bad field %s', (field, change) => {
    const verdict = validateRecord({...sampleRecord(), ...change})
    expect(verdict).toEqual({ok: false, code: 'invalid-record', reason: `field ${field} is missing or malformed`})
  })

  it('optional fields a file lacks read as null; present ones are checked too', () => {
    const older: Record<string, unknown> = {...sampleRecord()}
    delete older.conversationId
    delete older.status
    expect(validateRecord(older)).toMatchObject({ok: true, record: {conversationId: null, status: null}})
    expect(validateRecord({...sampleRecord(), resumedBy: 'nothex!!'})).toMatchObject({reason: 'field resumedBy is missing or malformed'})
    expect(validateRecord({...sampleRecord(), observed: {state: 'idle', since: 'soon', turnEnded: true}})).toMatchObject({
      reason: 'field observed.since is missing or malformed',
    })
    const noCwd: Record<string, unknown> = {...sampleRecord()}
    delete noCwd.cwd
    expect(validateRecord(noCwd)).toMatchObject({reason: 'field cwd is missing or malformed'})
  })

  it("keeps a limit report's words and the --no-continue choice as they were written (issue 64)", () => {
    const status = {
      state: 'limited',
      at: '2026-12-07T05:00:00.000Z',
      event: 'StopFailure:rate_limit',
      turnEnded: false,
      detail: "You've hit your 5-hour limit · resets 5:09am (UTC)",
    }
    const limited = {...sampleRecord(), status, continueAtReset: false}
    expect(validateRecord(limited)).toMatchObject({ok: true, record: {status, continueAtReset: false}})
  })

  it('reports an unknown version as such', () => {
    expect(validateRecord({...sampleRecord(), version: 2})).toMatchObject({ok: false, code: 'unknown-version'})
    expect(validateRecord([])).toMatchObject({ok: false, code: 'invalid-record'})
  })

  it('turns corrupt and truncated text into problems', () => {
    const text = JSON.stringify(sampleRecord())
    expect(parseRecordText('f.json', text.slice(0, text.length / 2))).toMatchObject({code: 'corrupt-record', file: 'f.json'})
    expect(parseRecordText('f.json', '')).toMatchObject({code: 'corrupt-record'})
    expect(parseRecordText('f.json', text)).toEqual({file: 'f.json', record: sampleRecord()})
  })
})

describe('state directory', () => {
  it('resolves PK_STATE_DIR, then XDG_STATE_HOME, then HOME', () => {
    expect(resolveStateDir({PK_STATE_DIR: '/s', XDG_STATE_HOME: '/x', HOME: '/h'})).toBe('/s')
    expect(resolveStateDir({XDG_STATE_HOME: '/x', HOME: '/h'})).toBe('/x/pk')
    expect(resolveStateDir({HOME: '/h'})).toBe('/h/.local/state/pk')
  })

  const dir = (over: Partial<{link: boolean; dir: boolean; uid: number; mode: number}> = {}) => ({
    isSymbolicLink: () => over.link ?? false,
    isDirectory: () => over.dir ?? true,
    uid: over.uid ?? 1000,
    mode: over.mode ?? 0o40700,
  })

  it('accepts 0700 and 0755 owned by the user', () => {
    expect(judgeStateDir('/s', dir(), 1000).ok).toBe(true)
    expect(judgeStateDir('/s', dir({mode: 0o40755}), 1000).ok).toBe(true)
  })

  it.each([
    ['a symlink', {link: true}, 'symlink', /symbolic link/],
    ['a file', {dir: false}, 'not-directory', /not a directory/],
    ['owned by someone else', {uid: 0}, 'foreign-owner', /owned by uid 0/],
    ['group-writable', {mode: 0o40770}, 'loose-mode', /chmod 700/],
    ['world-writable', {mode: 0o40777}, 'loose-mode', /mode 777/],
  ] as const)('refuses %s, saying how to fix it', (_, over, kind, message) => {
    const verdict = judgeStateDir('/s', dir(over), 1000)
    expect(verdict).toMatchObject({ok: false, kind, problem: expect.stringMatching(message)})
  })
})

describe('the record index', () => {
  const dirs: string[] = []
  afterAll(() => dirs.forEach((d) => rmSync(d, {recursive: true, force: true})))
  /** A state directory with `n` valid records, written now. */
  function stateWith(n: number): StateDir {
    const root = mkdtempSync(join(tmpdir(), 'pk-index-'))
    dirs.push(root)
    const state = {root, sessions: join(root, 'sessions')}
    mkdirSync(state.sessions, {mode: 0o700})
    for (let i = 0; i < n; i++) writeFileSync(join(state.sessions, `r${i}.json`), JSON.stringify({...sampleRecord(), label: `s${i}`}))
    return state
  }
  // The refresh's clock, well past the files' times: as if they had settled (SETTLED_MS) long ago.
  const later = () => Date.now() + 60_000
  const labels = (state: StateDir) => readRecords(state).records.map((r) => r.record.label)

  it('gives readers what the files say, from one read, and is written only by a refresh', () => {
    const state = stateWith(5)
    const plain = readRecords(state)
    expect(existsSync(recordIndexPath(state))).toBe(false)
    refreshRecordIndex(state, later())
    const index = JSON.parse(readFileSync(recordIndexPath(state), 'utf8'))
    expect(index.entries.map((e: {name: string}) => e.name)).toEqual(['r0.json', 'r1.json', 'r2.json', 'r3.json', 'r4.json'])
    expect(readRecords(state)).toEqual(plain)
    // A reader never writes it.
    const before = statSync(recordIndexPath(state)).mtimeMs
    readRecords(state)
    expect(statSync(recordIndexPath(state)).mtimeMs).toBe(before)
  })

  it('is never trusted where a file changed: in place, replaced, removed, made a link, corrupted', async () => {
    const state = stateWith(5)
    refreshRecordIndex(state, later())
    // In place, same size: the file's times move on (waited for, not slept).
    const r0 = join(state.sessions, 'r0.json')
    const old = statSync(r0)
    await waitFor('a timestamp tick', () => {
      writeFileSync(r0, JSON.stringify({...sampleRecord(), label: 'X0'}))
      return statSync(r0).ctimeMs !== old.ctimeMs || null
    })
    writeFileSync(join(state.sessions, 'r1.json.tmp'), JSON.stringify({...sampleRecord(), label: 'new1'}))
    renameSync(join(state.sessions, 'r1.json.tmp'), join(state.sessions, 'r1.json'))
    rmSync(join(state.sessions, 'r2.json'))
    rmSync(join(state.sessions, 'r3.json'))
    symlinkSync(r0, join(state.sessions, 'r3.json'))
    writeFileSync(join(state.sessions, 'r4.json'), '{"version": 1, "identity"')
    const scan = readRecords(state)
    expect(scan.records.map((r) => r.record.label)).toEqual(['X0', 'new1'])
    expect(scan.problems.map((p) => p.code).sort()).toEqual(['corrupt-record', 'symlinked-record'])
  })

  it('a damaged index, one of another directory, or one of another version is not used, and nothing is lost', () => {
    const state = stateWith(3)
    refreshRecordIndex(state, later())
    const good = readFileSync(recordIndexPath(state), 'utf8')
    const forged = JSON.parse(good)
    for (const entry of forged.entries as {record: {label: string}}[]) entry.record.label = 'forged'
    for (const text of [
      'garbage',
      good.slice(0, good.length / 2),
      JSON.stringify({...forged, sessions: 1}),
      JSON.stringify({...forged, version: 1}),
      JSON.stringify({...forged, version: 2}),
      JSON.stringify({...forged, version: 4}),
      JSON.stringify({...forged, entries: Object.fromEntries(forged.entries.map((e: {name: string}) => [e.name, e]))}),
      JSON.stringify({...forged, entries: forged.entries.map((e: {name: string}) => ({...e, name: undefined}))}),
      JSON.stringify({...forged, entries: forged.entries.map((e: {ino: number}) => ({...e, ino: undefined}))}),
      JSON.stringify({...forged, entries: [null, 1, 'x']}),
      '[]',
      'null',
    ]) {
      writeFileSync(recordIndexPath(state), text)
      expect(labels(state)).toEqual(['s0', 's1', 's2'])
    }
    rmSync(recordIndexPath(state))
    mkdirSync(recordIndexPath(state))
    expect(labels(state)).toEqual(['s0', 's1', 's2'])
  })

  it('never takes an id from the index: an id is worked out from the identity (an edited index swapped two sessions)', () => {
    const state = stateWith(2)
    refreshRecordIndex(state, later())
    const index = JSON.parse(readFileSync(recordIndexPath(state), 'utf8'))
    const entries = index.entries as {id: string; record: {identity: ProcessIdentity}}[]
    const [first, second] = [entries[0]!.id, entries[1]!.id]
    entries[0]!.id = second
    entries[1]!.id = first
    writeFileSync(recordIndexPath(state), JSON.stringify(index))
    const records = readRecords(state).records
    expect(records.map((r) => sessionIdOf(r.record.identity))).toEqual(records.map((r) => sha256Hex(identityKey(r.record.identity)).slice(0, 8)))
    expect(records.map((r) => sessionIdOf(r.record.identity))).toEqual([first, second])
  })

  it('does not index a file changed within the last seconds (its times could hide an edit in the same tick)', () => {
    const state = stateWith(2)
    refreshRecordIndex(state)
    expect(JSON.parse(readFileSync(recordIndexPath(state), 'utf8')).entries).toEqual([])
    expect(labels(state)).toEqual(['s0', 's1'])
  })
})
