import {Flags} from '@oclif/core'

import {Outcome, PkError} from '../lib/model/errors.js'
import {oclifArgs, oclifFlags, oclifStrict, PkCommand} from '../command-base.js'
import {bgCommand} from '../descriptors/bg.js'
import {bg, needTerminal} from '../bodies/bg.js'
import {presetNames} from '../lib/agents/presets.js'
import {worktreeWords} from '../lib/verbs/bg.js'
import {out} from '../invocation/output.js'

export default class Bg extends PkCommand {
  static override summary = 'Start an agent or any command in a new detached tmux session and print its id.'
  static override description = `Presets: ${presetNames().join(', ')}. Words after -- go to the agent, or are the command when no agent is named.
The argv reaches the program exactly as given (no shell). The pane gets the caller's environment.`
  static override examples = [
    '<%= config.bin %> bg claude',
    '<%= config.bin %> bg shell --name docs',
    '<%= config.bin %> bg codex -- --model o3',
    '<%= config.bin %> bg -- python3 -m http.server 8000',
    '<%= config.bin %> bg --json -- bash',
  ]
  static override strict = oclifStrict(bgCommand.spec)
  static override args = oclifArgs(bgCommand.spec, {agent: `agent preset (${presetNames().join(', ')})`})
  static override flags = {
    ...oclifFlags(bgCommand.spec),
    handoff: Flags.boolean({description: "from inside an agent: continue its conversation in a new session, then end the agent (Pi's /bg)"}),
    conversation: Flags.string({description: 'with --handoff: the conversation id (default: what its hook reported)', dependsOn: ['handoff']}),
    'agent-name': Flags.string({description: 'with --handoff: which agent is calling', dependsOn: ['handoff']}),
    worktree: Flags.boolean({description: 'run it in a new git worktree of the repository here (--worktree=BRANCH names the branch)'}),
    branch: Flags.string({description: 'with --worktree: the branch (new, or existing and checked out nowhere)', dependsOn: ['worktree']}),
    from: Flags.string({description: 'with --worktree: where a new branch starts (default: HEAD)', dependsOn: ['worktree']}),
  }

  protected override usageHint(message: string): string | null {
    return /^unknown flag|Unexpected argument/.test(message)
      ? "the agent's own words, or a command, go after --: pk bg claude -- --model opus, pk bg -- python3 -m http.server"
      : null
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    // Everything after the first `--` is the command, untouched by flag parsing.
    const split = this.argv.indexOf('--')
    // `--worktree=BRANCH` is `--worktree --branch BRANCH`, and so is `--worktree BRANCH` where BRANCH names
    // no agent preset (`pk bg --worktree feat1 -- cmd`; `pk bg --worktree claude` is claude in a new worktree).
    const before = split === -1 ? this.argv : this.argv.slice(0, split)
    const own = worktreeWords(before, presetNames((await ctx.config()).presets))
    const given = [...this.argv] // (parsing replaces this.argv)
    const {parsed, raw} = await this.parseBy(bgCommand, own, given)
    if (parsed.words.length > 1) throw new PkError('bad-flags', `unexpected arguments ${JSON.stringify(parsed.words.slice(1))}; put the command after --`)
    const input = bgCommand.input(parsed)

    needTerminal(input.attach, 'start without --attach')
    if (raw.handoff) {
      if (input.agent !== undefined || input.extra.length > 0)
        throw new PkError('bad-flags', '--handoff takes no agent or command: it resumes the calling agent')
      const {handoff} = await import('../lib/verbs/handoff.js')
      const moved = await handoff({ctx, conversationId: raw.conversation as string | undefined, agentName: raw['agent-name'] as string | undefined})
      out(moved.id + '\n')
      return
    }
    const worktree = raw.worktree ? {branch: raw.branch as string | undefined, from: raw.from as string | undefined} : null
    return bg(ctx, {...input, worktree})
  }
}
