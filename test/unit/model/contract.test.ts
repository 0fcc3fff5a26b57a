import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {JSON_SCHEMA_VERSION, PROBLEM_CODES, SchemaName, schemaHead} from '../../../src/lib/model/contract.js'
import {sessionRow} from '../../helpers/fixtures.js'

const SCHEMAS = join(import.meta.dirname, '..', '..', '..', 'schemas')
const schema = (name: string) => JSON.parse(readFileSync(join(SCHEMAS, name), 'utf8'))

describe('the contract the types and the schemas both state', () => {
  it('every document that names its schema names this version', () => {
    const versions = readdirSync(SCHEMAS)
      .filter((f) => f.endsWith('.json'))
      .map((f) => schema(f).properties?.schema?.const)
      .filter((v) => v !== undefined)
    expect(versions.length).toBeGreaterThan(5)
    expect(new Set(versions)).toEqual(new Set([JSON_SCHEMA_VERSION]))
  })
  it("every document names the schema it follows: `$schema` is its file's `$id`, required, first", () => {
    const names: SchemaName[] = [
      'answer',
      'bg',
      'continue',
      'diff',
      'doctor',
      'land',
      'logs',
      'ls',
      'notify',
      'prune',
      'restore',
      'screen',
      'send',
      'stop',
      'usage',
      'wait',
    ]
    for (const name of names) {
      const file = schema(`${name}.schema.json`)
      expect(file.$id, name).toBe(`urn:pk:${name}`)
      // A document of two kinds (pk land's result or its refusal) states the head in each.
      for (const kind of file.oneOf ?? [file]) {
        expect(kind.properties.$schema, name).toMatchObject({const: file.$id})
        expect(kind.required.slice(0, 2), name).toEqual(['$schema', 'schema'])
      }
      expect(schemaHead(name)).toEqual({$schema: file.$id, schema: JSON_SCHEMA_VERSION})
    }
    // The watch stream: its snapshot line, the one that carries the version.
    expect(schema('watch-event.schema.json').oneOf[0].properties.$schema).toEqual({const: 'urn:pk:watch-event'})
  })
  it('a session row has exactly the fields the session schema lists', () => {
    const {properties, required} = schema('session.schema.json')
    const fields = Object.keys(sessionRow()).sort()
    expect(fields).toEqual(expect.arrayContaining(required))
    // `host` is what a remote host's rows carry besides (pk ls --fleet), `changes` what pk ls --changes adds.
    expect(
      Object.keys(properties)
        .filter((p) => p !== 'host' && p !== 'changes')
        .sort(),
    ).toEqual(fields)
  })
  it('problem codes are unique and of the form the problem schema allows', () => {
    const pattern = new RegExp(schema('problem.schema.json').properties.code.pattern)
    expect(new Set(PROBLEM_CODES).size).toBe(PROBLEM_CODES.length)
    for (const code of PROBLEM_CODES) expect(code).toMatch(pattern)
  })
})

describe('JSON as pk prints it (issue 62, item 9)', () => {
  it('escapes the C1 controls as it escapes C0 ones: U+009D (an OSC to a terminal) reaches it as text', async () => {
    const {jsonDocument, jsonText} = await import('../../../src/lib/model/contract.js')
    const label = 'evil\u009d52;c;aGk=\u009cend\u0085'
    const text = jsonText({label, fine: 'é ∞ ❯'})
    expect(text).toBe('{"label":"evil\\u009d52;c;aGk=\\u009cend\\u0085","fine":"é ∞ ❯"}')
    expect(/[\u0080-\u009f]/.test(text)).toBe(false)
    expect(JSON.parse(text).label).toBe(label)
    expect(/[\u0080-\u009f]/.test(jsonDocument({label}, true))).toBe(false)
  })
})
