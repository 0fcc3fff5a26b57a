/**
 * Shell completion for bash, zsh and fish, generated from the commands themselves (their flags and
 * arguments, as oclif knows them), with live session ids from `pk __ids`, which the fast path answers
 * without loading oclif, so Tab stays instant. (@oclif/plugin-autocomplete's Node-20 major has neither
 * fish nor completion of live argument values, so pk writes these small scripts itself.)
 */

export interface CompletionCommand {
  id: string
  flags: string[]
  /** What its first argument is: live session ids, a fixed list, or nothing to offer. */
  arg: {ids: true} | {words: string[]} | null
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const
export type Shell = (typeof SHELLS)[number]

/** Commands whose arguments are session ids. */
export const ID_COMMANDS = ['attach', 'stop', 'resume', 'send', 'logs', 'wait']

const words = (list: string[]) => list.join(' ')

function bash(commands: CompletionCommand[]): string {
  const flagCases = commands.map((c) => `    ${c.id}) flags="${words(c.flags)}" ;;`).join('\n')
  const argCases = commands
    .filter((c) => c.arg !== null)
    .map((c) => `    ${c.id}) ${c.arg && 'ids' in c.arg ? 'args="$(pk __ids 2>/dev/null)"' : `args="${words((c.arg as {words: string[]}).words)}"`} ;;`)
    .join('\n')
  return `# pk completion for bash (and zsh, through bashcompinit): eval "$(pk completion bash)"
_pk_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="\${COMP_WORDS[1]}" flags="" args=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${words(commands.map((c) => c.id))}" -- "$cur"))
    return 0
  fi
  case "$cmd" in
${flagCases}
  esac
  case "$cmd" in
${argCases}
  esac
  case "$cur" in
    -*) COMPREPLY=($(compgen -W "$flags" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -W "$args" -- "$cur")) ;;
  esac
  return 0
}
complete -F _pk_complete pk
`
}

function zsh(commands: CompletionCommand[]): string {
  return `# pk completion for zsh: eval "$(pk completion zsh)"
autoload -U +X bashcompinit && bashcompinit
${bash(commands).split('\n').slice(1).join('\n')}`
}

function fish(commands: CompletionCommand[]): string {
  const lines = [`# pk completion for fish: pk completion fish | source`, 'complete -c pk -f']
  lines.push(`complete -c pk -n __fish_use_subcommand -a '${words(commands.map((c) => c.id))}'`)
  for (const c of commands) {
    for (const flag of c.flags) lines.push(`complete -c pk -n '__fish_seen_subcommand_from ${c.id}' -l ${flag.replace(/^--/, '')}`)
    if (c.arg && 'ids' in c.arg) lines.push(`complete -c pk -n '__fish_seen_subcommand_from ${c.id}' -a '(pk __ids 2>/dev/null)'`)
    else if (c.arg) lines.push(`complete -c pk -n '__fish_seen_subcommand_from ${c.id}' -a '${words(c.arg.words)}'`)
  }
  return lines.join('\n') + '\n'
}

/** Pure: the completion script for a shell. */
export function completionScript(shell: Shell, commands: CompletionCommand[]): string {
  return shell === 'bash' ? bash(commands) : shell === 'zsh' ? zsh(commands) : fish(commands)
}
