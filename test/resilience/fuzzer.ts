/**
 * A schema-aware fuzzer over the service's own OpenAPI document: for every operation it builds a
 * request the schemas accept (as far as formats allow) and then breaks it the ways clients and
 * attackers do — wrong types, bounds, huge and deep JSON, ill-formed Unicode, duplicate keys,
 * bad content types, header abuse. Cases come from a seeded generator, so a failing case is
 * reproduced by its seed and number.
 *
 * Every URL a case carries points at the test's own page server: a fuzzed body must never make
 * the service fetch anything beyond 127.0.0.1.
 */
import { prng } from '../helpers/prng.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, any>;

export interface Operation {
  method: string;
  /** OpenAPI path with {parameters}. */
  path: string;
  parameters: { name: string; in: string; required?: boolean; schema: Schema }[];
  body?: Schema;
}

export interface FuzzCase {
  n: number;
  operation: string;
  method: string;
  /** Path and query string, already encoded as sent. */
  target: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** What was done to the request, for the report of a failing case. */
  mutations: string[];
}

export interface FuzzContext {
  /** Pages of the test's own server: the only URLs a case may carry. */
  pageUrls: string[];
  /** Real ids by path parameter owner (the first path segment after /v1), so some cases reach existing things. */
  ids: Record<string, string[]>;
  /** The key sent when a case does not tamper with authentication. */
  apiKey: string;
}

const DEEP = 5000;

/** The operations of an OpenAPI document, with their body schemas resolved to components. */
export function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      ops.push({ method: method.toUpperCase(), path, parameters: op.parameters ?? [], ...(body ? { body } : {}) });
    }
  }
  return ops;
}

export class Fuzzer {
  private readonly random: () => number;
  private n = 0;

  constructor(private readonly doc: any, private readonly context: FuzzContext, seed: number) {
    this.random = prng(seed);
  }

  /** The next case for an operation; `pristine` leaves it as the schemas would have it. */
  next(op: Operation, options: { pristine?: boolean } = {}): FuzzCase {
    const mutations: string[] = [];
    const headers: Record<string, string> = { authorization: `Bearer ${this.context.apiKey}` };
    const query = new URLSearchParams();
    const rawQuery: string[] = [];
    let path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(this.pathValue(op.path, name)));
    for (const p of op.parameters.filter((x) => x.in === 'query')) {
      if (p.required || this.chance(0.4)) query.set(p.name, String(this.sample(p.schema, 0)));
    }
    let body: Json | undefined = op.body ? this.sample(op.body, 0) : undefined;
    let text: string | Buffer | undefined;

