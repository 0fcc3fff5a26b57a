#!/usr/bin/env node
import {execute} from '@oclif/core'

// Bare `pk` on a terminal opens the dashboard; elsewhere it prints help as usual.
const args = process.argv.slice(2)
if (args.length === 0 && process.stdin.isTTY && process.stdout.isTTY) process.argv.push('ui')

await execute({dir: import.meta.url})
