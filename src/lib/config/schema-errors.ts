/**
 * Pure: what pk says about a value its schema refuses, in the words a person reads in their config file:
 * the key as written (`agents.x.command`, `hosts[0].name`) and the `errorMessage` the schema gives the node
 * that refused it (the deepest one on the way that has one). ajv stops at the first wrong value; for a
 * choice (anyOf, oneOf) or a key's name, its last error is the one about the whole node.
 */
export interface SchemaError {
  instancePath: string
  schemaPath: string
  keyword: string
  message?: string
  params: {missingProperty?: string; additionalProperty?: string; propertyName?: string}
}

type Node = Record<string, unknown>

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v)
const decode = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~')

/** The schema node a local pointer (`#/definitions/preset/properties/command`) names, following a $ref there. */
function nodeAt(schema: Node, pointer: string): Node | null {
  let node: unknown = schema
  for (const segment of pointer.replace(/^#\/?/, '').split('/').filter(Boolean).map(decode)) {
    node = isNode(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined
  }
  if (isNode(node) && typeof node.$ref === 'string') return nodeAt(schema, node.$ref)
  return isNode(node) ? node : null
}

/** The key as a person writes it: dots between names, [i] for an item of a list. */
function keyOf(data: unknown, instancePath: string, last?: string): string {
  let key = ''
  let value = data
  for (const segment of [...instancePath.split('/').slice(1).map(decode), ...(last === undefined ? [] : [last])]) {
    key += Array.isArray(value) ? `[${segment}]` : key === '' ? segment : `.${segment}`
    value = isNode(value) || Array.isArray(value) ? (value as Record<string, unknown>)[segment] : undefined
  }
  return key === '' ? '(top level)' : key
}

function messageOf(node: Node | null): string | null {
  return node !== null && typeof node.errorMessage === 'string' ? node.errorMessage : null
}

/** The deepest node on the error's schema path (its keyword left off) that says what is wrong. */
function nearestMessage(schema: Node, schemaPath: string): string | null {
  const segments = schemaPath.split('/')
  for (let end = segments.length - 1; end > 0; end--) {
    const found = messageOf(nodeAt(schema, segments.slice(0, end).join('/')))
    if (found !== null) return found
  }
  return null
}

export function describeSchemaError(schema: Node, data: unknown, errors: readonly SchemaError[]): {key: string; message: string} {
  const error = errors.at(-1)!
  const parentPath = error.schemaPath.replace(/\/[^/]+$/, '')
  const {missingProperty, additionalProperty, propertyName} = error.params
  if (error.keyword === 'additionalProperties' && additionalProperty !== undefined) {
    const known = Object.keys((nodeAt(schema, parentPath)?.properties as Node | undefined) ?? {})
    return {key: keyOf(data, error.instancePath, additionalProperty), message: `unknown key (known: ${known.join(', ')})`}
  }
  if (error.keyword === 'required' && missingProperty !== undefined) {
    const property = nodeAt(schema, `${parentPath}/properties/${missingProperty}`)
    return {key: keyOf(data, error.instancePath, missingProperty), message: messageOf(property) ?? 'is required'}
  }
  if (error.keyword === 'propertyNames' && propertyName !== undefined) {
    return {key: keyOf(data, error.instancePath, propertyName), message: messageOf(nodeAt(schema, error.schemaPath)) ?? 'is not a valid name'}
  }
  return {key: keyOf(data, error.instancePath), message: nearestMessage(schema, error.schemaPath) ?? error.message ?? 'is not valid'}
}
