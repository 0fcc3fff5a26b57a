import {describeCommand} from './descriptor.js'

export const resumeCommand = describeCommand({
  spec: {
    args: [{name: 'id', description: 'id or unique prefix of an exited session', required: true}],
    flags: {
      attach: {type: 'boolean', description: 'attach to the new session right away'},
      json: {type: 'boolean', description: 'print {schema, session, resumedFrom} as JSON'},
    },
  },
  input: ({flags, words}) => ({id: words[0]!, json: flags.json, attach: flags.attach}),
  looksFirst: false,
  run: async (ctx, input) => (await import('../bodies/bg.js')).resume(ctx, input),
})
