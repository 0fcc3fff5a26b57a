import {MAX_EVENT_BYTES} from '../lib/events/spool.js'

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
