import {describeCommand} from './descriptor.js'

export const logsCommand = describeCommand({
  spec: {
    args: [{name: 'id', description: 'session id or unique prefix', required: true}],
    flags: {
      lines: {type: 'integer', char: 'n', description: 'how many lines of its screen and history (default 200; not with --screen)', min: 1},
      follow: {type: 'boolean', char: 'f', description: 'keep printing new lines until the session ends'},
      color: {type: 'boolean', description: 'keep colours and other escape codes'},
      screen: {type: 'boolean', description: 'what the pane shows now, and (--json) the dialog or question it waits on'},
      json: {type: 'boolean', description: 'print as JSON'},
    },
  },
  input: ({flags, words}) => ({id: words[0]!, lines: flags.lines, follow: flags.follow, color: flags.color, screen: flags.screen, json: flags.json}),
  looksFirst: true,
  run: async (ctx, input) => (await import('../bodies/logs.js')).logs(ctx, input),
})
