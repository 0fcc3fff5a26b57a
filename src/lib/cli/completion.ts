/**
 * Shell completion for bash, zsh and fish, generated from the commands themselves (their flags and
 * arguments, as oclif knows them), with live session ids from `pk __ids`, which the fast path answers
 * without loading oclif, so Tab stays instant. (@oclif/plugin-autocomplete's Node-20 major has neither
 * fish nor completion of live argument values, so pk writes these small scripts itself.)
 */

export interface CompletionFlag {
  name: string
  description: string
  /** What its value is: a fixed list, directories, or nothing to offer (a boolean takes none). */
  value: {words: string[]} | 'dirs' | 'any' | null
}

export interface CompletionCommand {
  id: string
  summary: string
  flags: CompletionFlag[]
  /** What its first argument is: session ids (every listed one, or only live ones), a fixed list, or nothing. */
  arg: {ids: 'all' | 'live'} | {words: string[]} | null
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const
export type Shell = (typeof SHELLS)[number]

/** Commands whose arguments are session ids; those that act on a live session are offered live ones only. */
export const ID_COMMANDS: Record<string, 'all' | 'live'> = {
  attach: 'live',
  stop: 'live',
  send: 'live',
  wait: 'live',
  answer: 'live',
  resume: 'all',
  logs: 'all',
  usage: 'all',
  diff: 'all',
  land: 'all',
  prune: 'all',
  ls: 'all',
}

const words = (list: string[]) => list.join(' ')
const idsCommand = (which: 'all' | 'live') => `pk __ids${which === 'live' ? ' live' : ''} 2>/dev/null`

function bash(commands: CompletionCommand[]): string {
  const flagCases = commands.map((c) => `    ${c.id}) flags="${words(c.flags.map((f) => `--${f.name}`))}" ;;`).join('\n')
  const argCases = commands
    .filter((c) => c.arg !== null)
    .map((c) => `    ${c.id}) ${c.arg && 'ids' in c.arg ? `args="$(${idsCommand(c.arg.ids)})"` : `args="${words((c.arg as {words: string[]}).words)}"`} ;;`)
    .join('\n')
  const valueCases = [
    ...new Map(commands.flatMap((c) => c.flags.filter((f) => f.value !== null && f.value !== 'any').map((f) => [`${c.id} --${f.name}`, f] as const))).entries(),
  ]
    .map(
      ([key, f]) =>
        `    "${key}") ${f.value === 'dirs' ? 'COMPREPLY=($(compgen -d -- "$cur"))' : `COMPREPLY=($(compgen -W "${words((f.value as {words: string[]}).words)}" -- "$cur"))`}; return 0 ;;`,
    )
    .join('\n')
  return `# pk completion for bash: eval "$(pk completion bash)"
_pk_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="\${COMP_WORDS[1]}" flags="" args=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${words(commands.map((c) => c.id))}" -- "$cur"))
    return 0
  fi
  case "$cmd $prev" in
${valueCases}
  esac
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

/** A description as zsh's _arguments and _describe take it: no brackets, colons or quotes. */
const zshText = (text: string) =>
  text
    .replaceAll("'", '’')
    .replaceAll(/[[\]:"\\`$]/g, ' ')
    .replaceAll(/\s+/g, ' ')
    .trim()

function zsh(commands: CompletionCommand[]): string {
  const described = commands.map((c) => `    '${c.id}:${zshText(c.summary)}'`).join('\n')
  const cases = commands
    .map((c) => {
      const specs = c.flags.map((f) => {
        const value = f.value === null ? '' : f.value === 'dirs' ? ':directory:_files -/' : f.value === 'any' ? ':value: ' : `:value:(${words(f.value.words)})`
        return `'--${f.name}${f.value === null ? '' : '='}[${zshText(f.description)}]${value}'`
      })
      if (c.arg && 'ids' in c.arg) specs.push(`'*:session:_pk_ids ${c.arg.ids}'`)
      else if (c.arg) specs.push(`'1:value:(${words(c.arg.words)})'`)
      return `    ${c.id}) _arguments ${specs.join(' ')} ;;`
    })
    .join('\n')
  return `# pk completion for zsh: eval "$(pk completion zsh)" in ~/.zshrc (compinit is loaded when it is not yet)
(( $+functions[compdef] )) || { autoload -Uz compinit && compinit -u }
_pk_ids() {
  local -a ids
  ids=(\${(f)"$(pk __ids \${1:#all} 2>/dev/null)"})
  _describe 'session' ids
}
_pk() {
  local -a commands
  commands=(
${described}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local cmd=$words[2]
  shift words
  (( CURRENT-- ))
  case $cmd in
${cases}
  esac
}
compdef _pk pk
`
}

/** A fish string in single quotes. */
const fishText = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`

function fish(commands: CompletionCommand[]): string {
  const lines = [`# pk completion for fish: pk completion fish | source`, 'complete -c pk -f']
  for (const c of commands) lines.push(`complete -c pk -n __fish_use_subcommand -a ${c.id} -d ${fishText(c.summary)}`)
  for (const c of commands) {
    const when = `-n '__fish_seen_subcommand_from ${c.id}'`
    for (const f of c.flags) {
      // -x: a value, and only these (no file names); -r: a value, anything.
      const value =
        f.value === null
          ? ''
          : f.value === 'dirs'
            ? ' -x -a "(__fish_complete_directories)"'
            : f.value === 'any'
              ? ' -r'
              : ` -x -a ${fishText(words(f.value.words))}`
      lines.push(`complete -c pk ${when} -l ${f.name} -d ${fishText(f.description)}${value}`)
    }
    if (c.arg && 'ids' in c.arg) lines.push(`complete -c pk ${when} -a '(${idsCommand(c.arg.ids)})'`)
    else if (c.arg) lines.push(`complete -c pk ${when} -a ${fishText(words(c.arg.words))}`)
  }
  return lines.join('\n') + '\n'
}

/** Pure: the completion script for a shell. */
export function completionScript(shell: Shell, commands: CompletionCommand[]): string {
  return shell === 'bash' ? bash(commands) : shell === 'zsh' ? zsh(commands) : fish(commands)
}
