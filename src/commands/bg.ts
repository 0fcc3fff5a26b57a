import {Args, Flags} from '@oclif/core'

import {Outcome, PkError} from '../lib/model/errors.js'
import {PkCommand} from '../command-base.js'
import {bg, needTerminal} from '../bodies/bg.js'
import {presetNames} from '../lib/agents/presets.js'
import {worktreeWords} from '../lib/verbs/bg.js'
import {exactArgs, exactFlagValue} from '../lib/model/bytes.js'
import {out} from '../output.js'

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
  static override strict = false
  static override args = {
    agent: Args.string({description: `agent preset (${presetNames().join(', ')})`, required: false}),
  }
  static override flags = {
    cwd: Flags.string({description: 'working directory (default: the current one)'}),
    name: Flags.string({description: 'display label (also the tmux session name, made safe)'}),
    socket: Flags.string({description: 'tmux socket name (like tmux -L) or path (like -S); default: pk'}),
    json: Flags.boolean({description: 'print the new session as JSON'}),
    attach: Flags.boolean({description: 'attach to the new session right away'}),
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
    // Words node could not decode as UTF-8 are read again from /proc, byte for byte (see lib/model/bytes.ts).
    const given = [...this.argv] // (parsing replaces this.argv)
    const extra = split === -1 ? [] : exactArgs(given).slice(split + 1)
    const {args, flags: parsed, argv} = await this.parse(Bg, own)
    const flags = {...parsed, cwd: parsed.cwd === undefined ? undefined : exactFlagValue(given, '--cwd', parsed.cwd)}
    if (argv.length > 1) throw new PkError('bad-flags', `unexpected arguments ${JSON.stringify(argv.slice(1))}; put the command after --`)

    needTerminal(Boolean(flags.attach), 'start without --attach')
    if (flags.handoff) {
      if (args.agent !== undefined || extra.length > 0) throw new PkError('bad-flags', '--handoff takes no agent or command: it resumes the calling agent')
      const {handoff} = await import('../lib/verbs/handoff.js')
      const moved = await handoff({ctx, conversationId: flags.conversation, agentName: flags['agent-name']})
      out(moved.id + '\n')
      return
    }
    return bg(ctx, {
      agent: args.agent,
      extra,
      cwd: flags.cwd,
      name: flags.name,
      socket: flags.socket,
      worktree: flags.worktree ? {branch: flags.branch, from: flags.from} : null,
      json: Boolean(flags.json),
      attach: Boolean(flags.attach),
    })
  }
}
