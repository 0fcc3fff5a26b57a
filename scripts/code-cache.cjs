#!/usr/bin/env node
// Build step (npm run build): V8's code cache for dist/fast-path.cjs, which bin/run.js hands to V8 so that
// `pk ls` does not compile its code again on every start (about 5 ms). The cache holds the functions a
// real listing compiles, so it is made by running one: `pk ls --json` (and the verbs on one session, below)
// in a private, empty world (a private state directory with a few records of processes long gone, and a
// private tmux server when tmux is there), never the user's. The file starts with the bundle's sha-256 and its size, inode and mtime, so a
// cache is used only with the very bundle it was made from.
'use strict'
const {execFileSync} = require('node:child_process')
const {createHash} = require('node:crypto')
const {mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync} = require('node:fs')
const Module = require('node:module')
const {tmpdir} = require('node:os')
const {dirname, join} = require('node:path')
const vm = require('node:vm')

const file = join(__dirname, '..', 'dist', 'fast-path.cjs')
const out = `${file}.cache`
rmSync(out, {force: true})

// Code compiled from a cache has no loader for import(): one in the bundle would fail at run time, on the
// path every `pk ls` takes. Packages are loaded with loadPackage (src/lib/cli/packages.ts), never import().
const dynamicImport = /\bimport\(/.exec(readFileSync(file, 'utf8'))
if (dynamicImport) {
  const bundle = readFileSync(file, 'utf8')
  const line = bundle.slice(0, dynamicImport.index).split('\n').length
  process.stderr.write(`dist/fast-path.cjs:${line} has an import(): the fast path cannot run it from its code cache; use loadPackage\n`)
  process.exit(1)
}

// A character past ASCII anywhere makes node read the whole bundle as a two-byte string, about 1.5 ms more
// on every start. esbuild escapes them itself except in String.raw templates: write those as \u escapes.
const wide = /[\u0080-\uffff]/.exec(readFileSync(file, 'utf8'))
if (wide) {
  const line = readFileSync(file, 'utf8').slice(0, wide.index).split('\n').length
  process.stderr.write(`dist/fast-path.cjs:${line} has a character past ASCII (${JSON.stringify(wide[0])}): write it as a \\u escape\n`)
  process.exit(1)
}

const world = mkdtempSync(join(tmpdir(), 'pk-code-cache-'))
const socket = join(world, 'tmux', `tmux-${process.getuid()}`, 'default')
const cleanup = () => {
  try {
    execFileSync('tmux', ['-S', socket, 'kill-server'], {stdio: 'ignore', timeout: 2000})
  } catch {
    // no server, or no tmux
  }
  rmSync(world, {recursive: true, force: true})
}

async function main() {
  const state = join(world, 'state')
  mkdirSync(join(state, 'sessions'), {recursive: true, mode: 0o700})
  mkdirSync(dirname(socket), {recursive: true, mode: 0o700})
  const identity = {
    bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
    pidNs: /\d+/.exec(readlinkSync('/proc/self/ns/pid'))[0],
    startTime: 1,
  }
  for (let i = 0; i < 3; i++) {
    const record = {
      version: 1,
      identity: {...identity, pid: 4_190_000 + i},
      tmux: {socket, paneId: `%${i}`, sessionId: `$${i}`, serverPid: 1},
      cwd: world,
      argv: ['claude'],
      agent: 'claude',
      label: null,
      createdAt: new Date().toISOString(),
      startedAt: null,
      conversationId: null,
      status: null,
    }
    writeFileSync(join(state, 'sessions', `r${i}.json`), JSON.stringify(record, null, 2))
  }
  try {
    execFileSync('tmux', ['-S', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'a', 'sleep 60', ';', 'new-session', '-d', '-s', 'b', 'sleep 60'], {
      stdio: 'ignore',
      timeout: 5000,
    })
  } catch {
    // no tmux here: the listing still runs, with fewer of pk's functions compiled
  }
  Object.assign(process.env, {PK_STATE_DIR: state, TMUX_TMPDIR: join(world, 'tmux'), HOME: world, XDG_CONFIG_HOME: join(world, 'config')})
  delete process.env.TMUX
  delete process.env.TMUX_PANE
  const source = readFileSync(file, 'utf8')
  const script = new vm.Script(Module.wrap(source), {filename: file})
  const module = {exports: {}}
  script.runInThisContext().call(module.exports, module.exports, Module.createRequire(file), module, file, dirname(file))
  const write = process.stdout.write
  const writeErr = process.stderr.write
  let listed = ''
  process.stdout.write = (chunk) => {
    listed += chunk
    return true
  }
  process.stderr.write = () => true
  try {
    await module.exports.tryFastPath(['ls', '--json'])
    // Then the commands scripts call on one session, so that their own functions are in the cache too
    // (measured: 8-10 ms less CPU each for logs, stop and wait, ls no slower). Not doctor: its code would
    // grow the cache by a fifth, which every start pays to read. The sessions here are of processes long
    // gone: stop signals nothing, wait returns at once.
    const id = JSON.parse(listed).sessions[0]?.id ?? '0'
    for (const argv of [
      ['attach', id, '--print'],
      ['logs', id, '--lines', '5'],
      ['wait', id, '--for', 'exited', '--timeout', '1'],
      ['usage', '--json'],
      ['prune', '--dry-run', '--json'],
      ['stop', id],
    ])
      await module.exports.tryFastPath(argv)
  } finally {
    process.stdout.write = write
    process.stderr.write = writeErr
    process.exitCode = 0
  }
  // The header: the bundle's sha-256, then its size, inode and mtime, which bin/run.js compares first (one
  // stat, no hashing); only when they differ (a copy, an npm install) does it hash the bundle.
  const digest = createHash('sha256').update(source).digest()
  const {size, ino, mtimeMs} = statSync(file)
  const facts = Buffer.alloc(24)
  facts.writeDoubleLE(size, 0)
  facts.writeDoubleLE(ino, 8)
  facts.writeDoubleLE(mtimeMs, 16)
  writeFileSync(out, Buffer.concat([digest, facts, script.createCachedData()]))
}

main()
  .catch((error) => {
    // A build without a cache still works (bin/run.js requires the bundle plainly); say why, do not fail.
    process.stderr.write(`code cache not made: ${error.message}\n`)
  })
  .finally(cleanup)
