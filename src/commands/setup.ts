import {Args, Flags} from '@oclif/core'

import {PkCommand} from '../command-base.js'
import {SETUP_AGENTS, applyChange, enrolStateDir, planSetup} from '../lib/setup/index.js'

export default class Setup extends PkCommand {
  static override summary = "Install pk's integration into an agent (hooks, notify program, or extension)."
  static override description = `claude: hooks in ~/.claude/settings.json. codex: the notify program in ~/.codex/config.toml.
pi: an extension in ~/.pi/agent/extensions/pk.js that reports state and adds /bg.
Idempotent; keeps your other settings; backs up any file it changes (FILE.pk-backup-TIME).`
  static override examples = ['<%= config.bin %> setup claude', '<%= config.bin %> setup codex --print']
  static override args = {
    agent: Args.string({description: SETUP_AGENTS.join(', '), required: true}),
  }
  static override flags = {
    print: Flags.boolean({description: 'show the file as it would be written; change nothing'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Setup)
    const change = await planSetup(args.agent, process.env)
    if (flags.print) {
      process.stdout.write(`# ${change.file} (${change.changed ? 'would change' : 'unchanged'})\n${change.after}`)
      return
    }
    if (!change.changed) {
      process.stdout.write(`${change.agent}: ${change.notes.join('; ')} (${change.file})\n`)
      return
    }
    const backup = applyChange(change)
    // The agent's hook writes into pk's state directory only once it exists and names its owner.
    await enrolStateDir(process.env).catch(() => {})
    process.stdout.write(`${change.agent}: installed ${change.notes.join('; ')} in ${change.file}${backup ? ` (backup: ${backup})` : ''}\n`)
  }
}
