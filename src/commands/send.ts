import {Args, Flags} from '@oclif/core'

import {JSON_SCHEMA_VERSION, PkCommand} from '../command-base.js'
import {usageError} from '../lib/errors.js'
import {sendText} from '../lib/lifecycle.js'

async function readAll(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export default class Send extends PkCommand {
  static override summary = "Type text into a session's verified pane, then Enter."
  static override description = `The words are joined with spaces; --stdin reads the text instead (a trailing newline is dropped). The text
reaches the agent exactly: it goes to tmux through a pipe and is pasted (bracketed paste where the agent asked
for it, so several lines arrive as one message); nothing in it is read by tmux or a shell. Control characters
other than newline and tab are refused (exit 2). Refuses an exited session (exit 3).`
  static override examples = ['<%= config.bin %> send 3f9a "run the tests and fix what fails"', 'git diff | <%= config.bin %> send 3f9a --stdin', '<%= config.bin %> send 3f9a --no-enter "draft"']
  static override strict = false
  static override args = {id: Args.string({description: 'session id or unique prefix', required: true})}
  static override flags = {
    stdin: Flags.boolean({description: 'read the text from standard input'}),
    enter: Flags.boolean({description: 'press Enter after the text (--no-enter: do not)', default: true, allowNo: true}),
    json: Flags.boolean({description: 'print {schema, id, bytes, enter} as JSON'}),
  }

  async run(): Promise<void> {
    const {args, argv, flags} = await this.parse(Send)
    const words = argv.slice(1).map(String)
    if (flags.stdin && words.length > 0) throw usageError('bad-text', 'give the text as words or with --stdin, not both')
    const text = flags.stdin ? (await readAll()).replace(/\r?\n$/, '') : words.join(' ')
    const sent = await sendText(args.id, process.env, text, {enter: flags.enter})
    if (flags.json) this.printJson({schema: JSON_SCHEMA_VERSION, ...sent})
  }
}
