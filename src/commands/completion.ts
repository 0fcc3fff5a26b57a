import {Args} from '@oclif/core'

import type {Outcome} from '../lib/model/errors.js'
import {PkCommand} from '../command-base.js'
import {presetNames} from '../lib/agents/presets.js'
import {CompletionCommand, CompletionFlag, ID_COMMANDS, SHELLS, completionScript} from '../lib/cli/completion.js'
import {SETUP_AGENTS} from '../lib/setup/index.js'
import {out} from '../invocation/output.js'

export default class Completion extends PkCommand {
  static override summary = 'Print the shell completion script for bash, zsh or fish.'
  static override description = `Completes commands, flags, presets, and live session ids (for attach, stop, resume, send, logs, wait).
bash: add eval "$(pk completion bash)" to ~/.bashrc. zsh: eval "$(pk completion zsh)" in ~/.zshrc.
fish: pk completion fish > ~/.config/fish/completions/pk.fish`
  static override examples = ['<%= config.bin %> completion bash >> ~/.bashrc', '<%= config.bin %> completion fish > ~/.config/fish/completions/pk.fish']
  static override args = {shell: Args.string({description: SHELLS.join(', '), options: [...SHELLS], required: true})}

  protected async execute(): Promise<Outcome | void> {
    const {args} = await this.parse(Completion)
    const fixed: Record<string, string[]> = {bg: presetNames(), setup: [...SETUP_AGENTS, 'autostart'], completion: [...SHELLS]}
    const commands: CompletionCommand[] = this.config.commands
      .filter((c) => !c.hidden)
      .map((c) => ({
        id: c.id,
        summary: (c.summary ?? c.description?.split('\n')[0] ?? c.id).replaceAll('<%= config.bin %>', 'pk'),
        flags: Object.entries(c.flags)
          .filter(([, f]) => !f.hidden)
          .flatMap(([name, f]): CompletionFlag[] => {
            const value: CompletionFlag['value'] =
              f.type === 'boolean' ? null : name === 'cwd' ? 'dirs' : 'options' in f && f.options ? {words: [...f.options]} : 'any'
            const flag = {name, description: f.description ?? name, value}
            return f.type === 'boolean' && f.allowNo ? [flag, {name: `no-${name}`, description: `not: ${f.description ?? name}`, value: null}] : [flag]
          }),
        arg: ID_COMMANDS[c.id] ? {ids: ID_COMMANDS[c.id]!} : fixed[c.id] ? {words: fixed[c.id]!} : null,
      }))
      .sort((a, b) => a.id.localeCompare(b.id))
    out(completionScript(args.shell as (typeof SHELLS)[number], commands))
  }
}
