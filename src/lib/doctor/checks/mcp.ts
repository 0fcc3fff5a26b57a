import {Check} from '../types.js'

/** pk mcp's kill switch (docs/mcp.md): when it is off, every pk MCP server refuses every call; say so, and how to turn it on. */
export const mcpCheck: Check = {
  id: 'mcp',
  title: 'pk mcp servers take calls',
  judge(facts) {
    const off = facts.mcpOff ?? null
    if (off === null) return {status: 'pass', message: 'on (pk mcp --off turns every server off at once)', fix: null, fixable: false}
    return {status: 'warn', message: `off since ${off.at} (${off.why}): every pk MCP server refuses every call`, fix: 'pk mcp --on', fixable: false}
  },
}
