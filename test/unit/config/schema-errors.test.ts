import {describe, expect, it} from 'vitest'

import {describeSchemaError} from '../../../src/lib/config/schema-errors.js'

const schema = {
  type: 'object',
  properties: {
    list: {
      type: 'array',
      errorMessage: 'must be a list',
      items: {type: 'object', properties: {'a/b': {type: 'string'}}, required: ['need'], additionalProperties: false},
    },
    plain: {type: 'number'},
  },
}

describe('describeSchemaError', () => {
  it('writes the key as a person does: [i] for list items, names as they are (a JSON pointer decoded)', () => {
    const data = {list: [{}, {'a/b': 1}]}
    expect(
      describeSchemaError(schema, data, [
        {instancePath: '/list/1/a~1b', schemaPath: '#/properties/list/items/properties/a~1b/type', keyword: 'type', params: {}},
      ]),
    ).toEqual({key: 'list[1].a/b', message: 'must be a list'})
    expect(
      describeSchemaError(schema, data, [
        {instancePath: '/list/0', schemaPath: '#/properties/list/items/required', keyword: 'required', params: {missingProperty: 'need'}},
      ]),
    ).toEqual({key: 'list[0].need', message: 'is required'})
    expect(
      describeSchemaError(schema, data, [
        {
          instancePath: '/list/0',
          schemaPath: '#/properties/list/items/additionalProperties',
          keyword: 'additionalProperties',
          params: {additionalProperty: 'x'},
        },
      ]),
    ).toEqual({key: 'list[0].x', message: 'unknown key (known: a/b)'})
  })
  it("falls back on ajv's own words where the schema gives none, and names the top level", () => {
    expect(
      describeSchemaError(schema, {plain: 'x'}, [
        {instancePath: '/plain', schemaPath: '#/properties/plain/type', keyword: 'type', message: 'must be number', params: {}},
      ]),
    ).toEqual({key: 'plain', message: 'must be number'})
    expect(describeSchemaError(schema, 1, [{instancePath: '', schemaPath: '#/type', keyword: 'type', params: {}}])).toEqual({
      key: '(top level)',
      message: 'is not valid',
    })
  })
  it('speaks of a choice as a whole: the last error, the one about the node that offered it', () => {
    const errors = [
      {instancePath: '/list', schemaPath: '#/properties/list/anyOf/0/type', keyword: 'type', params: {}},
      {instancePath: '/list', schemaPath: '#/properties/list/anyOf', keyword: 'anyOf', params: {}},
    ]
    expect(describeSchemaError(schema, {list: 1}, errors)).toEqual({key: 'list', message: 'must be a list'})
  })
})
