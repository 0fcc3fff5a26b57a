import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {CHECKS} from '../../src/lib/doctor/index.js'
import {ERRORS, ExitCode} from '../../src/lib/model/errors.js'
import {PROBLEM_CODES} from '../../src/lib/model/contract.js'
import {STATES} from '../../src/lib/model/states.js'
import {ROOT} from '../helpers/sandbox.js'

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
const reference = readFileSync(join(ROOT, 'docs', 'reference.md'), 'utf8')
const codesIn = (text: string) => new Set([...text.matchAll(/`([a-z][a-z-]+)`/g)].map((m) => m[1]!))

describe('the README and the code name the same things', () => {
  it('problem codes', () => {
    const paragraph = /Problem codes: ([\s\S]+?)\n\n/.exec(reference)![1]!
    const listed = codesIn(paragraph)
    const local = PROBLEM_CODES.filter((c) => !c.startsWith('host-'))
    expect([...listed].sort()).toEqual([...local].sort())
    for (const code of PROBLEM_CODES.filter((c) => c.startsWith('host-'))) expect(readme + reference).toContain(`\`${code}\``)
  })

  it('exit codes', () => {
    const table = /## Exit codes\n\n([\s\S]+?)\n\n/.exec(readme)![1]!
    const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]))
    expect(documented.sort((a, b) => a - b)).toEqual(Object.values(ExitCode).sort((a, b) => a - b))
  })

  it('error codes: each with its one exit, as the catalog says', () => {
    const table = /\| error code \| exit \| meaning \|\n\|---\|---\|---\|\n([\s\S]+?)\n\n/.exec(readme)![1]!
    const documented = Object.fromEntries([...table.matchAll(/^\| `([a-z-]+)` \| (\d+) \|/gm)].map((m) => [m[1]!, Number(m[2])]))
    expect(documented).toEqual(Object.fromEntries(Object.entries(ERRORS).map(([code, e]) => [code, e.exit])))
  })

  it('doctor checks and states', () => {
    for (const check of CHECKS) expect(readme).toContain(`| \`${check.id}\` |`)
    for (const state of STATES) expect(reference).toContain(`\`${state}\``)
  })
})
