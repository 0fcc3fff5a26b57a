import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'

import {createContext} from '../../../src/invocation/context.js'
import {BUILTIN_PRESETS} from '../../../src/lib/agents/presets.js'
import {takeSnapshot} from '../../../src/lib/listing/snapshot.js'
import {ServerScan} from '../../../src/lib/tmux/servers.js'
import {Sandbox} from '../../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe('one look at the world (a real tmux server, real /proc, a real state directory)', () => {
  it('lists every server of the socket directory once, the records, and where this pk stands', async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    sb.tmux(sb.socket('other'), 'new-session', '-d', 'sleep 100000')
    const snap = await takeSnapshot(createContext(sb.env, {cwd: sb.root}))
    expect(snap.viewMeasurement.ok).toBe(true)
    expect(snap.trust.trusted).toBe(true)
    expect(snap.tmuxMissing).toBeNull()
    expect(snap.servers.map((s) => s.socket).sort()).toEqual([sb.pkSocket, sb.socket('other')].sort())
    expect(snap.servers.every((s) => s.status === 'ok' && s.verified)).toBe(true)
    expect(snap.records.map((r) => r.record.identity.pid)).toEqual([row.pid])
    expect(snap.proc.stat(row.pid!)?.pid).toBe(row.pid)
    expect(snap.presets.map((p) => p.name)).toEqual(BUILTIN_PRESETS.map((p) => p.name))
  })
  it('takes the presets and the scan it is handed (doctor, when the config does not load or the socket directory is unsafe)', async () => {
    sb.tmux(sb.socket('other'), 'new-session', '-d', 'sleep 100000')
    const snap = await takeSnapshot(createContext(sb.env, {cwd: sb.root}), {presets: [], scan: ServerScan.recordsOnly(), state: null})
    expect(snap.presets).toEqual([])
    expect(snap.servers).toEqual([])
    expect(snap.records).toEqual([])
  })
  it('says tmux is missing instead of failing', async () => {
    await sb.bgRow(['--', 'sleep', '100000'])
    // tmux clients run with this process's PATH (see clientEnv).
    vi.stubEnv('PATH', '/nonexistent')
    const snap = await takeSnapshot(createContext(sb.env, {cwd: sb.root})).finally(() => vi.unstubAllEnvs())
    expect(snap.tmuxMissing?.code).toBe('tmux-missing')
    expect(snap.servers).toEqual([])
    expect(snap.records).toHaveLength(1)
  })
})
