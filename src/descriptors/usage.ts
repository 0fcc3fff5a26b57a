import {describeCommand} from './descriptor.js'

export const usageCommand = describeCommand({
  spec: {
    args: [{name: 'id', description: 'only this session (id or unique prefix)'}],
    flags: {
      since: {type: 'string', description: 'only since then: 12h, 3d, 2w, or a date (YYYY-MM-DD)'},
      by: {type: 'option', options: ['session', 'agent', 'day'], default: 'session', description: 'one line per session (default), agent or day'},
      json: {type: 'boolean', description: 'print {schema, by, since, lines, total} as JSON'},
    },
  },
  input: ({flags, words}) => ({id: words[0], since: flags.since, by: flags.by, json: flags.json}),
  looksFirst: true,
  run: async (ctx, input) => (await import('../bodies/usage.js')).usage(ctx, input),
})
