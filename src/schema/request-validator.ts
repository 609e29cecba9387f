/**
 * Request validation against the JSON Schemas in schemas/ (draft 2020-12), and the translation of
 * the first schema violation into the error code the interface specification names for it.
 *
 * Two Ajv instances share the same schemas: bodies are JSON and keep their types, while query
 * strings arrive as text and are coerced ('10' -> 10, 'true' -> true). Both fill in defaults.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { SCHEMAS_DIR } from '../paths.js';
import { CUSTOM_FORMATS, FORMAT_NOUNS, PATTERN_NOUNS, STANDARD_FORMATS } from './formats.js';
import { ApiError, type ErrorCode, type ErrorDetails } from '../errors/catalogue.js';
import { isRecord } from '../json-record.js';
import { dotted } from './json-shape.js';

// ---------------------------------------------------------------------------------------------
// Loading

interface Registry {
  readonly documents: ReadonlyMap<string, AnySchemaObject>;
  /** Every schema added, each compiled the first time it validates (Ajv keeps the compiled function). */
  readonly body: Ajv2020;
  readonly query: Ajv2020;
}

let registry: Registry | undefined;

function createAjv(coerceTypes: boolean): Ajv2020 {
  // verbose: errors then carry the offending value and the schema it broke, which the mapping needs.
  // strict: a typo in a schema (unknown keyword, format or type mix-up) fails at load, not in production.
  // strictRequired is off because if/then requirements name properties declared beside the if, not in the then.
  const ajv = new Ajv2020({
    allErrors: false, useDefaults: true, coerceTypes, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true,
  });
  ajvFormats.default(ajv, [...STANDARD_FORMATS]);
  for (const [name, format] of Object.entries(CUSTOM_FORMATS)) {
    ajv.addFormat(name, { type: 'string', validate: format.validate });
  }
  return ajv;
}

function withSchemas(ajv: Ajv2020, documents: ReadonlyMap<string, AnySchemaObject>): Ajv2020 {
  return ajv.addSchema([...documents.values()]);
}

/**
 * Reads every schema once, on first use, and compiles each when it first validates: compiling all
 * of them for bodies and for query strings took over a second of every process's start, most of
 * it for schemas that process never uses (a worker validates no request). `compileEverySchema`
 * keeps strict mode's promise that a typo in a schema fails a test, not a request.
 */
function load(): Registry {
  if (registry) return registry;
  const documents = new Map<string, AnySchemaObject>();
  for (const file of fs.readdirSync(SCHEMAS_DIR).filter((f) => f.endsWith('.json')).sort()) {
    const id = file.slice(0, -'.json'.length);
    const schema = JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, file), 'utf8')) as AnySchemaObject;
    if (schema.$id !== id) throw new Error(`${file}: $id must be "${id}", found ${JSON.stringify(schema.$id)}`);
    documents.set(id, schema);
  }
  registry = { documents, body: withSchemas(createAjv(false), documents), query: withSchemas(createAjv(true), documents) };
  return registry;
}

// ---------------------------------------------------------------------------------------------
// Public API

/**
 * Validates a JSON request body and returns it with defaults filled in (the object is updated in
 * place). A request without a body counts as `{}`, so that a missing required field is reported by name.
 */
export function validateBody<T>(schemaId: string, data: unknown): T {
  return run(load().body, schemaId, data === undefined ? {} : data, 'body') as T;
}

/**
 * Validates a parsed query string and returns a coerced copy with defaults filled in. The copy
 * matters: Koa caches ctx.query, and its values must stay the strings its type promises.
 */
export function validateQuery<T>(schemaId: string, data: unknown): T {
  const copy = isRecord(data) ? { ...data } : data;
  const coerced = run(load().query, schemaId, copy, 'querystring');
  refuseInfinite(schemaId, data, coerced);
  return coerced as T;
}

/**
 * AJV coerces '1e309', '-1e309' and 'Infinity' to infinite numbers, which pass its number and
 * integer types and skip minimum and maximum (it compares finite numbers only), so they would
 * reach SQL as they are. A query string is flat: its numbers are its top-level values.
 */
function refuseInfinite(schemaId: string, original: unknown, coerced: unknown): void {
  if (!isRecord(coerced)) return;
  for (const [name, value] of Object.entries(coerced)) {
    if (typeof value !== 'number' || Number.isFinite(value)) continue;
    const properties = load().documents.get(schemaId)?.properties as Record<string, AnySchemaObject> | undefined;
    raise({
      keyword: 'type', path: [name], present: true, value: isRecord(original) ? original[name] : value,
      schema: properties?.[name], params: {}, ajvMessage: 'must be a finite number',
    }, 'querystring');
  }
}

/** Every schema by id, as written in schemas/ (copies: callers may change them freely). */
export function schemaDocuments(): Record<string, object> {
  return Object.fromEntries([...load().documents].map(([id, schema]) => [id, structuredClone(schema)]));
}

