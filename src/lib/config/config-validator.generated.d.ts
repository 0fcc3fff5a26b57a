// The declaration of scripts/compile-validators.mjs's output (schemas/config.schema.json, compiled by ajv).
import type {SchemaError} from './schema-errors.js'
export declare function validate(data: unknown): boolean
export declare namespace validate {
  let errors: SchemaError[] | null | undefined
}
export default validate
/** schemas/config.schema.json itself: what pk says about a wrong value is its nodes' errorMessage. */
export declare const schema: Record<string, unknown>
