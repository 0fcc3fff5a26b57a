import {MAX_EVENT_BYTES} from '../lib/events/spool.js'
import {PkError} from '../lib/model/errors.js'

/**
 * What pk reads from its own process's world besides argv, for `pk hook` (the oclif command and the fast
 * path alike): an agent's payload on standard input, and the writer it starts detached.
 */

/** Read stdin to its end, but never hang an agent: give up after a short wait, or past MAX_EVENT_BYTES (one byte more marks it cut). */
export async function readStdin(timeoutMs: number): Promise<string> {
  if (process.stdin.isTTY) return ''
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = () => {
      clearTimeout(timer)
      process.stdin.pause()
      resolve(
        Buffer.concat(chunks)
          .subarray(0, MAX_EVENT_BYTES + 1)
          .toString('utf8'),
      )
    }
    const timer = setTimeout(done, timeoutMs)
    process.stdin.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      if (size > MAX_EVENT_BYTES) done()
    })
    process.stdin.on('end', done)
    process.stdin.on('error', done)
  })
}

/**
 * Standard input to its end, as UTF-8, its last newline dropped (a pipe's `echo`): text pk types (pk send
 * --stdin, pk answer --stdin). Bytes that are not UTF-8 are refused, never typed as U+FFFD.
 */
export async function readTextStdin(command: string): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  try {
    return new TextDecoder('utf-8', {fatal: true}).decode(Buffer.concat(chunks)).replace(/\r?\n$/, '')
  } catch {
    throw new PkError('bad-text', `standard input is not UTF-8 text: ${command} types text, and would not pass these bytes on as they are`)
  }
}
