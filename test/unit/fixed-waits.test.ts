import {readFileSync, readdirSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'

const TEST = join(import.meta.dirname, '..')

/** Every test file and helper. */
function files(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? (e.name === 'fixtures' ? [] : files(join(dir, e.name))) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/** A wait of fixed length: `await new Promise((r) => setTimeout(r, N))`, or a helper that names one. */
const FIXED_WAIT = /await new Promise\(\((\w+)\) => setTimeout\(\1, [\d_]+\)\)|const \w+ = \([^)]*\) => new Promise\(\((\w+)\) => setTimeout\(\2, [\w_]+\)\)/g

/**
 * The fixed waits left, each with why it is one. A test waits on a condition with a deadline (waitFor); a
 * negative check waits for the moment the thing would have happened. What is here is either a poll's
 * pause inside such a wait, or a stand-in that takes time on purpose.
 */
const ALLOWED: Record<string, {count: number; why: string}> = {
  'helpers/sandbox.ts': {count: 1, why: "waitFor's own pause between two looks"},
  'helpers/sshd.ts': {count: 1, why: 'the pause between two tries of sshd, within a deadline'},
  'unit/verbs/deadline.test.ts': {count: 1, why: 'a look that takes time on purpose: what the deadline is tested against'},
  'unit/events/writer-mark.test.ts': {count: 1, why: 'a hook that is slow on purpose to name the writer it started'},
  'unit/registry/lock.test.ts': {count: 2, why: 'holders that hold the lock for a while on purpose'},
  'unit/setup/opencode.test.ts': {count: 2, why: 'writers that interleave on purpose'},
  'agents/lab.ts': {count: 2, why: "the pause between two looks at a real agent, within a step's deadline"},
  'agents/steps.ts': {count: 1, why: "the pause between two looks at the fake API's log, within a deadline"},
}

describe('waits of fixed length in the tests', () => {
  it('are only those listed, each with why: a new one fails here', () => {
    const found: Record<string, number> = {}
    for (const file of files(TEST)) {
      if (file.startsWith(join(TEST, 'storm'))) continue // the storm's chaos and pacing are its subject
      const n = [...readFileSync(file, 'utf8').matchAll(FIXED_WAIT)].length
      if (n > 0) found[relative(TEST, file)] = n
    }
    expect(found).toEqual(Object.fromEntries(Object.entries(ALLOWED).map(([file, {count}]) => [file, count])))
  })
})
