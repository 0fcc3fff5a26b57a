import {Args, Flags} from '@oclif/core'

import {PkCommand} from '../command-base.js'
import {PkError, Outcome} from '../lib/model/errors.js'
import {HOOK_DEADLINE_MS, HOOK_MIN_WORK_MS, logHookError, takeHookEvent} from '../lib/events/hook.js'
import {say} from '../output.js'
import {readStdin} from '../input.js'

export default class Hook extends PkCommand {
  /** A misconfigured hook (unknown flag, anything) still never fails the agent: logged, exit 0. */
  protected override async catch(error: Error): Promise<unknown> {
    logHookError(this.ctx, process.argv[3] ?? '(no agent)', error)
    return undefined
  }

  static override summary = "Record an agent's state, called from the agent's own hook system."
  static override description = `Claude Code: JSON on stdin. Codex notify and the Pi extension: JSON as the last argument.
Finds its session by walking its process ancestry to a recorded session or a tmux pane, never by
an environment variable. Always exits 0 so it cannot break the agent; its errors go to hook.log
in the state directory. pk setup AGENT installs the integration.`
  static override examples = [
    `echo '{"hook_event_name":"Notification","session_id":"abc"}' | <%= config.bin %> hook claude`,
    `<%= config.bin %> hook codex '{"type":"agent-turn-complete","thread-id":"t1"}'`,
  ]
  static override strict = false
  static override args = {
    agent: Args.string({description: 'which agent is calling (claude, codex, gemini, opencode, pi, or a preset name)'}),
  }
  static override flags = {
    json: Flags.boolean({description: 'print what was recorded (for debugging)'}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    // The agent waits for this process: end it at the deadline whatever is still pending (a stuck lock,
    // a stopped server, stdin that never closes). Writes are atomic, so stopping mid-way tears nothing.
    // On a machine so loaded that starting node took most of the second, the work still gets a fair
    // share (HOOK_MIN_WORK_MS) rather than nothing: the deadline is for what pk waits on, not node's start.
    const end = Math.max(HOOK_DEADLINE_MS, performance.now() + HOOK_MIN_WORK_MS)
    const left = () => Math.max(0, end - performance.now())
    this.succeedAt(left())
    const {args, argv, flags} = await this.parse(Hook)
    const positional = argv.slice(1).map(String)
    if (args.agent === undefined) {
      logHookError(ctx, '(no agent)', new Error('pk hook was called without the agent name (pk hook AGENT [PAYLOAD]); run pk setup AGENT again'))
      return
    }
    try {
      const payload = positional.length > 0 ? positional.at(-1)! : await readStdin(Math.min(500, left()))
      const {report, file} = await takeHookEvent(ctx, args.agent, payload)
      if (flags.json)
        this.printJson({
          spooled: file !== null,
          file,
          state: report?.state ?? null,
          reason:
            report === null
              ? 'event carries no state'
              : file === null
                ? 'this pk may not write the state directory'
                : 'pending; pk notify --fold applies it to the session its sender runs in, if any',
        })
    } catch (error) {
      // A refusal (foreign pid namespace, unsafe state) writes nothing, not even a log line.
      if (error instanceof PkError && error.exitCode === 5) say(`pk hook: ${error.message}\n`)
      else logHookError(ctx, args.agent, error)
      if (flags.json) this.printJson({recorded: false, id: null, reason: error instanceof Error ? error.message : String(error)})
    }
  }
}
