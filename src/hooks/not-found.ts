import {Hook} from '@oclif/core'

import {closestWord} from '../lib/suggest.js'

/**
 * `pk lss`: on a terminal, @oclif/plugin-not-found asks "Did you mean ls?" and runs it; without one
 * (a script) nothing may prompt: the suggestion is printed and pk exits 2, loudly and predictably.
 */
const hook: Hook<'command_not_found'> = async function (opts) {
  const [word, ...rest] = opts.id.split(':')
  if (process.stdin.isTTY && process.stdout.isTTY) {
    const {default: ask} = await import('@oclif/plugin-not-found')
    return ask.call(this, {...opts, id: word!, argv: [...rest, ...(opts.argv ?? [])]})
  }
  const ids = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id)
  const suggestion = closestWord(word!, ids)
  process.stderr.write(`pk: ${word} is not a pk command.${suggestion ? ` Did you mean: pk ${suggestion}?` : ''} (pk help lists them all)\n`)
  this.exit(2)
}

export default hook
