import {Args, Flags} from '@oclif/core'

import {PkCommand} from '../command-base.js'
import {describeError, PkError, Outcome} from '../lib/model/errors.js'
import {taskList} from '../invocation/progress.js'
import {pkArgv} from '../lib/setup/common.js'
import {SETUP_AGENTS, planMcpSetup, planSetup, setupAgents} from '../lib/setup/index.js'
import {say, write} from '../invocation/output.js'
import {autostartText, setupText} from '../lib/present/verbs.js'
import {Env} from '../lib/registry/state-dir.js'

export default class Setup extends PkCommand {
  static override summary = "Install pk's integration into an agent (hooks, notify program, extension or plugin), or autostart."
  static override description = `claude: hooks in ~/.claude/settings.json. codex: the notify program in ~/.codex/config.toml.
gemini: hooks in ~/.gemini/settings.json. opencode: a plugin in ~/.config/opencode/plugins/pk.js that reports state
and each answer's tokens and cost. pi: an extension in ~/.pi/agent/extensions/pk.js that reports state and adds /bg.
Idempotent; keeps your other settings; backs up any file it changes (FILE.pk-backup-TIME).
autostart: what runs pk restore --yes once after a reboot, on the machine's own service manager (a launchd agent on macOS): a systemd user
unit (pk-restore.service) where a user manager answers, else an @reboot crontab entry. --remove takes it away.
--mcp: pk mcp (an MCP server of pk's verbs, docs/mcp.md) in the agent's own MCP configuration, at user scope, with
the rights --allow gives (default read,act): claude ~/.claude.json, codex ~/.codex/config.toml, gemini
~/.gemini/settings.json, opencode ~/.config/opencode/opencode.json. --mcp --remove takes it out.`
  static override examples = [
    '<%= config.bin %> setup claude',
    '<%= config.bin %> setup claude codex gemini',
    '<%= config.bin %> setup codex --print',
    '<%= config.bin %> setup claude --mcp',
    '<%= config.bin %> setup codex --mcp --allow read,act,land',
    '<%= config.bin %> setup claude --mcp --remove',
    '<%= config.bin %> setup autostart',
    '<%= config.bin %> setup autostart --remove',
  ]
  static override strict = false
  static override args = {
    agent: Args.string({description: `${SETUP_AGENTS.join(', ')} (several allowed), or autostart`, required: true}),
  }
  static override flags = {
    print: Flags.boolean({description: 'show the file as it would be written; change nothing'}),
    remove: Flags.boolean({description: 'with autostart or --mcp: take it away'}),
    mcp: Flags.boolean({description: "register pk mcp in the agent's own MCP configuration, at user scope (claude, codex, gemini, opencode)"}),
    allow: Flags.string({description: 'with --mcp: the rights pk mcp gets (read, act, exec, fleet, land; comma-separated; default read,act)'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    const {args, argv, flags} = await this.parse(Setup)
    if (args.agent === 'autostart') return this.autostart(flags, ctx.env)
    if (flags.remove && !flags.mcp) throw new PkError('bad-flags', '--remove goes with pk setup autostart, or with --mcp')
    // (the rights are pk mcp's: without --mcp they would be taken and do nothing)
    if (flags.allow !== undefined && (!flags.mcp || flags.remove))
      throw new PkError('bad-flags', `--allow goes with --mcp: pk setup ${args.agent} --mcp --allow ${flags.allow}`)
    const agents = [args.agent, ...argv.slice(1).map(String)]
    if (agents.includes('autostart')) throw new PkError('bad-flags', 'pk setup autostart goes alone')
    let allow: string | null = null
    if (flags.mcp && !flags.remove) allow = [...(await import('../lib/mcp/rights.js')).parseRights(flags.allow ?? 'read,act')].join(',')
    const plan = (agent: string) => (flags.mcp ? planMcpSetup(agent, ctx.env, allow) : planSetup(agent, ctx.env))
    if (flags.print) {
      for (const agent of agents) write(setupText(await plan(agent), {printed: true}))
      return
    }
    const progress = agents.length > 1 && process.stdout.isTTY ? await taskList() : undefined
    const results = await setupAgents(ctx, agents, progress, plan)
    await progress?.finished()
    for (const {change, backup} of results) if (backup !== undefined) write(setupText(change, {backup}))
    const failed = results.filter((r) => r.error !== undefined)
    for (const {error} of failed) say(`pk: ${describeError(error).message}\n`)
    return failed.length === 0 ? 'ok' : {firstFailure: failed[0]!.error}
  }

  private async autostart(flags: {print: boolean; remove: boolean}, env: Env): Promise<void> {
    const service = await import('../lib/verbs/service.js')
    if (flags.remove) {
      write(autostartText({removed: await service.removeAutostart(env)}))
      return
    }
    const plan = await service.planAutostart(pkArgv(), env)
    if (flags.print) {
      write(autostartText({printed: plan}))
      return
    }
    write(autostartText({installed: await service.installAutostart(plan, env), manager: plan.manager}))
  }
}
