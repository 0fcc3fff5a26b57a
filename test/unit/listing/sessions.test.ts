import {readFileSync, readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {createContext} from '../../../src/invocation/context.js'
import {collectSessions, sharedCodexFolders} from '../../../src/lib/listing/sessions.js'
import {sessionRow} from '../../helpers/fixtures.js'
import {claudePayload, reportingSession, spooled} from '../../helpers/reporting-session.js'
import {Sandbox} from '../../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

/** Every file under the state directory with its size and change time: what a reader must leave as it was. */
const stateFiles = (dir: string): string[] =>
  readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory()
      ? [`${e.name}/`, ...stateFiles(join(dir, e.name)).map((n) => `${e.name}/${n}`)]
      : [`${e.name} ${statSync(join(dir, e.name)).size} ${statSync(join(dir, e.name)).ctimeMs}`],
  )

describe('what pk ls shows (a real server, a real hook event)', () => {
  it('shows a pending event at once, and a reader writes nothing: the event stays pending, the record as it was', async () => {
    // (pk bg is a writer: it would apply what is pending, so the plain session starts first.)
    const plain = await sb.bgRow(['--', 'sleep', '100000'])
    const row = await reportingSession(sb, claudePayload('Notification', ',"notification_type":"permission_prompt"'))
    const before = stateFiles(sb.stateDir)
    const record = readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8')
    const listing = await collectSessions(createContext(sb.env, {cwd: sb.root}))
    expect(listing.rows.find((r) => r.id === row.id)).toMatchObject({
      state: 'waiting',
      stateSource: 'hook',
      agent: 'claude',
      resume: ['claude', '--resume', 'conv-s'],
      verified: true,
    })
    expect(listing.rows.find((r) => r.id === plain.id)).toMatchObject({kind: 'recorded', verified: true})
    expect(listing.problems).toEqual([])
    expect(stateFiles(sb.stateDir)).toEqual(before)
    expect(readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8')).toBe(record)
    expect(spooled(sb)).toHaveLength(1)
  })
  it('reads no state directory into being when there is none', async () => {
    sb.tmux(sb.socket('hand'), 'new-session', '-d', 'sleep 100000')
    const listing = await collectSessions(createContext(sb.env, {cwd: sb.root}))
    expect(listing.rows).toHaveLength(1)
    expect(readdirSync(sb.root)).not.toContain('state')
  })
})

describe('Codex windows sharing a folder', () => {
  it('are named as a problem while two or more have no conversation known; one, or ones with theirs, are not', () => {
    const codex = (id: string, over = {}) => sessionRow({id, agent: 'codex', state: 'idle', verified: true, cwd: '/w', resume: null, ...over})
    expect(sharedCodexFolders([codex('a'), codex('b'), codex('c', {cwd: '/other'})])).toEqual([
      {code: 'codex-shared-folder', ids: ['a', 'b'], message: expect.stringMatching(/^2 Codex windows in \/w \(a, b\) and none's conversation known/)},
    ])
    expect(sharedCodexFolders([codex('a'), codex('b', {resume: ['codex', 'resume', 't']})])).toEqual([])
    expect(sharedCodexFolders([codex('a'), codex('b', {state: 'exited'}), sessionRow({id: 'c', agent: 'claude', cwd: '/w'})])).toEqual([])
  })
})
