import {Args, Flags} from '@oclif/core'

import {PkCommand} from '../command-base.js'
import type {Outcome} from '../lib/model/errors.js'
import {logHookError} from '../lib/events/hook.js'
import {hook, hookInput} from '../bodies/hook.js'

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
    // (only --json and --help come this way: every other form is the fast path's, by the same body)
    await hook(this.ctx, hookInput(this.argv))
  }
}
