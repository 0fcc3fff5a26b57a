import {describeCommand} from './descriptor.js'

export const sendCommand = describeCommand({
  spec: {
    args: [
      {name: 'id', description: 'session id or unique prefix', required: true},
      {name: 'text', description: 'the words to type (several: joined with spaces)'},
    ],
    variadic: true,
    flags: {
      stdin: {type: 'boolean', description: 'read the text from standard input'},
      enter: {type: 'boolean', description: 'press Enter after the text (--no-enter: do not)', default: true, allowNo: true},
      'enter-only': {
        type: 'boolean',
        description: 'press Enter alone, with no text (an agent waiting on a dialog is refused: answer it with pk answer)',
      },
      'when-idle': {type: 'boolean', description: 'wait for a running turn to end before typing'},
      timeout: {type: 'integer', description: 'seconds to wait for the agent to be ready for input (default 30)', default: 30, min: 0},
      json: {type: 'boolean', description: 'print {schema, id, bytes, enter, submitted, enters, state} as JSON'},
    },
  },
  input: ({flags, words}) => ({
    id: words[0]!,
    words: words.slice(1),
    stdin: flags.stdin,
    enter: flags.enter,
    enterOnly: flags['enter-only'],
    whenIdle: flags['when-idle'],
    timeout: flags.timeout,
    json: flags.json,
  }),
  looksFirst: true,
  run: async (ctx, input) => (await import('../bodies/send.js')).send(ctx, input),
})
