import {spawnSync} from 'node:child_process'
import {appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

/**
 * The build's own checks, tried on a copy of the parts they read: they pass on the tree as it is, and fail
 * on what they exist to catch. (The copy, not the tree: the build rewrites dist, and a check that compares
 * the tree with what the build just wrote into it would always pass.)
 */
const REPO = join(import.meta.dirname, '..', '..')
const scratch: string[] = []
afterAll(() => scratch.forEach((d) => rmSync(d, {recursive: true, force: true})))

function copyOf(paths: string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'pk-build-'))
  scratch.push(root)
  for (const path of paths) cpSync(join(REPO, path), join(root, path), {recursive: true})
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'))
  return root
}

const node = (root: string, script: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(root, script), ...args], {encoding: 'utf8', timeout: 60_000})

describe('the build refuses', () => {
  const VALIDATORS = [
    'scripts/compile-validators.mjs',
    'schemas',
    'src/lib/registry/record-validator.generated.js',
    'src/lib/config/config-validator.generated.js',
  ]

  it('a committed validator that is not what its schema compiles to now', () => {
    const root = copyOf(VALIDATORS)
    expect(node(root, 'scripts/compile-validators.mjs').status).toBe(0)
    appendFileSync(join(root, 'src/lib/registry/record-validator.generated.js'), '// edited by hand\n')
    const stale = node(root, 'scripts/compile-validators.mjs')
    expect(stale.status).toBe(1)
    expect(stale.stderr).toMatch(/record-validator\.generated\.js is stale: its schema changed; run npm run generate/)
    // npm run generate makes it fresh again.
    expect(node(root, 'scripts/compile-validators.mjs', '--write').status).toBe(0)
    expect(node(root, 'scripts/compile-validators.mjs').status).toBe(0)
  })

  it('a schema changed without npm run generate', () => {
    const root = copyOf(VALIDATORS)
    const schema = join(root, 'schemas', 'record.schema.json')
    const text = JSON.parse(readFileSync(schema, 'utf8'))
    text.properties.label = {type: ['string', 'null'], maxLength: 7}
    writeFileSync(schema, JSON.stringify(text))
    expect(node(root, 'scripts/compile-validators.mjs').status).toBe(1)
  })

  it('an import() in the fast-path bundle, which its code cache could not run', () => {
    const root = copyOf(['scripts/code-cache.cjs', 'dist/fast-path.cjs'])
    appendFileSync(join(root, 'dist/fast-path.cjs'), '\nconst later = () => import("node:fs")\n')
    const refused = node(root, 'scripts/code-cache.cjs')
    expect(refused.status).toBe(1)
    expect(refused.stderr).toMatch(/dist\/fast-path\.cjs:\d+ has an import\(\)/)
  })
})

describe("the published schemas' self-contained copies", () => {
  it('compile in ajv as it comes (strict), with no keyword of pk added', async () => {
    const {Ajv} = await import('ajv')
    const {readdirSync} = await import('node:fs')
    const dir = join(REPO, 'dist', 'schemas')
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'))
    expect(files).toContain('config.schema.json')
    for (const file of files) expect(() => new Ajv().compile(JSON.parse(readFileSync(join(dir, file), 'utf8'))), file).not.toThrow()
  })
})
