import {cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {LAYERS, TOP_LAYERS} from '../../src/lib/layers.js'
import {fileCycles, importGraph, layerViolations, topViolations} from '../helpers/import-graph.js'

const src = join(import.meta.dirname, '..', '..', 'src')
const scratch: string[] = []
afterAll(() => scratch.forEach((d) => rmSync(d, {recursive: true, force: true})))

/** A copy of src to plant imports in. */
function copyOfSrc(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pk-layers-'))
  scratch.push(dir)
  cpSync(src, dir, {recursive: true})
  return dir
}

const plant = (root: string, file: string, line: string) => writeFileSync(join(root, file), `${line}\n${readFileSync(join(root, file), 'utf8')}`)

describe('the layers of src/lib', () => {
  it('every import of the real graph goes down, lazy ones too, and no files import each other in a circle', () => {
    const edges = importGraph(src)
    // The scanner sees the imports there are: a few hundred, lazy ones among them.
    expect(edges.length).toBeGreaterThan(300)
    expect(edges.some((e) => e.lazy)).toBe(true)
    expect(layerViolations(edges, LAYERS)).toEqual([])
  })

  it('every folder of src/lib has one rank', () => {
    const folders = new Set(
      importGraph(src)
        .flatMap((e) => [e.from, e.to])
        .filter((p) => /^lib\/[^/]+\//.test(p))
        .map((p) => p.split('/')[1]!),
    )
    const ranked = LAYERS.flat()
    expect(new Set(ranked).size).toBe(ranked.length)
    expect([...folders].filter((f) => !ranked.includes(f))).toEqual([])
  })

  it('fails on a planted upward import, static or lazy, and on one from lib to the commands', () => {
    const root = copyOfSrc()
    plant(root, 'lib/model/ids.ts', "import {SessionRow as _Planted} from '../listing/pairing.js'")
    plant(root, 'lib/registry/files.ts', "const _lazy = async () => import('../verbs/attach.js')")
    plant(root, 'lib/tmux/panes.ts', "import '../../commands/ls.js'")
    plant(root, 'lib/proc/view.ts', "const _hidden = () => loadPackage('../listing/listing.js')")
    const found = layerViolations(importGraph(root), LAYERS)
    expect(found).toContainEqual(expect.stringMatching(/^lib\/model\/ids imports lib\/listing\/pairing: listing \(rank 5\) is above model \(rank 0\)/))
    expect(found).toContainEqual(expect.stringMatching(/^lib\/registry\/files imports lib\/verbs\/attach \(lazily\)/))
    expect(found).toContainEqual(expect.stringMatching(/^lib\/tmux\/panes imports commands\/ls: src\/lib never imports from above it/))
    expect(found).toContainEqual(expect.stringMatching(/^lib\/proc\/view imports lib\/listing\/listing \(lazily\)/))
  })

  it('fails on an import between two folders of one rank, and on a folder with no rank', () => {
    const root = copyOfSrc()
    plant(root, 'lib/tmux/panes.ts', "import type {Worktree as _W} from '../worktree/worktree.js'")
    cpSync(join(root, 'lib', 'cli'), join(root, 'lib', 'newfolder'), {recursive: true})
    plant(root, 'lib/newfolder/suggest.ts', "import {PkError as _E} from '../model/errors.js'")
    const found = layerViolations(importGraph(root), LAYERS)
    expect(found).toContainEqual(expect.stringMatching(/tmux and worktree share rank 2/))
    expect(found).toContainEqual(expect.stringMatching(/folder newfolder has no rank/))
  })

  it('finds a circle of files within one folder', () => {
    const edges = [
      {from: 'lib/listing/a', to: 'lib/listing/b', lazy: false},
      {from: 'lib/listing/b', to: 'lib/listing/c', lazy: true},
      {from: 'lib/listing/c', to: 'lib/listing/a', lazy: false},
      {from: 'lib/listing/c', to: 'lib/model/ids', lazy: false},
    ]
    expect(fileCycles(edges)).toEqual([['lib/listing/a', 'lib/listing/b', 'lib/listing/c']])
    expect(layerViolations(edges, LAYERS)).toEqual(['files import each other in a circle: lib/listing/a -> lib/listing/b -> lib/listing/c'])
  })
})

describe('the ranks of src/ above lib', () => {
  it('commands and the fast path import descriptors, descriptors bodies, bodies the ends of an invocation, all of them lib: never up, never sideways', () => {
    const edges = importGraph(src)
    expect(edges.filter((e) => e.from.startsWith('commands/') && e.to.startsWith('descriptors/')).length).toBeGreaterThan(5)
    expect(edges.filter((e) => e.from.startsWith('descriptors/') && e.to.startsWith('bodies/')).length).toBeGreaterThan(5)
    expect(topViolations(edges, TOP_LAYERS)).toEqual([])
  })

  it('every file and folder of src/ has one rank', () => {
    const entries = readdirSync(src).map((name) => name.replace(/\.ts$/, ''))
    const ranked = TOP_LAYERS.flat()
    expect(new Set(ranked).size).toBe(ranked.length)
    expect(entries.filter((e) => !ranked.includes(e))).toEqual([])
  })

  it('fails on a planted import from bodies into the commands, between the two ways in, and from a file with no rank', () => {
    const root = copyOfSrc()
    plant(root, 'bodies/stop.ts', "import '../commands/stop.js'")
    plant(root, 'commands/ls.ts', "const _lazy = async () => import('../fast-path.js')")
    plant(root, 'invocation/output.ts', "import type {StopInput as _S} from '../bodies/stop.js'")
    plant(root, 'descriptors/stop.ts', "import '../command-base.js'")
    writeFileSync(join(root, 'loose.ts'), "import '../lib/model/errors.js'\nimport './invocation/output.js'\n")
    const found = topViolations(importGraph(root), TOP_LAYERS)
    expect(found).toContainEqual(expect.stringMatching(/^bodies\/stop imports commands\/stop: commands \(rank 5\) is above bodies \(rank 2\)/))
    expect(found).toContainEqual(expect.stringMatching(/^commands\/ls imports fast-path \(lazily\): commands and fast-path share rank 5/))
    expect(found).toContainEqual(expect.stringMatching(/^invocation\/output imports bodies\/stop: bodies \(rank 2\) is above invocation \(rank 1\)/))
    expect(found).toContainEqual(expect.stringMatching(/^loose imports invocation\/output: loose has no rank/))
    expect(found).toContainEqual(expect.stringMatching(/^descriptors\/stop imports command-base: command-base \(rank 4\) is above descriptors \(rank 3\)/))
    // and lib into the commands or the bodies, by the rule of lib's own layers
    plant(root, 'lib/verbs/prune.ts', "import '../../bodies/stop.js'")
    expect(layerViolations(importGraph(root), LAYERS)).toContainEqual(
      expect.stringMatching(/^lib\/verbs\/prune imports bodies\/stop: src\/lib never imports from above it/),
    )
  })
})
