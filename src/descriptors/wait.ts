import {describeCommand} from './descriptor.js'

export const waitCommand = describeCommand({
  spec: {
    args: [{name: 'id', description: 'session id or unique prefix (several: one per argument)'}],
    variadic: true,
    flags: {
      for: {type: 'option', description: 'the state to wait for (default: needs you)', options: ['waiting', 'limited', 'idle', 'exited']},
      all: {type: 'boolean', description: 'with several ids: until every one has (the default)'},
      any: {type: 'boolean', description: 'with several ids: until one has'},
      timeout: {type: 'integer', description: 'give up after this many seconds (exit 124)', min: 0},
      'all-sessions': {type: 'boolean', description: 'instead of ids: every session pk ls lists, present and started while it waits, until any one gets there'},
      agent: {type: 'string', description: 'with --all-sessions: only sessions of this agent'},
      children: {type: 'string', description: 'instead of ids: the sessions this session started (its children, by identity), until all (or --any) get there'},
      next: {type: 'boolean', description: 'only what happens after the wait began: the next turn to end, not the state already there'},
      json: {
        type: 'boolean',
        description: 'print {schema, sessions: [{id, agent, label, state, attention, attentionSince, exitStatus}]} of those that got there',
      },
    },
    exclusive: [['all', 'any']],
  },
  input: ({flags, words}) => ({
    ids: words,
    for: flags.for,
    any: flags.any,
    next: flags.next,
    agent: flags.agent,
    allSessions: flags['all-sessions'],
    children: flags.children,
    timeout: flags.timeout,
    json: flags.json,
  }),
  looksFirst: true,
  run: async (ctx, input) => (await import('../bodies/wait.js')).wait(ctx, input),
})
