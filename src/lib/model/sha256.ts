import {createRequire} from 'node:module'

/**
 * SHA-256 (FIPS 180-4) of a string's UTF-8 bytes, as lowercase hex: the first few of a run computed here,
 * the rest by node:crypto. Loading node:crypto costs about 3 ms, a tenth of what pk adds to a bare node
 * start, and many runs hash a handful of ids or none; but this JavaScript runs in V8's interpreter until it
 * has run a few hundred times, 50-150 µs a hash, and a listing hashes the id of every session (worked out
 * from its identity each time, never taken from a file): a run that hashes more than a few loads
 * node:crypto. A unit test holds both equal to
 * node:crypto. Not for secrets: nothing here is constant-time.
 */
export function sha256Hex(text: string): string {
  if (hashed < OWN_HASHES) {
    hashed++
    return ownSha256Hex(text)
  }
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto')
  return crypto.createHash('sha256').update(text).digest('hex')
}

/** Where node:crypto's load costs less than hashing on in the interpreter. */
const OWN_HASHES = 32
let hashed = 0
let crypto: typeof import('node:crypto') | undefined

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
])
const encoder = new TextEncoder()
const W = new Int32Array(64)
const H = new Int32Array(8)
const HEX = Array.from({length: 256}, (_, i) => i.toString(16).padStart(2, '0'))

/** The message's bytes: a string's own char codes where all are ASCII (ids are), else its UTF-8. */
function bytesOf(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code > 0x7f) return encoder.encode(text)
    bytes[i] = code
  }
  return bytes
}

/** SHA-256 written out: exported for the test that holds it equal to node:crypto's. */
export function ownSha256Hex(text: string): string {
  const bytes = bytesOf(text)
  const length = bytes.length
  // The message, a 1 bit, zeros, and its length in bits (64-bit big-endian): a whole number of 64-byte blocks.
  const total = Math.ceil((length + 9) / 64) * 64
  const byteAt = (i: number) => (i < length ? bytes[i]! : i === length ? 0x80 : 0)
  const bits = length * 8
  H[0] = 0x6a09e667
  H[1] = 0xbb67ae85 | 0
  H[2] = 0x3c6ef372
  H[3] = 0xa54ff53a | 0
  H[4] = 0x510e527f
  H[5] = 0x9b05688c | 0
  H[6] = 0x1f83d9ab
  H[7] = 0x5be0cd19
  for (let offset = 0; offset < total; offset += 64) {
    for (let i = 0; i < 16; i++) {
      const at = offset + i * 4
      W[i] = (byteAt(at) << 24) | (byteAt(at + 1) << 16) | (byteAt(at + 2) << 8) | byteAt(at + 3)
    }
    if (offset + 64 === total) {
      W[14] = Math.floor(bits / 0x100000000)
      W[15] = bits | 0
    }
    for (let i = 16; i < 64; i++) {
      const x = W[i - 15]!
      const y = W[i - 2]!
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)
      W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0
    }
    let a: number = H[0]!
    let b: number = H[1]!
    let c: number = H[2]!
    let d: number = H[3]!
    let e: number = H[4]!
    let f: number = H[5]!
    let g: number = H[6]!
    let h: number = H[7]!
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))
      const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0
      h = g
      g = f
      f = e
      e = (d + t1) | 0
      d = c
      c = b
      b = a
      a = (t1 + t2) | 0
    }
    H[0] = (H[0]! + a) | 0
    H[1] = (H[1]! + b) | 0
    H[2] = (H[2]! + c) | 0
    H[3] = (H[3]! + d) | 0
    H[4] = (H[4]! + e) | 0
    H[5] = (H[5]! + f) | 0
    H[6] = (H[6]! + g) | 0
    H[7] = (H[7]! + h) | 0
  }
  let hex = ''
  for (let i = 0; i < 8; i++) {
    const word = H[i]!
    hex += HEX[(word >>> 24) & 0xff]! + HEX[(word >>> 16) & 0xff]! + HEX[(word >>> 8) & 0xff]! + HEX[word & 0xff]!
  }
  return hex
}
