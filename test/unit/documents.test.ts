import {existsSync, readFileSync, readdirSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'

import {CHECKS} from '../../src/lib/doctor/index.js'
import {ERRORS, ExitCode} from '../../src/lib/model/errors.js'
import {PROBLEM_CODES} from '../../src/lib/model/contract.js'
import {STATES} from '../../src/lib/model/states.js'
import {ROOT} from '../helpers/sandbox.js'

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')
const readme = read('README.md')
const reference = read('docs/reference.md')
const scripting = read('docs/scripting.md')
const commands = read('docs/commands.md')
const codesIn = (text: string) => new Set([...text.matchAll(/`([a-z][a-z-]+)`/g)].map((m) => m[1]!))

/** Every Markdown document of the project: the README, the other top-level ones, docs/ and bench/results/. */
const documents = [
  ...readdirSync(ROOT).filter((n) => n.endsWith('.md')),
  ...readdirSync(join(ROOT, 'docs')).map((n) => `docs/${n}`),
  ...readdirSync(join(ROOT, 'bench', 'results')).map((n) => `bench/results/${n}`),
].filter((n) => n.endsWith('.md'))

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces made `-`. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replaceAll(/[^\p{L}\p{N}\s_-]/gu, '')
    .replaceAll(' ', '-')
const anchorsOf = (text: string) => new Set([...text.replaceAll(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)))

describe('the documents and the code name the same things', () => {
  it('problem codes', () => {
    const paragraph = /Problem codes: ([\s\S]+?)\n\n/.exec(reference)![1]!
    const listed = codesIn(paragraph)
    const local = PROBLEM_CODES.filter((c) => !c.startsWith('host-'))
    expect([...listed].sort()).toEqual([...local].sort())
    for (const code of PROBLEM_CODES.filter((c) => c.startsWith('host-'))) expect(reference + read('docs/hosts.md')).toContain(`\`${code}\``)
  })

  it('exit codes, in the README and in the scripting reference', () => {
    for (const text of [readme, scripting]) {
      const table = /## Exit codes\n\n([\s\S]+?)\n\n/.exec(text)![1]!
      const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]))
      expect(documented.sort((a, b) => a - b)).toEqual(Object.values(ExitCode).sort((a, b) => a - b))
    }
  })

  it('error codes: each with its one exit, as the catalog says', () => {
    const table = /\| error code \| exit \| meaning \|\n\|---\|---\|---\|\n([\s\S]+?)(\n\n|\n?$)/.exec(scripting)![1]!
    const documented = Object.fromEntries([...table.matchAll(/^\| `([a-z-]+)` \| (\d+) \|/gm)].map((m) => [m[1]!, Number(m[2])]))
    expect(documented).toEqual(Object.fromEntries(Object.entries(ERRORS).map(([code, e]) => [code, e.exit])))
  })

  it('doctor checks and states', () => {
    for (const check of CHECKS) expect(commands).toContain(`| \`${check.id}\` |`)
    for (const state of STATES) expect(reference).toContain(`\`${state}\``)
  })
})

describe('the documents, by reader', () => {
  it('the README is a manual: at most about 400 lines, and no dated run in it', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(420)
    expect(readme).not.toMatch(/\b20\d\d-\d\d-\d\d\b/)
  })

  it('every link between them resolves: the file, and the heading it names', () => {
    const broken: string[] = []
    for (const doc of documents) {
      const text = read(doc).replaceAll(/```[\s\S]*?```/g, '')
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue // another site
        const [path, anchor] = target!.split('#') as [string, string | undefined]
        const file = path === '' ? doc : relative(ROOT, join(ROOT, dirname(doc), path))
        if (!existsSync(join(ROOT, file))) broken.push(`${doc}: ${target} (no such file)`)
        else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(read(file)).has(anchor)) broken.push(`${doc}: ${target} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
    expect(documents).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'docs/performance.md']))
  })
})
