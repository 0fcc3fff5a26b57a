import {mkdirSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {PassThrough} from 'node:stream'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {InMemoryTransport} from '@modelcontextprotocol/sdk/inMemory.js'

import {createContext} from '../../../src/invocation/context.js'
import {parseRights} from '../../../src/lib/mcp/rights.js'
import {runMcpServer} from '../../../src/lib/mcp/server.js'
import {turnOff} from '../../../src/lib/registry/mcp-switch.js'
import {stateLayout} from '../../../src/lib/registry/state-dir.js'

/**
 * pk mcp's server on the SDK's in-memory pair (the integration test drives the real stdio from inside a
 * session): the tools it lists, and the gate every call goes through: the kill switch, the rights, the
 * audit line. No session is needed for any of these; nothing here starts tmux.
 */
let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pk-mcp-server-'))
  mkdirSync(join(root, 'tmux'), {mode: 0o700})
})
afterEach(() => rmSync(root, {recursive: true, force: true}))

async function connect(allow: string) {
  const env = {PATH: process.env.PATH, HOME: root, PK_STATE_DIR: join(root, 'state'), TMUX_TMPDIR: join(root, 'tmux')}
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const warnings: string[] = []
  const running = runMcpServer({
    ctx: createContext(env, {cwd: root}),
    rights: parseRights(allow),
    version: '0.0.0',
    transport: serverSide,
    setupOutput: new PassThrough(),
    warn: (line) => warnings.push(line),
  })
  const client = new Client({name: 'test', version: '1.0.0'})
  await client.connect(clientSide)
  return {client, running, warnings, state: stateLayout(join(root, 'state'))}
}

const audit = () =>
  readFileSync(join(root, 'state', 'mcp', 'audit.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as {phase: string; tool: string; exit: number | null; code: string | null; session: string | null})
    .filter((l) => l.phase === 'end')
const starts = () =>
  readFileSync(join(root, 'state', 'mcp', 'audit.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as {phase: string; tool: string; exit: number | null})
    .filter((l) => l.phase === 'start')

describe('pk mcp (in memory)', () => {
  it('lists its nine tools, each with a JSON Schema for its input; ends when its client closes', async () => {
    const {client, running} = await connect('read,act')
    const {tools} = await client.listTools()
    expect(tools.map((t) => t.name)).toHaveLength(9)
    const send = tools.find((t) => t.name === 'send_message')!
    expect(send.inputSchema).toMatchObject({type: 'object', required: ['id', 'text'], properties: {id: {type: 'string'}, text: {type: 'string'}}})
    await client.close()
    await running
  })

  it('refuses outside its rights, with the reason as a tool error and the exit, and logs it (the caller: no session here)', async () => {
    const {client} = await connect('read')
    const result = await client.callTool({name: 'start_session', arguments: {command: ['true']}})
    expect(result).toMatchObject({
      isError: true,
      structuredContent: {error: {code: 'mcp-refused', exit: 5, message: expect.stringMatching(/needs the act right.*nothing was done/)}},
    })
    expect(audit()).toEqual([expect.objectContaining({tool: 'start_session', exit: 5, code: 'mcp-refused', session: null})])
    await client.close()
  })

  it('an input its schema refuses never reaches pk', async () => {
    const {client} = await connect('read,act')
    const result = await client.callTool({name: 'send_message', arguments: {id: 'abc'}})
    expect(result.isError).toBe(true)
    await client.close()
  })

  it('while off, refuses every call at once, saying why; the list works again once on', async () => {
    const {client, state} = await connect('read,act')
    await turnOff(state, 'pk mcp --off at noon')
    const refused = await client.callTool({name: 'list_sessions', arguments: {}})
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: {error: {code: 'mcp-off', message: expect.stringMatching(/pk mcp --off at noon.*pk mcp --on/)}},
    })
    const {turnOn} = await import('../../../src/lib/registry/mcp-switch.js')
    await turnOn(state)
    const listed = await client.callTool({name: 'list_sessions', arguments: {}})
    expect(listed).toMatchObject({structuredContent: {sessions: []}})
    expect(audit().map((l) => l.code)).toEqual(['mcp-off', null])
    // Each call written as it started, too, before anything was done.
    expect(starts()).toEqual([expect.objectContaining({tool: 'list_sessions', exit: null}), expect.objectContaining({tool: 'list_sessions', exit: null})])
    await client.close()
  })

  it("act starts agent presets as pk starts them: a command, or arguments of the caller's, need exec (issue 72)", async () => {
    const {client} = await connect('read,act')
    for (const args of [{command: ['sh', '-c', 'pk stop OTHER --force']}, {agent: 'claude', command: ['--dangerously-skip-permissions']}]) {
      const result = await client.callTool({name: 'start_session', arguments: args})
      expect(result).toMatchObject({
        isError: true,
        structuredContent: {error: {code: 'mcp-refused', exit: 5, message: expect.stringMatching(/needs the exec right/)}},
      })
    }
    await client.close()
  })

  it('the audit log fails closed: a call it cannot hold is refused, nothing done (a folder others can write, a link, a FIFO, a folder)', async () => {
    const {client, warnings} = await connect('read,act')
    expect((await client.callTool({name: 'list_sessions', arguments: {}})).isError).toBeFalsy()
    const mcp = join(root, 'state', 'mcp')
    const log = join(mcp, 'audit.jsonl')
    const {chmodSync, renameSync, symlinkSync, writeFileSync} = await import('node:fs')
    const {execFileSync} = await import('node:child_process')
    const refusedNow = async () =>
      expect(await client.callTool({name: 'list_sessions', arguments: {}})).toMatchObject({
        isError: true,
        structuredContent: {error: {code: 'mcp-audit', exit: 5, message: expect.stringMatching(/audit log .*did nothing/)}},
      })
    chmodSync(mcp, 0o777)
    await refusedNow()
    chmodSync(mcp, 0o700)
    renameSync(log, `${log}.kept`)
    for (const plant of [() => symlinkSync(join(root, 'elsewhere'), log), () => execFileSync('mkfifo', [log]), () => mkdirSync(log)]) {
      plant()
      await refusedNow()
      rmSync(log, {recursive: true, force: true})
    }
    writeFileSync(log, '')
    expect((await client.callTool({name: 'list_sessions', arguments: {}})).isError).toBeFalsy()
    expect(warnings.some((w) => /audit log could not be written/.test(w))).toBe(true)
    await client.close()
  })
})
