import {ProcessSource} from '../../src/lib/listing/pairing.js'
import {ProcStat} from '../../src/lib/proc/parse.js'
import {RECORD_VERSION, SessionRecord} from '../../src/lib/registry/records.js'
import {Pane} from '../../src/lib/tmux/panes.js'
import {ServerListing} from '../../src/lib/tmux/servers.js'

export const VIEW = {bootId: 'boot-1', pidNs: '4026531836', pid1StartTime: 1}

export const sampleRecord = (over: Partial<SessionRecord> = {}): SessionRecord => ({
  version: RECORD_VERSION,
  identity: {bootId: 'b', pidNs: '4026531836', pid: 10, startTime: 99},
  tmux: {socket: '/tmp/tmux-0/pk', paneId: '%1', sessionId: '$1', serverPid: 5},
  cwd: '/home/u',
  argv: ['claude', '--flag'],
  agent: 'claude',
  label: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: null,
  conversationId: null,
  status: null,
  ...over,
})

export interface FakeProcess {
  pid: number
  ppid: number
  startTime: number
  argv?: string[]
  cwd?: string
  state?: string
  exe?: string
}

/** A process table as data, for testing correlation without /proc. */
export function fakeSource(processes: FakeProcess[]): ProcessSource {
  const byPid = new Map(processes.map((p) => [p.pid, p]))
  return {
    stat: (pid): ProcStat | null => {
      const p = byPid.get(pid)
      return p ? {pid, comm: (p.argv?.[0] ?? 'x').slice(0, 15), state: p.state ?? 'S', ppid: p.ppid, pgrp: p.pid, startTime: p.startTime} : null
    },
    argv: (pid) => byPid.get(pid)?.argv ?? null,
    cwd: (pid) => byPid.get(pid)?.cwd ?? null,
    exe: (pid) => byPid.get(pid)?.exe ?? null,
    children: (pid) => processes.filter((p) => p.ppid === pid).map((p) => p.pid),
    startedAt: (ticks) => new Date(ticks * 10).toISOString(),
  }
}

export function pane(over: Partial<Pane> & {paneId: string; panePid: number}): Pane {
  return {
    dead: false,
    deadStatus: null,
    sessionId: '$0',
    attachedClients: 0,
    windowId: '@0',
    windowActivity: null,
    lastAttached: null,
    lastDetached: null,
    serverPid: 5,
    sessionName: 'main',
    ...over,
  }
}

export function server(socket: string, panes: Pane[], over: Partial<ServerListing> = {}): ServerListing {
  return {
    socket,
    status: 'ok',
    message: null,
    serverPid: 5,
    verified: true,
    unverifiedReason: null,
    panes,
    rejectedLines: 0,
    ...over,
  }
}

/** A row of pk ls as the tests build it: a verified, recorded Claude Code session in pane %1, with what a test changes. */
export const sessionRow = (over: Partial<import('../../src/lib/model/contract.js').SessionRow> = {}): import('../../src/lib/model/contract.js').SessionRow => ({
  id: 'a',
  kind: 'recorded',
  agent: 'claude',
  label: null,
  state: 'unknown',
  stateSource: 'none',
  attention: false,
  verified: true,
  conflict: false,
  pid: 1,
  cwd: '/',
  command: [],
  startedAt: null,
  attached: false,
  resume: null,
  record: 'r.json',
  exitReason: null,
  agentSource: null,
  exitStatus: null,
  resumedBy: null,
  parent: null,
  attentionSince: null,
  worktree: null,
  usage: null,
  notVerifiedJustNow: null,
  limit: null,
  tmux: {socket: '/s', session: 'x', sessionId: '$1', window: '@1', pane: '%1', lastAttached: null, lastDetached: null, activity: null},
  ...over,
})

