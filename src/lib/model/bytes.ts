import {readFileSync} from 'node:fs'

/**
 * Bytes that are not UTF-8, kept exactly through pk's strings. Node decodes argv, the environment and
 * paths as UTF-8 and turns any other byte into U+FFFD, so a directory named in Latin-1 "does not exist"
 * and a value loses its bytes. Where that happened pk reads the real bytes from /proc/self and carries each
 * byte that is not UTF-8 as a lone surrogate U+DC80+byte (Python's "surrogateescape"), which no valid text
 * contains; the tmux script and file system calls turn them back into the very bytes.
 */

/** Byte b (0x80-0xff; ASCII is always UTF-8) is carried as U+DC00+b, in U+DC80-U+DCFF. */
const BASE = 0xdc00

/** Pure: bytes -> a string: UTF-8 where they are, U+DC80+byte for each byte that is not. */
export function fromBytes(bytes: Buffer): string {
  let out = ''
  let i = 0
  while (i < bytes.length) {
    const b = bytes[i]!
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1
    let ok = need >= 0 && i + need < bytes.length + (need === 0 ? 1 : 0)
    for (let k = 1; ok && k <= need; k++) ok = (bytes[i + k]! & 0xc0) === 0x80
    if (ok && need > 0) {
      const text = bytes.subarray(i, i + need + 1).toString('utf8')
      // Overlong forms and surrogates decode to U+FFFD: not UTF-8 after all.
      ok = !text.includes('\uFFFD')
      if (ok) {
        out += text
        i += need + 1
        continue
      }
    }
    if (ok && need === 0) {
      out += String.fromCharCode(b)
      i++
      continue
    }
    out += String.fromCharCode(BASE + b)
    i++
  }
  return out
}

/** Pure: a string -> its bytes, each escaped byte (U+DC80+byte) as itself. */
export function toBytes(text: string): Buffer {
  const parts: Buffer[] = []
  let run = ''
  for (const ch of text) {
    const code = ch.charCodeAt(0)
    if (ch.length === 1 && code >= 0xdc80 && code <= 0xdcff) {
      if (run) parts.push(Buffer.from(run, 'utf8'))
      run = ''
      parts.push(Buffer.from([code - BASE]))
    } else run += ch
  }
  if (run) parts.push(Buffer.from(run, 'utf8'))
  return Buffer.concat(parts)
}

/** Whether a string carries escaped bytes (then file system calls take its bytes). */
export const hasEscapedBytes = (text: string) => /[\uDC80-\uDCFF]/.test(text)

/** A path for node's fs: its exact bytes where it carries escaped ones. */
export const fsPath = (text: string): string | Buffer => (hasEscapedBytes(text) ? toBytes(text) : text)

const nulSplit = (buffer: Buffer) => {
  const out: Buffer[] = []
  let start = 0
  for (let i = 0; i < buffer.length; i++) {
    if (buffer[i] === 0) {
      out.push(buffer.subarray(start, i))
      start = i + 1
    }
  }
  if (start < buffer.length) out.push(buffer.subarray(start))
  return out
}

/**
 * This process's arguments as they were given, for those node decoded lossily (with U+FFFD): aligned from
 * the end (node's own options sit before the script in /proc/self/cmdline, not in process.argv).
 */
export function exactArgs(args: string[]): string[] {
  if (!args.some((a) => a.includes('\uFFFD'))) return args
  let raw: Buffer[]
  try {
    raw = nulSplit(readFileSync('/proc/self/cmdline'))
  } catch {
    return args
  }
  const tail = raw.slice(raw.length - args.length)
  if (tail.length !== args.length) return args
  return args.map((arg, i) => (arg.includes('\uFFFD') ? fromBytes(tail[i]!) : arg))
}

/** The environment with the values node decoded lossily read again from /proc/self/environ, exactly. */
export function exactEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  if (!Object.values(env).some((v) => v?.includes('\uFFFD'))) return env
  let raw: Buffer[]
  try {
    raw = nulSplit(readFileSync('/proc/self/environ'))
  } catch {
    return env
  }
  const exact = new Map<string, string>()
  for (const entry of raw) {
    const at = entry.indexOf(0x3d)
    if (at > 0) exact.set(entry.subarray(0, at).toString('utf8'), fromBytes(entry.subarray(at + 1)))
  }
  const out = {...env}
  for (const [name, value] of Object.entries(env)) if (value?.includes('\uFFFD') && exact.has(name)) out[name] = exact.get(name)!
  return out
}

/** A flag's value as given, byte for byte, where node decoded it lossily (`--cwd DIR` or `--cwd=DIR`). */
export function exactFlagValue(argv: string[], flag: string, value: string): string {
  if (!value.includes('\uFFFD')) return value
  const exact = exactArgs(argv)
  const at = argv.findIndex((a, i) => a === flag && argv[i + 1] === value)
  if (at !== -1) return exact[at + 1]!
  const joined = argv.indexOf(`${flag}=${value}`)
  return joined === -1 ? value : exact[joined]!.slice(flag.length + 1)
}
