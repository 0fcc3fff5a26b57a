#!/usr/bin/env node
// CommonJS on purpose (bin/package.json says so): node starts a CommonJS entry several milliseconds
// sooner than an ES module one, and `pk ls` is started over and over by scripts and status bars.
'use strict'
const {readFileSync, statSync, writeSync} = require('node:fs')
const {join} = require('node:path')

const args = process.argv.slice(2)

// `pk --version` (and `-v`) as oclif prints it, without loading anything else: not even node's stream for
// standard output (a line written to fd 1), with the same endings as below on a closed pipe or a full disk.
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'))
  try {
    // The package's name, as pk --help (oclif) prints it: one name for one thing.
    writeSync(1, `${pkg.name}/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`)
  } catch (error) {
    if (error.code !== 'EPIPE') {
      process.exitCode = 1
      process.stderr.write(`pk: cannot write to standard output (${error.code ?? error.message})\n`)
    }
  }
  process.exit()
}

// Output into a closed pipe (`pk ls --json | head -c 100`) ends quietly, like other command-line tools:
// no stack trace, exit 0, whatever was still to be written is dropped.
// Any other failure to write (a full disk, `> /dev/full`) is said in one line, exit 1, no stack trace.
const onWriteError = (stream) => (error) => {
  if (error.code === 'EPIPE') process.exit(0)
  process.exitCode = 1
  if (stream === process.stdout) process.stderr.write(`pk: cannot write to standard output (${error.code ?? error.message})\n`)
}
const writeHandlers = new Map([process.stdout, process.stderr].map((stream) => [stream, onWriteError(stream)]))
for (const [stream, handler] of writeHandlers) stream.on('error', handler)

// `pk hook` runs inside an agent, which may wait for it: its deadline, the only one it has, starts here,
// before anything else loads. The whole process ends 0.9 s after node started, or 0.6 s after this line on
// a machine so loaded that node's own start took most of that; a stuck lock, a stopped server or a
// standard input that never closes do not hold the agent longer (writes are atomic: stopping mid-way
// tears nothing). `pk hook --json`, what a person runs to see what a payload does, has none: its answer is
// the point, and the person can stop it.
if (args[0] === 'hook' && !args.includes('--json')) setTimeout(() => process.exit(0), Math.max(900 - performance.now(), 600)).unref()

// `pk -h` and `pk -v` are what people type for help and version.
if (args.length === 1 && args[0] === '-h') process.argv[2] = '--help'

// Bare `pk` on a terminal opens the dashboard; elsewhere it prints help as usual.
if (args.length === 0 && process.stdin.isTTY && process.stdout.isTTY) process.argv.push('ui')

/**
 * dist/fast-path.cjs, compiled from the V8 code cache `npm run build` made for it (scripts/code-cache.cjs):
 * compiling it again would cost every `pk ls` about 5 ms. The cache is used only when it was made from
 * exactly this file and V8 accepts it (same version and flags); otherwise, or on any trouble, the bundle is
 * required plainly. "This file": the size, inode and mtime the cache recorded, one stat; where they differ
 * (a copy, an npm install, which resets mtimes), the bundle's sha-256, which leads the cache.
 */
function loadFastPath() {
  const file = join(__dirname, '..', 'dist', 'fast-path.cjs')
  let source
  let cache
  let stats
  try {
    source = readFileSync(file, 'utf8')
    cache = readFileSync(`${file}.cache`)
    stats = statSync(file)
  } catch {
    return require(file)
  }
  if (cache.length <= HEADER) return require(file)
  const same = cache.readDoubleLE(32) === stats.size && cache.readDoubleLE(40) === stats.ino && cache.readDoubleLE(48) === stats.mtimeMs
  if (!same && !require('node:crypto').createHash('sha256').update(source).digest().equals(cache.subarray(0, 32))) return require(file)
  const Module = require('node:module')
  // No dynamic import() can run in code compiled so; the bundle has none (the build refuses one).
  const script = new (require('node:vm').Script)(Module.wrap(source), {filename: file, cachedData: cache.subarray(HEADER)})
  const module = {exports: {}}
  script.runInThisContext().call(module.exports, module.exports, Module.createRequire(file), module, file, join(__dirname, '..', 'dist'))
  return module.exports
}

/** The cache's header: the bundle's sha-256 (32 bytes), then its size, inode and mtime (a double each). */
const HEADER = 56

async function main() {
  // The hot path (`pk ls`) skips loading oclif; everything else goes through it.
  // PK_FAST_PATH=0 sends every command through oclif: what the tests compare the fast path with.
  if (process.env.PK_FAST_PATH !== '0') {
    const {tryFastPath} = loadFastPath()
    if (await tryFastPath(process.argv.slice(2))) return
  }
  const {execute} = await import('@oclif/core')
  // oclif adds a handler that throws on any write error but EPIPE (a stack trace for `> /dev/full`): ours stand.
  for (const [stream, handler] of writeHandlers) for (const other of stream.listeners('error')) if (other !== handler) stream.removeListener('error', other)
  await execute({dir: join(__dirname, '..')})
}

main().catch((error) => {
  process.stderr.write(`pk: ${error && error.stack ? error.stack : error}\n`)
  process.exitCode = 1
})