/** Compiles every schema for bodies and for query strings: what a start no longer does, for a test to do. */
export function compileEverySchema(): void {
  const { documents, body, query } = load();
  for (const id of documents.keys()) for (const ajv of [body, query]) compiled(ajv, id);
}

function compiled(ajv: Ajv2020, schemaId: string): ValidateFunction {
  const validate = ajv.getSchema(schemaId);
  if (!validate) throw new Error(`Unknown schema id: ${schemaId}`);
  return validate;
}

function run(ajv: Ajv2020, schemaId: string, data: unknown, root: string): unknown {
  const validate = compiled(ajv, schemaId);
  if (validate(data)) return data;
  const first = validate.errors?.[0];
  if (!first) throw new Error(`Schema ${schemaId} rejected the data without saying why`);
  return raise(toProblem(first), root);
}

// ---------------------------------------------------------------------------------------------
// From an AJV error to an ApiError

/** An AJV error restated in request terms: which field, what it held, and the field's schema. */
interface Problem {
  readonly keyword: string;
  /** Path of the offending field from the root, e.g. ['options', 'timeout'] or ['sources', '3']. */
  readonly path: readonly string[];
  /** false when the field is missing. */
  readonly present: boolean;
  readonly value: unknown;
  /** The field's own schema, when known (not for unknown fields). */
  readonly schema: AnySchemaObject | undefined;
  /** AJV's keyword parameters, e.g. { limit: 500 } for maxLength. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly ajvMessage: string | undefined;
}

function toProblem(error: ErrorObject): Problem {
  const at = error.instancePath === ''
    ? []
    : error.instancePath.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  const common = { keyword: error.keyword, params, ajvMessage: error.message };
  if (error.keyword === 'required') {
    const name = String(params.missingProperty);
    const properties = error.parentSchema?.properties as Record<string, AnySchemaObject> | undefined;
    return { ...common, path: [...at, name], present: false, value: undefined, schema: properties?.[name] };
  }
  if (error.keyword === 'additionalProperties') {
    const name = String(params.additionalProperty);
    const value = isRecord(error.data) ? error.data[name] : undefined;
    return { ...common, path: [...at, name], present: true, value, schema: undefined };
  }
  return { ...common, path: at, present: true, value: error.data, schema: error.parentSchema };
}

/**
 * Fields whose errors have a code of their own in the specification (7.3), keyed by their dotted
 * path. Keyed by field rather than by schema so that every schema with such a field behaves alike.
 */
const SPECIFIC_ERRORS: Readonly<Record<string, (p: Problem, parameter: string) => ApiError>> = {
  query: queryError,
  q: queryError,
  max_results: (p, parameter) => new ApiError('INVALID_MAX_RESULTS', compact({
    parameter,
    min_value: p.schema?.minimum,
    max_value: p.schema?.maximum,
    provided: provided(p),
  })),
  language: (p, parameter) => enumError('INVALID_LANGUAGE', p, parameter),
  format: (p, parameter) => enumError('INVALID_FORMAT', p, parameter),
  country: (p, parameter) => new ApiError('INVALID_COUNTRY', compact({
    parameter,
    provided: provided(p),
    format: 'ISO 3166-1 alpha-2',
  })),
  url: (p, parameter) => new ApiError(
    'URL_INVALID',
    { url: provided(p) ?? null, expected_format: 'absolute http:// or https:// URL' },
    p.present ? undefined : `The ${parameter} parameter is required.`,
  ),
};

function raise(p: Problem, root: string): never {
  const parameter = dotted(p.path);
  // An unknown field is never a bad value of a known one, whatever its name.
  const specific = p.keyword !== 'additionalProperties' && Object.hasOwn(SPECIFIC_ERRORS, parameter)
    ? SPECIFIC_ERRORS[parameter]
    : undefined;
  if (specific) throw specific(p, parameter);
  const name = parameter || root;
  const reason = reasonFor(p);
  throw new ApiError('INVALID_PARAMETER', compact({ parameter: name, reason, provided: provided(p) }), `${name} ${reason}`);
}

function queryError(p: Problem, parameter: string): ApiError {
  const limit = typeof p.params.limit === 'number' ? p.params.limit : undefined;
  if (p.keyword === 'minLength') {
    return new ApiError('QUERY_TOO_SHORT', { min_length: limit, provided_length: charCount(p.value) });
  }
  if (p.keyword === 'maxLength') {
    return new ApiError('QUERY_TOO_LONG', { max_length: limit, provided_length: charCount(p.value) });
  }
  const min = typeof p.schema?.minLength === 'number' ? p.schema.minLength : 0;
  const max = typeof p.schema?.maxLength === 'number' ? `-${p.schema.maxLength}` : '+';
  const details = { parameter, expected: `string (${min}${max} characters)` };
  if (!p.present) {
    return new ApiError('QUERY_REQUIRED', { ...details, provided: null }, `The ${parameter} parameter is required.`);
  }
  if (p.keyword === 'type') {
    return new ApiError('QUERY_REQUIRED', { ...details, provided: jsonType(p.value) }, `The ${parameter} parameter must be a string.`);
  }
  // What remains is the non-blank pattern: whitespace alone is no query at all.
  return new ApiError('QUERY_REQUIRED', compact({ ...details, provided: provided(p) }), `The ${parameter} parameter must not be blank.`);
}

function enumError(code: ErrorCode, p: Problem, parameter: string): ApiError {
  // The supported values come from the field's own schema: search and extract allow different formats.
  return new ApiError(code, compact({ parameter, provided: provided(p), supported: p.schema?.enum }));
}

/** Human text for INVALID_PARAMETER, phrased to follow the parameter name. */
function reasonFor(p: Problem): string {
  const limit = typeof p.params.limit === 'number' ? p.params.limit : 0;
  switch (p.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not allowed';
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters long`;
    case 'maxLength':
      return `must be at most ${limit} characters long`;
    case 'minItems':
      return `must contain at least ${plural(limit, 'item')}`;
    case 'maxItems':
      return `must contain at most ${plural(limit, 'item')}`;
    case 'uniqueItems':
      return 'must not contain duplicates';
    case 'minProperties':
      return `must contain at least one of: ${Object.keys(p.schema?.properties ?? {}).join(', ')}`;
    default: {
      const noun = p.schema ? describe(p.schema) : undefined;
      return noun ? `must be ${noun}` : (p.ajvMessage ?? 'is invalid');
    }
  }
}

/** What a value of this schema looks like, as a noun phrase ("an integer from 1 to 60"). */
function describe(schema: AnySchemaObject): string | undefined {
  if (Array.isArray(schema.enum)) return `one of: ${schema.enum.join(', ')}`;
  if ('const' in schema) return JSON.stringify(schema.const);
  switch (schema.type) {
    case 'integer':
      return `an integer${range(schema.minimum, schema.maximum)}`;
    case 'number':
      return `a number${range(schema.minimum, schema.maximum)}`;
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'an array';
    case 'object':
      return 'an object';
    case 'string': {
      if (typeof schema.format === 'string') return FORMAT_NOUNS[schema.format] ?? `a string in ${schema.format} format`;
      const base = typeof schema.pattern === 'string'
        ? (PATTERN_NOUNS[schema.pattern] ?? `a string matching ${schema.pattern}`)
        : 'a string';
      return base + range(schema.minLength, schema.maxLength, ' characters');
    }
    default:
      return undefined;
  }
}

/** ' from 1 to 60' for values, ' of 1 to 500 characters' for lengths. */
function range(min: unknown, max: unknown, unit = ''): string {
  const hasMin = typeof min === 'number';
  const hasMax = typeof max === 'number';
  if (hasMin && hasMax) return ` ${unit ? 'of' : 'from'} ${min} to ${max}${unit}`;
  if (hasMin) return ` of at least ${min}${unit}`;
  if (hasMax) return ` of at most ${max}${unit}`;
  return '';
}

// ---------------------------------------------------------------------------------------------
// Small helpers

/**
 * Values echoed back in `details` are capped, so a 10 MB field is not sent back to its sender; the
 * cap leaves room for the longest URL we accept (2048 characters) with its JSON escaping.
 */
const MAX_ECHO_CHARS = 4096;

function provided(p: Problem): unknown {
  return p.present && serialisesWithin(p.value, MAX_ECHO_CHARS) ? p.value : undefined;
}

/**
 * Whether `value` takes at most `max` characters as JSON (give or take its separators), found
 * without serialising it: a value can be megabytes long, and serialising it recurses. Stops as
 * soon as the count passes `max`.
 */
function serialisesWithin(value: unknown, max: number): boolean {
  let length = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && length <= max) {
    const next = pending.pop();
    if (Array.isArray(next)) {
      length += 1 + next.length;
      for (let i = 0; i < next.length && length <= max; i++) pending.push(next[i]);
    } else if (next !== null && typeof next === 'object') {
      length += 1;
      for (const name in next) {
        length += name.length + 4;
        pending.push((next as Record<string, unknown>)[name]);
        if (length > max) break;
      }
    } else if (typeof next === 'string' && next.length > max) {
      return false;
    } else {
      length += (JSON.stringify(next) ?? '').length;
    }
  }
  return length <= max;
}

/** Drops absent fields, so that `details` never carries an explicit undefined. */
function compact(details: ErrorDetails): ErrorDetails {
  return Object.fromEntries(Object.entries(details).filter(([, v]) => v !== undefined));
}

/** Length in characters (code points), as the schema's minLength/maxLength count it. */
function charCount(value: unknown): number {
  return typeof value === 'string' ? [...value].length : 0;
}

/** typeof, with JSON's names for null and arrays. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
