import {describeCommand} from './descriptor.js'

export const stopCommand = describeCommand({
  spec: {
    args: [{name: 'id', description: 'session id or unique prefix (several allowed)'}],
    variadic: true,
    flags: {
      all: {type: 'boolean', description: 'every live session pk ls lists, with its filters (--state, --agent, --attention)'},
      state: {type: 'string', description: 'with --all: only sessions in these states, comma-separated'},
      agent: {type: 'string', description: 'with --all: only sessions of this agent'},
      attention: {type: 'boolean', description: 'with --all: only sessions that need you'},
      force: {type: 'boolean', description: 'SIGKILL at once'},
      timeout: {type: 'integer', description: 'seconds to wait after SIGTERM before SIGKILL', default: 10, min: 0},
      json: {type: 'boolean', description: 'print {schema, stopped, failed} as JSON'},
    },
  },
  input: ({flags, words}) => ({
    ids: words,
    all: flags.all,
    filters: {state: flags.state, attention: flags.attention, agent: flags.agent},
    force: flags.force,
    timeout: flags.timeout,
    json: flags.json,
  }),
  looksFirst: true,
  run: async (ctx, input) => (await import('../bodies/stop.js')).stop(ctx, input),
})
