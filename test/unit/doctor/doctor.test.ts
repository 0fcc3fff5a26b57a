import {describe, expect, it} from 'vitest'

import {orphanedServersCheck} from '../../../src/lib/doctor/checks/orphaned-servers.js'
import {socketDirCheck} from '../../../src/lib/doctor/checks/socket-dir.js'
import {MIN_TMUX, parseTmuxVersion, tmuxCheck} from '../../../src/lib/doctor/checks/tmux.js'
import {agentsOnPath, parseServerAccess} from '../../../src/lib/doctor/facts.js'
import {orphanInodes} from '../../../src/lib/doctor/orphans.js'
import {DoctorFacts} from '../../../src/lib/doctor/types.js'
import {planPrune} from '../../../src/lib/verbs/prune.js'
import {SessionRow} from '../../../src/lib/model/correlate.js'
import {pane, sampleRecord, server} from '../../helpers/fixtures.js'

const facts = (over: Partial<DoctorFacts>): DoctorFacts =>
  ({
    uid: 1000,
    env: {},
    tmuxVersion: {ok: true, version: 'tmux 3.3a'},
    socketDir: {path: '/tmp/tmux-1000', exists: true, uid: 1000, mode: 0o700, fsType: 0xef53, aboveProblem: null},
    sockets: [],
    serverAccess: new Map(),
    orphans: [],
    ...over,
  }) as DoctorFacts

describe('doctor checks, judged from facts', () => {
  it('reads tmux versions and wants 3.2 or later', () => {
    expect(parseTmuxVersion('tmux 3.3a')).toEqual([3, 3])
    expect(parseTmuxVersion('tmux next-3.5')).toEqual([3, 5])
    expect(parseTmuxVersion('tmux master')).toBeNull()
    expect(MIN_TMUX).toEqual([3, 2])
    expect(tmuxCheck.judge(facts({tmuxVersion: {ok: true, version: 'tmux 2.9a'}})).status).toBe('fail')
    expect(tmuxCheck.judge(facts({tmuxVersion: {ok: false, reason: 'not installed'}})).status).toBe('fail')
    expect(tmuxCheck.judge(facts({})).status).toBe('pass')
  })

  it('wants the socket directory 0700, local, and sockets closed to others', () => {
    expect(socketDirCheck.judge(facts({})).status).toBe('pass')
    expect(socketDirCheck.judge(facts({socketDir: {path: '/s', exists: true, uid: 1000, mode: 0o755, fsType: 0xef53, aboveProblem: null}}))).toMatchObject({status: 'fail', fixable: true})
    expect(socketDirCheck.judge(facts({socketDir: {path: '/s', exists: true, uid: 1000, mode: 0o700, fsType: 0x6969, aboveProblem: null}}))).toMatchObject({status: 'fail', fixable: false, message: expect.stringMatching(/NFS/)})
    expect(socketDirCheck.judge(facts({sockets: [{path: '/s/x', uid: 1000, mode: 0o666}]}))).toMatchObject({status: 'fail', fixable: true})
    // A directory above it that another user may write: nothing pk can fix, and pk connects to nothing there.
    expect(socketDirCheck.judge(facts({socketDir: {path: '/s', exists: true, uid: 1000, mode: 0o700, fsType: 0xef53, aboveProblem: '/shared is writable by others without the sticky bit'}}))).toMatchObject({status: 'fail', fixable: false, message: expect.stringMatching(/sticky/)})
    expect(socketDirCheck.judge(facts({sockets: [{path: '/s/x', uid: 1000, mode: 0o660}]})).status).toBe('pass')
    expect(socketDirCheck.judge(facts({serverAccess: new Map([['/s/x', ['bob (W)']]])}))).toMatchObject({status: 'warn', message: expect.stringMatching(/bob/)})
  })

  it('explains orphaned servers in plain words', () => {
    const result = orphanedServersCheck.judge(facts({orphans: [{pid: 42, socket: '/s/pk', reason: 'socket-missing', panes: 3, recordedPanes: 2}]}))
    expect(result).toMatchObject({status: 'fail', fixable: true, message: 'your sessions are alive but unreachable: tmux server pid 42 still runs 3 pane(s) (2 pk session(s)), but its socket /s/pk was deleted'})
    const taken = orphanedServersCheck.judge(facts({orphans: [{pid: 42, socket: '/s/pk', reason: 'socket-taken', panes: 1, recordedPanes: 0}]}))
    expect(taken.fixable).toBe(false)
  })

  it('parses server-access lists and finds agents on a PATH', () => {
    expect(parseServerAccess('nobody (W)\nalice (R)\nme (W)\n\n', 'me')).toEqual(['nobody (W)', 'alice (R)'])
    expect(agentsOnPath('/a:/b', (p) => p === '/b/claude' || p === '/a/codex')).toEqual(new Map([['codex', '/a/codex'], ['claude', '/b/claude']]))
  })

  it('finds listening inodes that no socket file leads to', () => {
    const listening = new Map([['/s/pk', new Set(['1', '2'])], ['/elsewhere', new Set(['3'])]])
    const exists = (p: string) => p !== '/s/gone'
    expect(orphanInodes(listening, (p) => p.startsWith('/s/'), new Map([['/s/pk', new Set(['2'])]]), exists)).toEqual([{path: '/s/pk', inode: '1', reason: 'socket-taken'}])
    // No verified server answered at the path: which listener the file leads to is unknown, so none is an orphan.
    expect(orphanInodes(listening, (p) => p.startsWith('/s/'), new Map(), exists)).toEqual([])
    expect(orphanInodes(new Map([['/s/one', new Set(['7'])]]), () => true, new Map(), exists)).toEqual([])
    expect(orphanInodes(new Map([['/s/gone', new Set(['8'])]]), () => true, new Map(), exists)).toEqual([{path: '/s/gone', inode: '8', reason: 'socket-missing'}])
  })
})

