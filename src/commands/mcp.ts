import {Flags} from '@oclif/core'

import {PkCommand} from '../command-base.js'
import {Outcome} from '../lib/model/errors.js'
import {out, say} from '../invocation/output.js'

export default class Mcp extends PkCommand {
  static override summary = "An MCP server on stdio: pk's verbs as tools, so that one agent can start, watch and land others."
  static override description = `Started by an agent (pk setup AGENT --mcp registers it), it lives as long as that agent. Its tools:
list_sessions, start_session, send_message, answer_dialog, wait_for, read_session, session_changes,
stop_session, land_session, each one of pk's verbs under the same checks (docs/mcp.md). Who calls is a kernel
fact: the session the server runs under, found by process identity among its ancestors (outside every
session, the server itself). A session started through it records the caller as its parent.
--allow sets what it may do (comma-separated; default read,act): read lists, reads, waits and shows changes
anywhere; act starts agent presets as pk starts them and sends to, answers and stops only the caller's own children; fleet extends
act to every session; land lands the caller's children's work; exec lets start_session run any command or
give an agent arguments. A bad --allow exits 2 on a terminal; started by an agent, pk mcp says why on every
call and on standard error. Guard rails against a confused or injected
agent, not a sandbox: an agent with a shell as you can run pk itself. What another session's agent wrote
comes back marked untrusted. Every call is appended to STATE/mcp/audit.jsonl. --off makes every running pk
mcp refuse every call at once, until --on. Exit 5 in a pid namespace other than the state directory's.`
  static override examples = [
    '<%= config.bin %> mcp',
    '<%= config.bin %> mcp --allow read',
    '<%= config.bin %> mcp --allow read,act,land',
    '<%= config.bin %> mcp --off',
    '<%= config.bin %> mcp --on',
  ]
  static override flags = {
    allow: Flags.string({description: 'what it may do: read, act, exec, fleet, land (comma-separated)', default: 'read,act'}),
    off: Flags.boolean({description: 'make every running pk mcp refuse every call, until --on', exclusive: ['on']}),
    on: Flags.boolean({description: 'let pk mcp servers take calls again', exclusive: ['off']}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {flags} = await this.parse(Mcp)
    const ctx = this.ctx
    const {parseRights} = await import('../lib/mcp/rights.js')
    // A bad --allow where a person runs it: exit 2. Where an agent started it (stdin a pipe), the agent shows
    // only "Connection closed" for an exit: the server runs, and says why on every call and on stderr.
    let rights: ReturnType<typeof parseRights>
    let broken: string | null = null
    try {
      rights = parseRights(flags.allow)
    } catch (error) {
      if (flags.off || flags.on || process.stdin.isTTY) throw error
      broken = `pk mcp was started with a bad --allow (${(error as Error).message}); fix it in the agent's MCP configuration: pk setup AGENT --mcp --allow read,act`
      say(`pk: ${broken}\n`)
      rights = new Set()
    }
    if (flags.off || flags.on) {
      const [{turnOff, turnOn}, {withWriteAccess}] = await Promise.all([import('../lib/registry/mcp-switch.js'), import('../lib/registry/ownership.js')])
      const state = ctx.writeState()
      await withWriteAccess(state, () => (flags.off ? turnOff(state, `pk mcp --off at ${new Date().toISOString()}`) : turnOn(state)))
      out(flags.off ? 'pk mcp: off: every pk MCP server refuses every call until pk mcp --on\n' : 'pk mcp: on\n')
      return
    }
    if (process.stdin.isTTY) say('pk mcp speaks MCP on stdin and stdout: an agent starts it (pk setup claude --mcp); Ctrl-D ends it\n')
    const {assertMayWrite} = await import('../lib/registry/ownership.js')
    // (its callers are named by pid: a pk in another pid namespace cannot tell them, and writes nothing)
    assertMayWrite(ctx.writeState())
    const {runMcpServer} = await import('../lib/mcp/server.js')
    const {StdioServerTransport} = await import('@modelcontextprotocol/sdk/server/stdio.js')
    // (stdout is the MCP stream; a stdin that ends ends the server, as the agent that started it going does)
    const transport = new StdioServerTransport(process.stdin, process.stdout)
    process.stdin.once('end', () => void transport.close())
    await runMcpServer({ctx, rights, version: this.config.version, transport, setupOutput: process.stderr, warn: say, broken})
  }
}
