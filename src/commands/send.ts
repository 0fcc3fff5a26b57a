import {oclifArgs, oclifFlags, oclifStrict, PkCommand} from '../command-base.js'
import {sendCommand} from '../descriptors/send.js'
import type {Outcome} from '../lib/model/errors.js'

export default class Send extends PkCommand {
  static override summary = "Type text into a session's verified pane and submit it; say whether the agent took it."
  static override description = `The words are joined with spaces; --stdin reads the text instead (a trailing newline is dropped). The text
reaches the agent exactly: it goes to tmux through a pipe and is pasted (bracketed paste where the agent asked
for it, so several lines arrive as one message); nothing in it is read by tmux or a shell. Control characters
other than newline and tab are refused (exit 2). Refuses an exited session (exit 3).
First it waits (up to --timeout) until the agent is ready for input: its prompt on the screen or its hook's
report; an agent waiting on a dialog is refused (exit 1), since the text would answer it. --when-idle also
waits for a running turn to end. After the paste shows, Enter; the screen must change (the prompt left the
input box). When it does not and the text is still to be seen in the input, Enter once more, else exit 6: the
text waits in the input. When the text is not to be seen there, exit 6 too (not confirmed): pk cannot tell,
and never presses twice. Every tmux call waits within --timeout for a slow server: before the paste, one that
did not answer in time is exit 124 (nothing typed, safe to retry); from the paste on, exit 6, never exit 1. To a plain command (no agent) the text and one Enter go at once: nothing says whether
it took the line, so --json says "submitted": null. Text on --stdin must be UTF-8. No text is a usage error
(exit 2): --enter-only presses Enter alone.`
  static override examples = [
    '<%= config.bin %> send 3f9a "run the tests and fix what fails"',
    'git diff | <%= config.bin %> send 3f9a --stdin',
    '<%= config.bin %> send 3f9a --no-enter "draft"',
  ]
  static override usage = 'send ID TEXT... [--stdin] [--no-enter] [--enter-only] [--when-idle] [--timeout <value>] [--json]'
  static override strict = oclifStrict(sendCommand.spec)
  static override args = oclifArgs(sendCommand.spec)
  static override flags = oclifFlags(sendCommand.spec)

  protected async execute(): Promise<Outcome | void> {
    return sendCommand.run(this.ctx, sendCommand.input((await this.parseBy(sendCommand)).parsed))
  }
}
