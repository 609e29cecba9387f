import { expect } from 'chai';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { schemaDocuments } from '../../src/schema/request-validator.js';
import { CUSTOM_FORMATS, STANDARD_FORMATS } from '../../src/schema/formats.js';

let ajv: Ajv2020 | undefined;

/** Every schema of schemas/, compiled strictly once, to check responses against the documented ones. */
function compiled(id: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    ajvFormats.default(ajv, [...STANDARD_FORMATS]);
    for (const [name, format] of Object.entries(CUSTOM_FORMATS)) ajv.addFormat(name, { type: 'string', validate: format.validate });
    ajv.addSchema(Object.values(schemaDocuments()));
  }
  const validate = ajv.getSchema(id);
  if (!validate) throw new Error(`no schema ${id}`);
  return validate;
}

/** Fails with AJV's complaints when `data` does not match the response schema `id`. */
export function expectSchema(id: string, data: unknown): void {
  const validate = compiled(id);
  const valid = validate(data);
  expect(valid, `${id}: ${JSON.stringify(validate.errors, null, 1)}`).to.equal(true);
}
