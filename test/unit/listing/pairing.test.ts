import {describe, expect, it} from 'vitest'

import {PRESETS} from '../../../src/lib/agents/presets.js'
import {correlate} from '../../../src/lib/listing/pairing.js'
import {sessionIdOf} from '../../../src/lib/proc/identity.js'
import {FakeProcess, VIEW, fakeSource, pane, sampleRecord, server} from '../../helpers/fixtures.js'

const SOCK = '/tmp/tmux-0/pk'
const ident = (pid: number, startTime: number) => ({...VIEW, pid, startTime})
const stored = (file: string, pid: number, startTime: number, over = {}) => ({file, record: sampleRecord({identity: ident(pid, startTime), ...over})})

function run(processes: FakeProcess[], panes: ReturnType<typeof pane>[], records: ReturnType<typeof stored>[], servers = [server(SOCK, panes)]) {
  return correlate({view: VIEW, servers, records, source: fakeSource(processes), presets: PRESETS})
}

describe('correlate', () => {
  const procs: FakeProcess[] = [
    {pid: 100, ppid: 5, startTime: 1000, argv: ['bash'], cwd: '/a'},
    {pid: 200, ppid: 5, startTime: 2000, argv: ['sleep', '9'], cwd: '/b'},
  ]
  const panes = [pane({paneId: '%1', panePid: 100, sessionName: 'A'}), pane({paneId: '%2', panePid: 200, sessionName: 'B'})]

  it('pairs a record with the pane whose process has its pid and start time', () => {
    const {rows, problems} = run(procs, panes, [stored('a.json', 100, 1000)])
    expect(problems).toEqual([])
    const row = rows.find((r) => r.kind === 'recorded')!
    // Where and what: what pk started (the record's), not re-read from /proc; the pid and start time are.
    expect(row).toMatchObject({id: sessionIdOf(ident(100, 1000)), verified: true, pid: 100, cwd: '/home/u', command: ['claude', '--flag'], record: 'a.json'})
    expect(row.tmux).toMatchObject({pane: '%1', session: 'A'})
    // The other pane is listed as a plain pane with its own identity-derived id.
    expect(rows.find((r) => r.kind === 'pane')).toMatchObject({id: sessionIdOf(ident(200, 2000)), tmux: {pane: '%2'}})
  })

  it("dates a paired record's session by the record, worked out when pk started it; where the record has no date, by the kernel's start time", () => {
    const dated = run(procs, panes, [stored('a.json', 100, 1000, {startedAt: '2026-11-30T10:00:00.000Z'})]).rows.find((r) => r.kind === 'recorded')!
    expect(dated.startedAt).toBe('2026-11-30T10:00:00.000Z')
    const undated = run(procs, panes, [stored('a.json', 100, 1000)]).rows.find((r) => r.kind === 'recorded')!
    expect(undated.startedAt).toBe(new Date(1000 * 10).toISOString())
    // A pane no record claims: the kernel's start time.
    expect(run(procs, panes, []).rows.find((r) => r.pid === 200)!.startedAt).toBe(new Date(2000 * 10).toISOString())
  })

  it('ignores names: swapped session names and a record claiming the other pane change nothing', () => {
    const swapped = [pane({paneId: '%1', panePid: 100, sessionName: 'B'}), pane({paneId: '%2', panePid: 200, sessionName: 'A'})]
    const lying = stored('a.json', 100, 1000, {tmux: {socket: SOCK, paneId: '%2', sessionId: '$9', serverPid: 5}, label: 'B'})
    const row = run(procs, swapped, [lying]).rows.find((r) => r.kind === 'recorded')!
    expect(row.tmux!.pane).toBe('%1')
    expect(row.id).toBe(sessionIdOf(ident(100, 1000)))
  })

  it('pairs a record with the agent process inside a pane shell', () => {
    const tree = [...procs, {pid: 300, ppid: 100, startTime: 3000, argv: ['claude'], cwd: '/c'}]
    const row = run(tree, panes, [stored('c.json', 300, 3000)]).rows.find((r) => r.kind === 'recorded')!
    expect(row).toMatchObject({pid: 300, verified: true, tmux: {pane: '%1'}})
  })

  it('finds agents started by hand, and gives them the id any later record would get', () => {
    const tree = [...procs, {pid: 300, ppid: 100, startTime: 3000, argv: ['node', '/usr/lib/node_modules/x/bin/gemini'], cwd: '/c'}]
    const {rows} = run(tree, panes, [])
    expect(rows.find((r) => r.kind === 'detected')).toMatchObject({agent: 'gemini', pid: 300, id: sessionIdOf(ident(300, 3000)), tmux: {pane: '%1'}})
    const later = run(tree, panes, [stored('g.json', 300, 3000)]).rows.find((r) => r.kind === 'recorded')!
    expect(later.id).toBe(sessionIdOf(ident(300, 3000)))
  })

  it("pairs only panes whose process the kernel says is the server's child: a second server cannot take a session", () => {
    // A crafted server (its pid here holds a copy of its socket) lists the recorded pid 100 as its pane.
    const crafted = server('/tmp/tmux-0/zzz', [pane({paneId: '%7', panePid: 100, serverPid: 66, sessionName: 'trap'})], {serverPid: 66})
    const {rows, problems} = run(procs, panes, [stored('a.json', 100, 1000)], [server(SOCK, panes), crafted])
    const row = rows.find((r) => r.kind === 'recorded')!
    expect(row).toMatchObject({verified: true, tmux: {socket: SOCK, pane: '%1'}})
    expect(problems).toContainEqual(expect.objectContaining({code: 'foreign-pane', socket: '/tmp/tmux-0/zzz'}))
    expect(rows.find((r) => r.tmux?.pane === '%7')).toMatchObject({kind: 'pane', verified: false})
    // Alone, the crafted server still pairs nothing.
    const alone = run(procs, panes, [stored('a.json', 100, 1000)], [crafted])
    expect(alone.rows.find((r) => r.kind === 'recorded')).toMatchObject({verified: false, tmux: null})
  })

  it('fails closed when one id appears on two rows', () => {
    // Two servers both claim to be the parent of pid 200 (only one can be): both rows become conflicts.
    const twin = server('/tmp/tmux-0/twin', [pane({paneId: '%9', panePid: 200})])
    const {rows, problems} = run(procs, panes, [], [server(SOCK, panes), twin])
    const same = rows.filter((r) => r.id === sessionIdOf(ident(200, 2000)))
    expect(same).toHaveLength(2)
    for (const row of same) expect(row).toMatchObject({conflict: true, verified: false})
    expect(problems).toContainEqual(expect.objectContaining({code: 'conflict', id: sessionIdOf(ident(200, 2000))}))
  })

  it('says whether an agent was recognised by its executable or only by its command line', () => {
    const tree = [
      ...procs,
      {pid: 300, ppid: 100, startTime: 3000, argv: ['claude'], exe: '/opt/claude/bin/claude'},
      {pid: 400, ppid: 200, startTime: 4000, argv: ['node', '/usr/lib/node_modules/x/bin/gemini'], exe: '/usr/bin/node'},
    ]
    const {rows} = run(tree, panes, [])
    expect(rows.find((r) => r.pid === 300)).toMatchObject({agent: 'claude', agentSource: 'exe'})
    expect(rows.find((r) => r.pid === 400)).toMatchObject({agent: 'gemini', agentSource: 'argv'})
    // A process that only calls itself claude (process.title) is claude by its command line alone.
    const renamed = [...procs, {pid: 300, ppid: 100, startTime: 3000, argv: ['claude'], exe: '/usr/bin/python3'}]
    expect(run(renamed, panes, []).rows.find((r) => r.pid === 300)).toMatchObject({agent: 'claude', agentSource: 'argv'})
    // What the kernel says it runs counts on its own: claude.exe started under another argv[0].
    const disguised = [...procs, {pid: 300, ppid: 100, startTime: 3000, argv: ['worker', '--serve'], exe: '/opt/claude/claude.exe'}]
    expect(run(disguised, panes, []).rows.find((r) => r.pid === 300)).toMatchObject({agent: 'claude', agentSource: 'exe'})
  })

  it('trusts neither of two records that claim one process', () => {
    const {rows, problems} = run(procs, panes, [stored('a.json', 100, 1000), stored('b.json', 100, 1000)])
    expect(problems).toEqual([expect.objectContaining({code: 'conflict', files: ['a.json', 'b.json']})])
    const row = rows.find((r) => r.id === sessionIdOf(ident(100, 1000)))!
    expect(row).toMatchObject({conflict: true, verified: false, record: null})
    expect(rows.filter((r) => r.tmux?.pane === '%1')).toHaveLength(1)
  })

  it('groups claims by the whole identity where records share a pid: a conflict stays one, a stale claim is its own', () => {
    // a.json and b.json claim the live process; old.json an earlier one with the same pid, between them.
    const {rows, problems} = run(procs, panes, [stored('a.json', 100, 1000), stored('old.json', 100, 900), stored('b.json', 100, 1000)])
    expect(problems).toEqual([expect.objectContaining({code: 'conflict', files: ['a.json', 'b.json']})])
    expect(rows.find((r) => r.id === sessionIdOf(ident(100, 1000)))).toMatchObject({conflict: true, verified: false, record: null})
    expect(rows.find((r) => r.record === 'old.json')).toMatchObject({
      id: sessionIdOf(ident(100, 900)),
      state: 'exited',
      exitReason: 'pid-reused',
      conflict: false,
    })
    expect(rows.filter((r) => r.tmux?.pane === '%1')).toHaveLength(1)
  })

  it('never pairs a record with a new process that reuses its pid', () => {
    const {rows} = run(procs, panes, [stored('old.json', 200, 1500)])
    const old = rows.find((r) => r.record === 'old.json')!
    expect(old).toMatchObject({state: 'exited', verified: false, tmux: null, id: sessionIdOf(ident(200, 1500))})
    expect(rows.find((r) => r.tmux?.pane === '%2')!.id).toBe(sessionIdOf(ident(200, 2000)))
  })

  it('treats records from another boot as exited and another namespace as unverifiable', () => {
    const otherBoot = {file: 'ob.json', record: sampleRecord({identity: {...ident(100, 1000), bootId: 'boot-0'}})}
    const otherNs = {file: 'ns.json', record: sampleRecord({identity: {...ident(100, 1000), pidNs: '4026532999'}})}
    const {rows, problems} = run(procs, panes, [otherBoot, otherNs])
    expect(rows.find((r) => r.record === 'ob.json')).toMatchObject({state: 'exited', verified: false, tmux: null})
    expect(rows.find((r) => r.record === 'ns.json')).toMatchObject({state: 'unknown', verified: false, tmux: null})
    expect(problems.map((p) => p.code)).toEqual(['foreign-namespace'])
    // The live pane is not given to either record.
    expect(rows.find((r) => r.tmux?.pane === '%1')!.kind).toBe('pane')
  })

  it('reports a live process that is in no reachable pane', () => {
    const tree = [...procs, {pid: 400, ppid: 1, startTime: 4000, argv: ['claude']}]
    const {rows, problems} = run(tree, panes, [stored('u.json', 400, 4000)])
    expect(rows.find((r) => r.record === 'u.json')).toMatchObject({verified: false, tmux: null, state: 'unknown'})
    expect(problems[0]).toMatchObject({code: 'unreachable'})
  })

  it('does not read pane pids of a server it cannot verify', () => {
    const untrusted = server(SOCK, panes, {verified: false, unverifiedReason: 'other namespace'})
    const {rows, problems} = run(procs, panes, [stored('a.json', 100, 1000)], [untrusted])
    expect(rows.find((r) => r.record === 'a.json')).toMatchObject({verified: false, tmux: null})
    expect(rows.filter((r) => r.kind === 'pane').every((r) => !r.verified && r.pid === null)).toBe(true)
    expect(problems.map((p) => p.code)).toContain('unverified-server')
  })

  it('reports malformed tmux output, and stale sockets not at all (tmux leaves them on every exit)', () => {
    const stale = server('/tmp/tmux-0/old', [], {status: 'stale-socket', verified: false})
    const noisy = server(SOCK, panes, {rejectedLines: 2})
    const {problems} = run(procs, panes, [], [stale, noisy])
    expect(problems.map((p) => p.code)).toEqual(['tmux-output'])
  })

  it('sorts waiting-on-you first and exited last', () => {
    const {rows} = run(procs, panes, [stored('old.json', 200, 1500)])
    expect(rows.at(-1)!.state).toBe('exited')
  })
})
