// The declaration of scripts/compile-validators.mjs's output (schemas/record.schema.json, compiled by ajv).
export interface SchemaError {
  instancePath: string
  keyword: string
  params: {missingProperty?: string}
}
export declare function validate(data: unknown): boolean
export declare namespace validate {
  let errors: SchemaError[] | null | undefined
}
export default validate
