import {Args, Flags} from '@oclif/core'

import {JSON_SCHEMA_VERSION, PkCommand} from '../command-base.js'
import {PkError, Outcome} from '../lib/model/errors.js'
import {sendText} from '../lib/verbs/send.js'

async function readAll(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export default class Send extends PkCommand {
  static override summary = "Type text into a session's verified pane and submit it; say whether the agent took it."
  static override description = `The words are joined with spaces; --stdin reads the text instead (a trailing newline is dropped). The text
reaches the agent exactly: it goes to tmux through a pipe and is pasted (bracketed paste where the agent asked
for it, so several lines arrive as one message); nothing in it is read by tmux or a shell. Control characters
other than newline and tab are refused (exit 2). Refuses an exited session (exit 3).
First it waits (up to --timeout) until the agent is ready for input: its prompt on the screen or its hook's
report; an agent waiting on a dialog is refused (exit 1), since the text would answer it. --when-idle also
waits for a running turn to end. After the paste shows, Enter; the screen must change (the prompt left the
input box), else Enter once more, else exit 1: the text is typed but not submitted. No text is a usage error
(exit 2): --enter-only presses Enter alone.`
  static override examples = [
    '<%= config.bin %> send 3f9a "run the tests and fix what fails"',
    'git diff | <%= config.bin %> send 3f9a --stdin',
    '<%= config.bin %> send 3f9a --no-enter "draft"',
  ]
  static override strict = false
  static override args = {id: Args.string({description: 'session id or unique prefix', required: true})}
  static override flags = {
    stdin: Flags.boolean({description: 'read the text from standard input'}),
    enter: Flags.boolean({description: 'press Enter after the text (--no-enter: do not)', default: true, allowNo: true}),
    'enter-only': Flags.boolean({description: 'press Enter alone, with no text (in a dialog it confirms the highlighted choice)'}),
    'when-idle': Flags.boolean({description: 'wait for a running turn to end before typing'}),
    timeout: Flags.integer({description: 'seconds to wait for the agent to be ready for input (default 30)', default: 30, min: 0}),
    json: Flags.boolean({description: 'print {schema, id, bytes, enter, submitted, enters, state} as JSON'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    const {args, argv, flags} = await this.parse(Send)
    const words = argv.slice(1).map(String)
    if (flags.stdin && words.length > 0) throw new PkError('bad-text', 'give the text as words or with --stdin, not both')
    if (flags['enter-only'] && (words.length > 0 || flags.stdin)) throw new PkError('bad-text', '--enter-only presses Enter alone; give no text with it')
    const text = flags.stdin ? (await readAll()).replace(/\r?\n$/, '') : words.join(' ')
    // Enter alone confirms whatever is highlighted in a dialog: only when asked for by name.
    if (text === '' && !flags['enter-only']) throw new PkError('bad-text', 'no text to send (pk send ID TEXT); --enter-only presses Enter alone')
    const sent = await sendText(args.id, ctx, text, {enter: flags.enter || flags['enter-only'], timeoutMs: flags.timeout * 1000, whenIdle: flags['when-idle']})
    if (flags.json) this.printJson({schema: JSON_SCHEMA_VERSION, ...sent})
  }
}
