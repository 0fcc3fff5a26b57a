import {jsonDocument} from '../lib/model/contract.js'
import {terminalSafe, terminalSafeColour} from '../lib/model/errors.js'
import {Output, Terminal} from '../lib/present/listing.js'
import {wantColour} from '../lib/present/table.js'
import {mark, measuring, timingsLine} from '../lib/cli/timings.js'

// `npm run bench`: where a listing's milliseconds went, as one line on stderr at exit.
if (measuring)
  process.on('exit', () => {
    mark('after') // what a command does once its look is done
    process.stderr.write(timingsLine()!)
  })

/** The terminal pk writes to now. */
export function terminal(env: Record<string, string | undefined> = process.env): Terminal {
  return {
    tty: Boolean(process.stdout.isTTY),
    colour: wantColour(process.stdout, env),
    now: Date.now(),
    home: env.HOME,
    columns: process.stdout.isTTY ? process.stdout.columns || 80 : undefined,
  }
}

/**
 * Only commands (and the fast path) write: what a presenter made goes out here. What goes to stderr is
 * words for a person, names included: no escape sequence reaches the terminal raw; on stdout, colours only.
 */
export function write(output: Output): void {
  // (into a pipe or a file the text goes as it is: it acts on no terminal there, and a script reads it)
  if (output.stdout) process.stdout.write(process.stdout.isTTY ? terminalSafeColour(output.stdout) : output.stdout)
  if (output.stderr) process.stderr.write(terminalSafe(output.stderr))
}

/** Words for the user on standard output (what a command prints that is not a presenter's). */
export const out = (text: string) => write({stdout: text, stderr: ''})
/** Words for the user on standard error: a note, a warning, an error's line. */
export const say = (text: string) => write({stdout: '', stderr: text})

/** A command's JSON document on standard output (indented on a terminal, one line elsewhere: jsonDocument). */
export const printJson = (value: unknown) => out(jsonDocument(value, Boolean(process.stdout.isTTY)))
