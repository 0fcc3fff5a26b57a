import {Hook} from '@oclif/core'

import {closestWord} from '../lib/cli/suggest.js'
import {say} from '../invocation/output.js'

/**
 * `pk lss`, `pk start ID`: a word that is no command never runs another command, on a terminal or not:
 * asking "Did you mean stop?" and taking Enter for yes once stopped a live session. pk prints the
 * suggestion and exits 2. A command followed by a word it does not take (`pk ls 0111`) is said as such.
 */
const hook: Hook<'command_not_found'> = async function (opts) {
  const [word, ...rest] = opts.id.split(':')
  const ids = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id)
  if (ids.includes(word!) && rest.length > 0) {
    say(`pk: ${word} takes no argument ${JSON.stringify(rest.join(' '))} (pk ${word} --help)\n`)
    this.exit(2)
  }
  const suggestion = closestWord(word!, ids)
  say(`pk: ${word} is not a pk command.${suggestion ? ` Did you mean: pk ${suggestion}?` : ''} (pk help lists them all)\n`)
  this.exit(2)
}

export default hook