/** A live Claude at work in /home/u/app, on a pane of its own (what the dashboard and the watch stream show). */
export const workingRow = (id: string, over: Partial<import('../../src/lib/model/contract.js').SessionRow> = {}) =>
  sessionRow({
    id,
    state: 'working',
    stateSource: 'hook',
    cwd: '/home/u/app',
    command: ['claude'],
    startedAt: '2026-11-29T10:00:00Z',
    record: null,
    tmux: {socket: '/s', session: id, sessionId: '$1', window: '@1', pane: '%1', lastAttached: null, lastDetached: null, activity: null},
    ...over,
  })

/** A Claude that an earlier boot ended, with a conversation to resume (what stop, resume, restore and send refuse or take). */
export const resumableRow = (id: string, over: Partial<import('../../src/lib/model/contract.js').SessionRow> = {}) =>
  sessionRow({
    id,
    state: 'exited',
    stateSource: 'process',
    cwd: '/w',
    command: ['claude'],
    resume: ['claude', '--resume', 'c1'],
    record: `${id}.json`,
    exitReason: 'other-boot',
    agentSource: 'record',
    tmux: null,
    ...over,
  })

/** An idle Claude in /home/u/app on pk's own server, pane %12 (what pk ls prints, as text and as JSON). */
export const listedRow = (over: Partial<import('../../src/lib/model/contract.js').SessionRow> = {}) =>
  sessionRow({
    id: 'abcd1234',
    state: 'idle',
    stateSource: 'hook',
    cwd: '/home/u/app',
    command: ['claude'],
    startedAt: '2026-11-30T10:00:00Z',
    record: null,
    agentSource: 'record',
    tmux: {socket: '/tmp/tmux-0/pk', session: 'claude', sessionId: '$1', window: '@1', pane: '%12', lastAttached: null, lastDetached: null, activity: null},
    ...over,
  })

/**
 * A machine: pane shells 10 and 20 (two Codex windows, 11 and 21, in /w), the first window's app-server
 * daemon 12 (which runs every window's notify), a Claude in pane 30 (31), a plain pane 40; 42 a program of
 * the plain pane's that calls itself app-server (its executable is python's, not Codex's).
 */
export const CODEX_MACHINE: Record<number, {startTime: number; argv: string[]; exe?: string}> = {
  10: {startTime: 100, argv: ['bash'], exe: '/usr/bin/bash'},
  11: {startTime: 110, argv: ['node', '/usr/bin/codex'], exe: '/opt/codex-linux-x64/bin/codex'},
  12: {
    startTime: 120,
    argv: ['/home/u/.codex/packages/app-server-daemon/releases/0.171.0/bin/codex', 'app-server', '--listen', 'unix://', '--managed-daemon'],
    exe: '/home/u/.codex/packages/app-server-daemon/releases/0.171.0/bin/codex',
  },
  20: {startTime: 200, argv: ['bash'], exe: '/usr/bin/bash'},
  21: {startTime: 210, argv: ['node', '/usr/bin/codex'], exe: '/opt/codex-linux-x64/bin/codex'},
  30: {startTime: 300, argv: ['bash'], exe: '/usr/bin/bash'},
  31: {startTime: 310, argv: ['claude'], exe: '/opt/claude/claude.exe'},
  40: {startTime: 400, argv: ['bash'], exe: '/usr/bin/bash'},
  41: {startTime: 410, argv: ['python3', 'agent.py'], exe: '/usr/bin/python3.11'},
  42: {startTime: 420, argv: ['codex', 'app-server', '--managed-daemon'], exe: '/usr/bin/python3.11'},
}

/** A process of CODEX_MACHINE as a link of an ancestry chain. */
export const link = (pid: number) => ({pid, startTime: CODEX_MACHINE[pid]!.startTime})

/** The exit code of the PkError `fn` throws, or undefined when it throws none. */
export function exitCodeOf(fn: () => unknown): number | undefined {
  try {
    fn()
  } catch (error) {
    return (error as {exitCode?: number}).exitCode
  }
  return undefined
}
