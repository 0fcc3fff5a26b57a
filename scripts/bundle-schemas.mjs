// Writes dist/schemas/: each JSON Schema of schemas/ made self-contained, the schemas it refers to by $id
// (urn:pk:NAME) copied under its own "definitions", so a plain validator needs no resolver (npm run build).
import {mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const source = join(root, 'schemas')
const target = join(root, 'dist', 'schemas')
const byId = new Map(
  readdirSync(source)
    .filter((f) => f.endsWith('.schema.json'))
    .map((f) => {
      const schema = JSON.parse(readFileSync(join(source, f), 'utf8'))
      return [schema.$id, {file: f, schema}]
    }),
)

const name = (id) => id.replace(/^urn:pk:/, '')

/** The schema with every urn:pk ref pointing into its own definitions, and the names it needs there. */
function rewrite(value, needed) {
  if (Array.isArray(value)) return value.map((v) => rewrite(v, needed))
  if (value === null || typeof value !== 'object') return value
  const out = {}
  for (const [key, v] of Object.entries(value)) {
    if (key === '$ref' && typeof v === 'string' && v.startsWith('urn:pk:')) {
      needed.add(v)
      out.$ref = `#/definitions/${name(v)}`
    } else out[key] = rewrite(v, needed)
  }
  return out
}

mkdirSync(target, {recursive: true})
for (const [id, {file, schema}] of byId) {
  const needed = new Set()
  const bundled = rewrite(schema, needed)
  const definitions = {}
  for (let added = true; added;) {
    added = false
    for (const ref of [...needed]) {
      if (definitions[name(ref)] || ref === id) continue
      const {$id, $schema, ...rest} = byId.get(ref).schema
      void $id
      void $schema
      definitions[name(ref)] = rewrite(rest, needed)
      added = true
    }
  }
  if (Object.keys(definitions).length > 0) bundled.definitions = definitions
  writeFileSync(join(target, file), JSON.stringify(bundled, null, 2) + '\n')
}
