import {Args, Flags} from '@oclif/core'

import {PkCommand, schemaHead} from '../command-base.js'
import {parseAnswer} from '../lib/agents/dialogs.js'
import {Outcome, PkError} from '../lib/model/errors.js'
import {NO_DIALOG, answerDialog} from '../lib/verbs/answer.js'
import {sendText} from '../lib/verbs/send.js'
import {readTextStdin} from '../invocation/input.js'
import {out, printJson} from '../invocation/output.js'

export default class Answer extends PkCommand {
  static override summary = "Answer what an agent waits on: a permission dialog with yes (once), always, no or a choice's number; a question with --text."
  static override description = `For a script, or a person on a phone over ssh: reads the session's screen, and only when it shows a
permission dialog pk knows (Claude Code's "Do you want to proceed?", Codex's "Would you like to run the
following command?", Gemini CLI's "Allow execution of ...?", opencode's "Permission required") types the keys
that agent takes for the answer: yes allows once, always allows from now on (or for the session, as the dialog
says), no refuses, N picks the dialog's choice N. Then it checks that the dialog left the screen. A tmux server
slow to answer is waited for, up to --timeout. Exit 0 then; 1 when the screen shows no such dialog (nothing
typed); 2 when the dialog has no such choice (nothing typed); 124 when tmux did not answer within --timeout
before anything was typed (pk could not look: safe to try again); 6 when the keys went in but pk could not
see the dialog leave (not typed again: look before answering again).
Claude Code's question with numbered choices is answered by number too (pk moves its mark there, then
Enter); no choice of a question means yes, always or no.
With --text instead of an answer, for a question that takes words (an agent's question tool): the session
must be waiting and show no permission dialog; the text is typed and submitted with the checks and exits of
pk send (a session that is not waiting is refused with exit 1, nothing typed); on Claude Code's question with
choices, into its "Type something." field. --stdin takes the text from standard input instead (it never
shows on a command line, which every user can read).
With --dialog DIGEST (what pk logs ID --screen --json says of the dialog), only that dialog is answered: one
that changed since (the agent asked about another command) is refused with exit 5, nothing typed; --dialog none
answers only while the screen shows no dialog pk reads (words for a question seen without one).`
  static override examples = [
    '<%= config.bin %> answer 3f9a yes',
    '<%= config.bin %> answer 3f9a no',
    '<%= config.bin %> answer 3f9a 2 --json',
    '<%= config.bin %> answer 3f9a --text "the staging database"',
    '<%= config.bin %> answer 3f9a yes --dialog 4025e3dfd5aa62b3',
  ]
  static override args = {
    // (never read from standard input: words piped in are text for --stdin, never an answer or an id)
    id: Args.string({description: 'session id or unique prefix', required: true, ignoreStdin: true}),
    answer: Args.string({description: 'yes, always, no, or the number of a choice (or --text)', required: false, ignoreStdin: true}),
  }
  static override flags = {
    text: Flags.string({description: 'answer a question that takes text with this text (instead of a choice)'}),
    stdin: Flags.boolean({description: 'as --text, with the text read from standard input (never on a command line)'}),
    dialog: Flags.string({
      description: 'answer only this dialog: its digest, as pk logs ID --screen --json gives it (another on the screen: refused, exit 5, nothing typed)',
    }),
    timeout: Flags.integer({description: 'seconds to wait for a slow tmux server (default 30)', default: 30, min: 0}),
    json: Flags.boolean({description: 'print {schema, id, agent, question, choice: {n, label}, confirmed} as JSON'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {args, flags} = await this.parse(Answer)
    if ([args.answer !== undefined, flags.text !== undefined, flags.stdin].filter(Boolean).length !== 1)
      throw new PkError('bad-flags', 'give an answer (yes, always, no or a number), --text TEXT or --stdin: one of them')
    if (flags.dialog !== undefined && !/^[0-9a-f]{16}$/.test(flags.dialog) && flags.dialog !== NO_DIALOG)
      throw new PkError(
        'bad-flags',
        `--dialog takes a dialog's digest (16 hex digits, pk logs ID --screen --json) or none, not ${JSON.stringify(flags.dialog)}`,
      )
    const words = flags.stdin ? await readTextStdin('pk answer') : flags.text
    if (words === '') throw new PkError('bad-text', 'no text to answer with: --text needs the words (Enter alone would pick whatever the screen highlights)')
    if (words !== undefined) {
      const sent = await sendText(args.id, this.ctx, words, {
        enter: true,
        timeoutMs: flags.timeout * 1000,
        whenIdle: false,
        answering: true,
        ...(flags.dialog === undefined ? {} : {dialog: flags.dialog}),
      })
      if (flags.json) printJson({...schemaHead('send'), ...sent})
      else out(`${sent.id}: answered with ${sent.bytes} bytes of text\n`)
      return
    }
    const answer = parseAnswer(args.answer!)
    if (answer === null) throw new PkError('bad-flags', `${JSON.stringify(args.answer)} is not an answer: yes, always, no, or a choice's number (1-9)`)
    const result = await answerDialog(args.id, this.ctx, answer, {
      timeoutMs: flags.timeout * 1000,
      ...(flags.dialog === undefined ? {} : {dialog: flags.dialog}),
    })
    if (flags.json) printJson({...schemaHead('answer'), ...result})
    else out(`${result.id}: ${result.choice.label}\n`)
  }
}
