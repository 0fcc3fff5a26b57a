#!/usr/bin/env node
// Bare `pk` on a terminal opens the dashboard; elsewhere it prints help as usual.
const args = process.argv.slice(2)
if (args.length === 0 && process.stdin.isTTY && process.stdout.isTTY) process.argv.push('ui')

// The hot path (`pk ls`, `pk --version`) skips loading oclif; everything else goes through it.
const {tryFastPath} = await import('../dist/fast-path.js')
if (!(await tryFastPath(process.argv.slice(2)))) {
  const {execute} = await import('@oclif/core')
  await execute({dir: import.meta.url})
}