describe('planPrune', () => {
  const row = (over: Partial<SessionRow>): SessionRow => ({
    id: 'a', kind: 'recorded', agent: null, label: null, state: 'exited', stateSource: 'process', attention: false, verified: false, conflict: false,
    pid: 10, cwd: '/', command: [], startedAt: null, attached: false, tmux: null, resume: null, record: '/st/a.json', exitReason: 'gone', agentSource: null, exitStatus: null, resumedBy: null, attentionSince: null, worktree: null, usage: null, ...over,
  })
  const record = sampleRecord({identity: {bootId: 'b', pidNs: '1', pid: 10, startTime: 1}, tmux: {socket: '/s/pk', paneId: '%3', sessionId: '$1', serverPid: 5}})

  it('removes ended records and their dead panes; keeps live, resumable and conflicting ones', () => {
    const rows = [
      row({}),
      row({id: 'b', record: '/st/b.json', resume: ['claude', '--resume', 'x']}),
      row({id: 'c', record: '/st/c.json', conflict: true}),
      row({id: 'd', record: '/st/d.json', state: 'unknown', exitReason: null, verified: true}),
      row({id: 'e', kind: 'pane', record: null}),
    ]
    const servers = [server('/s/pk', [pane({paneId: '%3', panePid: 10, dead: true}), pane({paneId: '%4', panePid: 11, dead: true})]), server('/s/old', [], {status: 'stale-socket', verified: false})]
    const plan = planPrune({rows, servers, records: [{file: '/st/a.json', record}]}, {includeResumable: false})
    expect(plan.remove.map((i) => `${i.kind} ${i.target}`)).toEqual(['record /st/a.json', 'pane /s/pk %3', 'socket /s/old'])
    expect(plan.keep.map((k) => `${k.id} ${k.reason}`)).toEqual(['b resumable', 'c conflict'])
    const all = planPrune({rows, servers, records: []}, {includeResumable: true})
    expect(all.remove.map((i) => i.target)).toContain('/st/b.json')
  })

  it('does not take a dead pane of another server instance', () => {
    const servers = [server('/s/pk', [pane({paneId: '%3', panePid: 10, dead: true, serverPid: 6})], {serverPid: 6})]
    const plan = planPrune({rows: [row({})], servers, records: [{file: '/st/a.json', record}]}, {includeResumable: false})
    expect(plan.remove.map((i) => i.kind)).toEqual(['record'])
  })
})

describe('server-env check', async () => {
  const {serverEnvCheck} = await import('../../../src/lib/doctor/checks/server-env.js')
  const {mkdtempSync, writeFileSync, mkdirSync} = await import('node:fs')
  const {join} = await import('node:path')
  const {tmpdir} = await import('node:os')
  it('warns when a server PATH lacks an agent your PATH has', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pk-env-'))
    mkdirSync(join(dir, 'mine'))
    mkdirSync(join(dir, 'old'))
    writeFileSync(join(dir, 'mine', 'claude'), '')
    const drift = serverEnvCheck.judge(facts({env: {PATH: join(dir, 'mine')}, serverPaths: new Map([['/s/pk', join(dir, 'old')]])}))
    expect(drift).toMatchObject({status: 'warn', message: expect.stringMatching(/\/s\/pk: PATH lacks claude/)})
    expect(serverEnvCheck.judge(facts({env: {PATH: join(dir, 'mine')}, serverPaths: new Map([['/s/pk', join(dir, 'mine')]])})).status).toBe('pass')
  })
})
