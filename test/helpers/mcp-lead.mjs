#!/usr/bin/env node
// A lead agent's stand-in: the MCP SDK's own client, running `pk mcp ARGS` as its child over stdio, from
// inside the pk session it runs in (so the server's caller is that session, by process identity). The test
// hands it calls as files DIR/in/N.json ({tool, args}) and reads each answer from DIR/out/N.json ({result,
// progress}), and DIR/out/N.json.progress how many progress notes it had so far; DIR/ready.json says it is connected, with the tools the server lists and the server's pid.
import {mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {CallToolResultSchema} from '@modelcontextprotocol/sdk/types.js'

const [dir, ...serverArgs] = process.argv.slice(2)
const pk = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'run.js')
const write = (path, data) => {
  writeFileSync(`${path}.tmp`, JSON.stringify(data))
  renameSync(`${path}.tmp`, path)
}
mkdirSync(join(dir, 'in'), {recursive: true})
mkdirSync(join(dir, 'out'), {recursive: true})
// (the SDK gives a server only a few variables unless told: pk mcp needs the session's, as an agent passes them)
const transport = new StdioClientTransport({command: process.execPath, args: [pk, 'mcp', ...serverArgs], env: {...process.env}, stderr: 'inherit'})
const client = new Client({name: 'pk-test-lead', version: '1.0.0'})
await client.connect(transport)
const {tools} = await client.listTools()
write(join(dir, 'ready.json'), {tools, serverPid: transport.pid, leadPid: process.pid})

const done = new Set()
for (;;) {
  for (const name of readdirSync(join(dir, 'in')).filter((n) => n.endsWith('.json') && !done.has(n))) {
    done.add(name)
    const {tool, args} = JSON.parse(readFileSync(join(dir, 'in', name), 'utf8'))
    const progress = []
    // (not awaited: a call may wait, wait_for, while the next one stops what it waits for)
    void client
      .callTool({name: tool, arguments: args}, CallToolResultSchema, {
        onprogress: (p) => {
          progress.push(p)
          write(join(dir, 'out', `${name}.progress`), progress.length)
        },
        resetTimeoutOnProgress: true,
        timeout: 600_000,
      })
      .catch((error) => ({protocolError: String(error)}))
      .then((result) => write(join(dir, 'out', name), {result, progress}))
  }
  await new Promise((r) => setTimeout(r, 30))
}
