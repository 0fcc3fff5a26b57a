import {createRequire} from 'node:module'

type Crypto = typeof import('node:crypto')
let crypto: Crypto | undefined

/**
 * Random bytes (node:crypto's), with node:crypto loaded at the first call rather than when pk starts:
 * loading it costs about 3 ms, and most runs (every reader: ls, attach, logs, wait) never need it.
 */
export function randomBytes(size: number): Buffer {
  crypto ??= createRequire(import.meta.url)('node:crypto') as Crypto
  return crypto.randomBytes(size)
}
