import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve, sep} from 'node:path'
import ts from 'typescript'

/** One import of one file of src: which file, what it names, resolved to a path under src (null: a package). */
export interface ImportEdge {
  from: string
  to: string
  /** `await import()` or `import('…').Type`: loaded later, still a dependency. */
  lazy: boolean
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/**
 * The real import graph of a source tree, by TypeScript's own scanner: static imports and exports,
 * dynamic import() calls and import types. Paths are relative to `root`, without extension. A require of a
 * relative path (createRequire, loadPackage) is an import too: it is how a cycle would hide from this.
 */
export function importGraph(root: string): ImportEdge[] {
  const edges: ImportEdge[] = []
  for (const file of tsFiles(root)) {
    const text = readFileSync(file, 'utf8')
    const from = relative(root, file).replace(/\.ts$/, '')
    const add = (spec: string, lazy: boolean) => {
      if (!spec.startsWith('.')) return
      edges.push({from, to: relative(root, resolve(dirname(file), spec)).replace(/\.(js|ts)$/, ''), lazy})
    }
    const {importedFiles} = ts.preProcessFile(text, true, true)
    const lazy = new Set([...text.matchAll(/import\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!))
    for (const f of importedFiles) add(f.fileName, lazy.has(f.fileName))
    for (const m of text.matchAll(/\b(?:require|loadPackage)\(\s*['"](\.[^'"]+)['"]/g)) add(m[1]!, true)
  }
  return edges
}

export const folderOf = (path: string) => (path.startsWith(`lib${sep}`) || path.startsWith('lib/') ? path.split(/[\\/]/)[1]! : null)

/**
 * Pure: every import of the graph that breaks the layers: one between folders of src/lib that does not go
 * strictly down in rank, one from src/lib to what lies above it, one from a folder that has no rank. And
 * every cycle between files, wherever it is.
 */
export function layerViolations(edges: ImportEdge[], layers: readonly (readonly string[])[]): string[] {
  const rank = new Map(layers.flatMap((folders, i) => folders.map((f) => [f, i] as const)))
  const out: string[] = []
  const say = (e: ImportEdge, why: string) => out.push(`${e.from} imports ${e.to}${e.lazy ? ' (lazily)' : ''}: ${why}`)
  for (const e of edges) {
    if (!e.from.startsWith('lib/')) continue
    const a = folderOf(e.from)
    const b = folderOf(e.to)
    if (b === null) {
      say(e, 'src/lib never imports from above it')
      continue
    }
    if (a === null || a === b) continue
    const ra = rank.get(a)
    const rb = rank.get(b)
    if (ra === undefined) say(e, `folder ${a} has no rank in src/lib/layers.ts`)
    else if (rb === undefined) say(e, `folder ${b} has no rank in src/lib/layers.ts`)
    else if (rb > ra) say(e, `${b} (rank ${rb}) is above ${a} (rank ${ra})`)
    else if (rb === ra) say(e, `${a} and ${b} share rank ${ra}: neither imports the other`)
  }
  for (const cycle of fileCycles(edges)) out.push(`files import each other in a circle: ${cycle.join(' -> ')}`)
  return out
}

/** What an import's end is above lib: its first path segment (a folder, or a file of src/), `lib` for all of lib. */
const topOf = (path: string) => path.split(/[\\/]/)[0]!

/** Pure: every import between the entries of src/ above lib that does not go strictly down in TOP_LAYERS' ranks, and every entry with no rank. */
export function topViolations(edges: ImportEdge[], layers: readonly (readonly string[])[]): string[] {
  const rank = new Map(layers.flatMap((entries, i) => entries.map((f) => [f, i] as const)))
  const out: string[] = []
  for (const e of edges) {
    const a = topOf(e.from)
    const b = topOf(e.to)
    if (a === 'lib' || a === b) continue
    const ra = rank.get(a)
    const rb = rank.get(b)
    const say = (why: string) => out.push(`${e.from} imports ${e.to}${e.lazy ? ' (lazily)' : ''}: ${why}`)
    if (ra === undefined) say(`${a} has no rank in TOP_LAYERS`)
    else if (rb === undefined) say(`${b} has no rank in TOP_LAYERS`)
    else if (rb > ra) say(`${b} (rank ${rb}) is above ${a} (rank ${ra})`)
    else if (rb === ra) say(`${a} and ${b} share rank ${ra}: neither imports the other`)
  }
  return out
}

/** Pure: the strongly connected groups of more than one file (Tarjan), each as a list of files. */
export function fileCycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>()
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to])
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const groups: string[][] = []
  let counter = 0
  const visit = (v: string) => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        group.push(w)
      } while (w !== v)
      if (group.length > 1) groups.push(group.sort())
    }
  }
  for (const v of next.keys()) if (!index.has(v)) visit(v)
  return groups
}
