import {chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import type {SessionRow} from '../../src/lib/model/contract.js'
import {LsJson, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'

/**
 * What the agent says of itself (issue 69): a Claude Code whose screen no rule knows (a later release), keeping
 * its live record as 2.1.337 does (test/helpers/claude-record-standin.cjs), run by the real pk bg in real tmux.
 * pk ls reads working, waiting and idle from the record by the process's identity, and believes nothing else.
 */
let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

/** pk bg claude, the stand-in as claude; its status set through the returned function. */
async function claudeWithRecord(extra: NodeJS.ProcessEnv = {}) {
  const bin = join(sb.root, 'bin')
  mkdirSync(bin, {recursive: true})
  copyFileSync(join(ROOT, 'test', 'helpers', 'claude-record-standin.cjs'), join(bin, 'claude'))
  chmodSync(join(bin, 'claude'), 0o755)
  const statusFile = join(sb.root, 'status')
  writeFileSync(statusFile, 'idle')
  const row = await sb.bgRow(['claude'], {env: {PATH: `${bin}:${process.env.PATH}`, STANDIN_STATUS_FILE: statusFile, ...extra}})
  const sessions = join(extra.CLAUDE_CONFIG_DIR ?? join(sb.home, '.claude'), 'sessions')
  await waitFor('the record written', () => readdirSync(sessions, {withFileTypes: true}).some((e) => e.name === `${row.pid}.json`) || undefined, 15_000)
  const set = (status: string) => writeFileSync(statusFile, status)
  return {row, set, sessions, record: join(sessions, `${row.pid}.json`)}
}

const rowOf = async (id: string) => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === id)!
const refusals = async () => (await sb.pkJson<LsJson>(['ls'])).problems.filter((p) => p.code === 'own-state-refused')

/** Until pk ls says `state` from `source` (the record is rewritten within 0.1 s of a change). */
async function says(id: string, state: string, source: string): Promise<SessionRow> {
  let last: SessionRow | undefined
  return waitFor(
    `pk ls to say ${state} from ${source}`,
    async () => {
      last = await rowOf(id)
      return last.state === state && last.stateSource === source ? last : undefined
    },
    20_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}: it said ${last?.state} from ${last?.stateSource}`)
  })
}

/** The files under a folder with their sizes and times: what pk must leave as it found it. */
const tree = (dir: string): string[] =>
  readdirSync(dir, {recursive: true, withFileTypes: true}).map((e) => {
    const s = statSync(join(e.parentPath, e.name))
    return `${join(e.parentPath, e.name)} ${s.size} ${s.mtimeMs} ${s.mode}`
  })

describe("Claude Code's record of itself", () => {
  it('gives working, waiting (each waitingFor) and idle while the screen shows nothing any rule knows; reading writes nothing', async () => {
    const {row, set} = await claudeWithRecord()
    expect((await says(row.id, 'idle', 'agent')).attention).toBe(false)
    const before = tree(join(sb.home, '.claude'))
    set('busy')
    await says(row.id, 'working', 'agent')
    for (const waitingFor of ['permission prompt', 'input needed', 'dialog open']) {
      set(`waiting\t${waitingFor}`)
      const waiting = await says(row.id, 'waiting', 'agent')
      expect(waiting.attention).toBe(true)
      set('busy')
      await says(row.id, 'working', 'agent')
    }
    set('shell')
    await says(row.id, 'working', 'agent')
    set('idle')
    await says(row.id, 'idle', 'agent')
    // Only the stand-in's own writes moved anything under ~/.claude: a look by pk alone leaves it as it was.
    const settled = tree(join(sb.home, '.claude'))
    await sb.pkJson(['ls'])
    await sb.pk(['ls'])
    expect(tree(join(sb.home, '.claude'))).toEqual(settled)
    expect(settled.length).toBe(before.length)
  })

  it('is read where the agent process says, its CLAUDE_CONFIG_DIR', async () => {
    const config = join(sb.root, 'claude-config')
    mkdirSync(config, {mode: 0o700})
    const {row, set} = await claudeWithRecord({CLAUDE_CONFIG_DIR: config})
    set('waiting\tpermission prompt')
    await says(row.id, 'waiting', 'agent')
  })

  it('is not believed stale (another start time), through a link, in a folder others can write, or as an older pid-N.json', async () => {
    const {row, set, sessions, record} = await claudeWithRecord({STANDIN_RECORD_PROC_START: '1'})
    set('waiting\tpermission prompt')
    await waitFor('the stand-in to write it', () => JSON.parse(readFileSync(record, 'utf8')).status === 'waiting', 10_000)
    // A record left by an earlier process with this pid: not this one's word. The screen no rule knows: unknown.
    expect(await rowOf(row.id)).toMatchObject({state: 'unknown', stateSource: 'none'})
    // (stale as a killed Claude leaves it: no fault of anyone's, not a problem)
    expect(await refusals()).toEqual([])
    // The right record, moved aside and linked to: not read through the link.
    const stat = readFileSync(`/proc/${row.pid}/stat`, 'utf8')
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
    const good = {...JSON.parse(readFileSync(record, 'utf8')), procStart: start, status: 'waiting', waitingFor: 'permission prompt'}
    // (the stand-in writes no more once its status stays: what is planted here stays)
    writeFileSync(join(sb.root, 'elsewhere.json'), JSON.stringify(good))
    rmSync(record)
    symlinkSync(join(sb.root, 'elsewhere.json'), record)
    expect(await rowOf(row.id)).toMatchObject({state: 'unknown'})
    expect(await refusals()).toEqual([{code: 'own-state-refused', ids: [row.id], message: expect.stringMatching(/is a symbolic link/)}])
    // A plain file again: believed.
    rmSync(record)
    writeFileSync(`${record}.new`, JSON.stringify(good))
    renameSync(`${record}.new`, record)
    await says(row.id, 'waiting', 'agent')
    // A folder others can write: nothing in it is believed.
    chmodSync(sessions, 0o777)
    expect(await rowOf(row.id)).toMatchObject({state: 'unknown'})
    expect(await refusals()).toEqual([{code: 'own-state-refused', ids: [row.id], message: expect.stringMatching(/writable by others \(mode 777\)/)}])
    chmodSync(sessions, 0o700)
    await says(row.id, 'waiting', 'agent')
    // Only an older release's pid-N.json: never opened.
    renameSync(record, join(sessions, `pid-${row.pid}.json`))
    expect(await rowOf(row.id)).toMatchObject({state: 'unknown'})
  })
})
