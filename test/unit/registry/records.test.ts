import {describe, expect, it} from 'vitest'

import {parseRecordText, validateRecord} from '../../../src/lib/registry/records.js'
import {sampleRecord} from '../../helpers/fixtures.js'
import {judgeStateDir, resolveStateDir} from '../../../src/lib/registry/state-dir.js'

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