    let method = op.method;
    const kinds = ['query', 'path', 'header', 'method'];
    if (op.body) kinds.push('body', 'body', 'body', 'raw', 'raw', 'content-type');
    const count = options.pristine || this.chance(0.1) ? 0 : this.chance(0.7) ? 1 : 2;
    for (let i = 0; i < count; i++) {
      const kind = this.pick(kinds);
      if (kind === 'body' && body !== undefined) body = this.mutateValue(body, op.body!, mutations);
      else if (kind === 'query') this.mutateQuery(op, query, rawQuery, mutations);
      else if (kind === 'path') path = this.mutatePath(op, path, mutations);
      else if (kind === 'header') this.mutateHeaders(headers, mutations);
      else if (kind === 'content-type') this.mutateContentType(headers, mutations);
      else if (kind === 'method') mutations.push(`method:${(method = this.pick(['OPTIONS', 'HEAD', 'PATCH', 'PUT', 'DELETE', 'POST', 'GET']))}`);
      else if (kind === 'raw') text = this.mutateText(JSON.stringify(localised(body, this.context.pageUrls)), mutations);
    }
    if (text === undefined && body !== undefined) text = JSON.stringify(localised(body, this.context.pageUrls));
    if (text !== undefined && !headers['content-type'] && !mutations.some((m) => m.startsWith('content-type'))) headers['content-type'] = 'application/json';
    const search = [...[...query].map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(localised(v, this.context.pageUrls) as string)}`), ...rawQuery].join('&');
    return {
      n: this.n++, operation: `${method} ${op.path}`, method, target: search ? `${path}?${search}` : path, headers,
      ...(text !== undefined && method !== 'GET' && method !== 'HEAD' ? { body: text } : {}), mutations,
    };
  }

  // --- values the schemas accept -------------------------------------------------------------

  private resolve(schema: Schema): Schema {
    let s = schema;
    for (let i = 0; s?.$ref && i < 20; i++) s = this.doc.components.schemas[String(s.$ref).split('/').pop()!];
    return s ?? {};
  }

  private sample(raw: Schema, depth: number): Json {
    const schema = this.resolve(raw);
    if ('const' in schema) return schema.const as Json;
    if (schema.enum) return this.pick(schema.enum as Json[]);
    if (schema.examples && this.chance(0.8)) return this.pick(schema.examples as Json[]);
    const alternatives = schema.oneOf ?? schema.anyOf;
    if (alternatives) return this.sample(this.pick(alternatives as Schema[]), depth);
    if (schema.allOf) return this.sample(Object.assign({}, ...(schema.allOf as Schema[]).map((s) => this.resolve(s))), depth);
    const type = Array.isArray(schema.type) ? this.pick(schema.type as string[]) : schema.type;
    switch (type) {
      case 'object': {
        const out: Record<string, Json> = {};
        const required = new Set<string>(schema.required ?? []);
        for (const [name, prop] of Object.entries<Schema>(schema.properties ?? {})) {
          if (required.has(name) || (depth < 4 && this.chance(0.35))) out[name] = this.sample(prop, depth + 1);
        }
        return out;
      }
      case 'array': {
        const min = schema.minItems ?? 0;
        const n = Math.min(min + Math.floor(this.random() * 3), schema.maxItems ?? Infinity);
        return Array.from({ length: n }, () => this.sample(schema.items ?? {}, depth + 1));
      }
      case 'integer': case 'number': {
        const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
        const max = schema.maximum ?? min + 100;
        const value = min + this.random() * (Math.min(max, min + 1000) - min);
        return type === 'integer' ? Math.floor(value) : value;
      }
      case 'boolean': return this.chance(0.5);
      case 'null': return null;
      case 'string': return this.stringFor(schema);
      default: return this.chance(0.5) ? 'x' : 1;
    }
  }

  private stringFor(schema: Schema): string {
    switch (schema.format) {
      case 'uri': case 'url': case 'uri-reference': case 'http-url': case 'url-or-domain': return this.pick(this.context.pageUrls);
      case 'date-time': return new Date(Date.now() + (this.chance(0.5) ? 1 : -1) * Math.floor(this.random() * 86_400_000)).toISOString();
      case 'date': return new Date().toISOString().slice(0, 10);
      case 'email': return 'fuzz@example.com';
      case 'hostname': return 'example.com';
      case 'country-code': return 'US';
      case 'ipv4': return '192.0.2.1';
      case 'cidr': return this.pick(['192.0.2.0/24', '2001:db8::/32', '127.0.0.1/32']);
      case 'time-span': return this.pick(['5m', '1h', '24h']);
      default: break;
    }
    const length = Math.max(schema.minLength ?? 1, Math.min(schema.maxLength ?? 24, 1 + Math.floor(this.random() * 24)));
    const text = this.pick(['fuzz', 'solid state battery', 'the quick brown fox', 'claim about vitamins']).padEnd(length, 'x').slice(0, length);
    if (typeof schema.pattern !== 'string') return text;
    // A value the pattern accepts when one of a few plain shapes does.
    const pattern = new RegExp(schema.pattern, 'u');
    return [text, 'fuzz_env', `/${text}`, '/v1/search', 'a'].find((candidate) => pattern.test(candidate)) ?? text;
  }

  // --- mutations -----------------------------------------------------------------------------

  /** A wrong value somewhere in the body: a type, a bound, a size, a string no UTF-8 can hold. */
  private mutateValue(body: Json, schema: Schema, mutations: string[]): Json {
    const paths = pathsOf(body);
    const target = this.pick(paths);
    const resolved = this.schemaAt(schema, target);
    const choice = this.pick(['type', 'type', 'bound', 'huge-string', 'surrogate', 'nul', 'drop', 'unknown', 'big-array', 'deep-object', 'null']);
    let value: Json;
    switch (choice) {
      case 'type': value = this.pick<Json>([true, 0, -1, 1.5, 'x', '', [], {}, [1, 'a', null], { a: 1 }, 'NaN', '1e309']); break;
      case 'bound': value = this.boundValue(resolved); break;
      case 'huge-string': value = 'A'.repeat(this.pick([501, 10_001, 200_000])); break;
      case 'surrogate': value = this.pick(['\ud800', 'a\udfffb', '\udc00\ud800', 'ok\ud83d']); break;
      case 'nul': value = 'a\u0000b\u001f\u202e'; break;
      case 'big-array': value = Array.from({ length: this.pick([51, 1001, 20_000]) }, (_, i) => (this.chance(0.5) ? i : this.pick(this.context.pageUrls))); break;
      case 'deep-object': value = nested(this.pick([40, 200, 2000])); break;
      case 'null': value = null; break;
      case 'drop': mutations.push(`drop:${target.join('.')}`); return withValue(body, target, undefined);
      default: mutations.push(`unknown:${target.join('.')}`); return withValue(body, [...target.slice(0, -1), `unexpected_${this.n}`], 'x');
    }
    mutations.push(`${choice}:${target.join('.') || '(root)'}`);
    return withValue(body, target, value);
  }

  private boundValue(schema: Schema): Json {
    if (schema.type === 'integer' || schema.type === 'number') {
      return this.pick<Json>([(schema.minimum ?? 0) - 1, (schema.maximum ?? 1e6) + 1, 1e308, -1e308, 2 ** 63, 0.5, -0]);
    }
    if (schema.type === 'array') return Array.from({ length: (schema.maxItems ?? 100) + 1 }, () => 'x');
    if (schema.type === 'string') return 'b'.repeat((schema.maxLength ?? 1000) + 1);
    return this.pick<Json>([[], {}, '']);
  }

  /** Breaks the JSON text itself: what JSON.stringify never writes and parsers differ on. */
  private mutateText(text: string, mutations: string[]): string | Buffer {
    const choice = this.pick(['deep', 'deep', 'duplicate-key', 'truncate', 'infinity', 'bom', 'invalid-utf8', 'not-json', 'top-level', 'empty', 'escaped-surrogate', 'whitespace']);
    mutations.push(`raw:${choice}`);
    switch (choice) {
      case 'deep': {
        // Nesting spliced in as text: thousands of levels, the stack's enemy.
        const depth = this.pick([DEEP, 10_000, 100_000]);
        const deep = this.chance(0.5) ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
        // In place of a field's value, or as a field of its own (which a strict schema refuses, echoing it).
        return this.chance(0.5) ? text.replace(/:("[^"]*"|[^,{}[\]]+)/, `:${deep}`) : text.replace(/^\{/, `{"_deep":${deep}${text === '{}' ? '' : ','}`);
      }
      case 'duplicate-key': return text.replace(/^\{"([^"]+)":/, (_m, key: string) => `{"${key}":{"dup":true},"${key}":`);
      case 'truncate': return text.slice(0, Math.floor(this.random() * text.length));
      case 'infinity': return text.replace(/:(-?\d+(\.\d+)?)/, ':1e999');
      case 'bom': return `\ufeff${text}`;
      case 'invalid-utf8': return Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.from([0x2c, 0x22, 0x78, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0xff, 0x22, 0x7d])]);
      case 'not-json': return this.pick(['query=x&y=1', '<xml/>', 'undefined', "{'a':1}", '{"a":1,}', 'NaN']);
      case 'top-level': return this.pick(['[]', '1', '"x"', 'null', 'true', '[{"query":"x"}]']);
      case 'empty': return '';
      case 'escaped-surrogate': return text.replace(/"([^"\\]*)"\s*}$/, '"\\udbff\\u0041"}');
      default: return `${' '.repeat(100_000)}${text}`;
    }
  }

  private mutateQuery(op: Operation, query: URLSearchParams, rawQuery: string[], mutations: string[]): void {
    const params = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    const name = params.length > 0 && this.chance(0.8) ? this.pick(params) : `unknown_${this.n}`;
    const choice = this.pick(['overflow', 'negative', 'word', 'repeat', 'percent', 'surrogate', 'long', 'empty', 'fraction']);
    mutations.push(`query:${choice}:${name}`);
    query.delete(name);
    switch (choice) {
      case 'overflow': rawQuery.push(`${name}=${this.pick(['1e309', '-1e309', '99999999999999999999999', '0x10', 'Infinity'])}`); break;
      case 'negative': rawQuery.push(`${name}=-1`); break;
      case 'word': rawQuery.push(`${name}=abc`); break;
      case 'repeat': rawQuery.push(`${name}=1`, `${name}=2`); break;
      case 'percent': rawQuery.push(`${name}=${this.pick(['%ZZ', '%', '%E0%A4%A', '%00', '%C0%AF'])}`); break;
      case 'surrogate': rawQuery.push(`${name}=%ED%A0%80`); break;
      case 'long': rawQuery.push(`${name}=${'9'.repeat(this.pick([400, 8000]))}`); break;
      case 'fraction': rawQuery.push(`${name}=1.5`); break;
      default: rawQuery.push(`${name}=`);
    }
  }

  private mutatePath(op: Operation, path: string, mutations: string[]): string {
    const choice = this.pick(['junk', 'long', 'surrogate', 'traversal', 'nul', 'suffix', 'encoded-slash', 'case']);
    mutations.push(`path:${choice}`);
    const segments = path.split('/');
    const last = segments.length - 1;
    const parameterised = op.path.includes('{');
    const at = parameterised ? op.path.split('/').findIndex((s) => s.startsWith('{')) : last;
    switch (choice) {
      case 'junk': segments[at] = encodeURIComponent("'; DROP TABLE x;--\u00e9\u4e2d"); break;
      case 'long': segments[at] = 'k'.repeat(this.pick([300, 5000])); break;
      case 'surrogate': segments[at] = '%ED%A0%80'; break;
      case 'traversal': segments[at] = this.pick(['..', '%2e%2e', '.%2E', '..%2f..%2fetc']); break;
      case 'nul': segments[at] = 'a%00b'; break;
      case 'encoded-slash': segments[at] = 'a%2Fb'; break;
      case 'case': return path.toUpperCase();
      default: return `${path}/extra`;
    }
    return segments.join('/');
  }

  private mutateHeaders(headers: Record<string, string>, mutations: string[]): void {
    const choice = this.pick(['no-auth', 'bad-auth', 'long-auth', 'basic', 'request-id', 'forwarded', 'accept', 'version', 'long-header', 'user-agent']);
    mutations.push(`header:${choice}`);
    switch (choice) {
      case 'no-auth': delete headers.authorization; break;
      case 'bad-auth': headers.authorization = this.pick(['Bearer', 'Bearer ', 'Bearer sev_live_xyz', 'bearer\tx', 'Bearer a b c', 'Token x']); break;
      case 'long-auth': headers.authorization = `Bearer ${'k'.repeat(this.pick([1000, 15_000]))}`; break;
      case 'basic': headers.authorization = `Basic ${Buffer.from('a:b').toString('base64')}`; break;
      case 'request-id': headers['x-request-id'] = this.pick(['', 'x'.repeat(5000), 'a b\tc', '../../etc', 'é'.normalize('NFD')].map((v) => Buffer.from(v).toString('latin1'))); break;
      case 'forwarded': headers['x-forwarded-for'] = this.pick(['not-an-ip', '1.2.3.4, ::1, 999.1.1.1', ','.repeat(500), '[::ffff:127.0.0.1]:80']); break;
      case 'accept': headers.accept = this.pick(['text/html', 'application/xml;q=0.9', '*/*;q=abc', '']); break;
      case 'version': headers['api-version'] = this.pick(['v999', '', 'v1; DROP', '0']); break;
      case 'user-agent': headers['user-agent'] = 'u'.repeat(this.pick([600, 9000])); break;
      default: headers['x-fuzz'] = 'h'.repeat(this.pick([4000, 20_000]));
    }
  }

  private mutateContentType(headers: Record<string, string>, mutations: string[]): void {
    const value = this.pick(['', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16',
      'application/json; charset=latin1', 'application/json;;;', 'application/vnd.api+json', 'JSON']);
    mutations.push(`content-type:${value || '(none)'}`);
    if (value) headers['content-type'] = value;
    else delete headers['content-type'];
  }

  private pathValue(path: string, _name: string): string {
    const owner = path.split('/')[2] ?? '';
    const ids = this.context.ids[owner] ?? [];
    return ids.length > 0 && this.chance(0.7) ? this.pick(ids) : `${owner.slice(0, 4)}_${Math.floor(this.random() * 1e9).toString(36)}`;
  }

  private schemaAt(schema: Schema, path: (string | number)[]): Schema {
    let s = this.resolve(schema);
    for (const step of path) {
      s = this.resolve(typeof step === 'number' ? s.items ?? {} : s.properties?.[step] ?? {});
    }
    return s;
  }

  private chance(p: number): boolean {
    return this.random() < p;
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }
}

function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

function withValue(root: Json, path: (string | number)[], value: Json | undefined): Json {
  if (path.length === 0) return value ?? null;
  const copy = structuredClone(root) as any;
  let node = copy;
  for (const step of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return copy;
    node = node[step];
  }
  if (node === null || typeof node !== 'object') return copy;
  const key = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(Number(key), 1);
    else delete node[key];
  } else node[key] = value;
  return copy;
}

function nested(depth: number): Json {
  let value: Json = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** Any URL that names a host other than the test's own server is replaced by one of its pages. */
function localised(value: Json | undefined, pageUrls: string[]): Json | undefined {
  if (typeof value === 'string') {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) return value;
    try {
      const url = new URL(value);
      return url.hostname === '' || url.hostname === '127.0.0.1' ? value : pageUrls[value.length % pageUrls.length]!;
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) return value.map((v) => localised(v, pageUrls) as Json);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, localised(v, pageUrls) as Json]));
  return value;
}
