/**
 * The OpenAPI 3.1 document of the service, built from the route table and the JSON Schemas the
 * requests are validated with, so that the documentation cannot drift from what is enforced.
 */
import { ApiError, ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../errors/catalogue.js';
import { schemaDocuments } from '../schema/request-validator.js';
import { ERROR_CODE_HEADER, type VendorErrorFormat } from './vendor-format.js';

export interface RouteDoc {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** Koa style, e.g. /v1/auth/keys/:id */
  path: string;
  summary: string;
  tag: string;
  /** Required API-key permission (a scope, admin or operator), or undefined for a public route. */
  scope?: string;
  /** Qualifier in required_permission (`<scope>:<qualifier>`); default read for GET, write otherwise. */
  permission?: string;
  /** Schema id of the JSON body. */
  body?: string;
  /** Schema id of the query string. */
  query?: string;
  /** Schema id of `data` in the success envelope. */
  response?: string;
  /** Media types of a 200 that is a file, not the JSON envelope (an export). */
  media?: readonly string[];
  /** Schema id of such a file when it is JSON (a Grafana dashboard); otherwise it is documented as a string. */
  mediaSchema?: string;
  /** Status of a success when it is not 200 (201 for a creation). */
  status?: number;
  /** Answers 404 for something named outside the path (a cache lookup by its query string). Routes with path parameters always may. */
  notFound?: boolean;
  /**
   * A route that speaks another vendor's API (see vendor-format.ts): its `response` schema is the
   * whole body, not `data` in the envelope, and its failures are rendered in this format.
   */
  vendor?: VendorErrorFormat;
  /** A key route a developer passes with own_keys: the key service then limits it to its own keys. */
  ownKeys?: boolean;
  /** The body is an HTML form (application/x-www-form-urlencoded), as an identity provider posts it, not JSON. */
  form?: boolean;
  /** Answers 302 with Location (a sign-in sent on to the identity provider), not a body. */
  redirect?: boolean;
  /** Statuses of failures particular to the route, besides those its shape implies. */
  failures?: readonly number[];
  /**
   * The error a public route answers when the credential it is handed instead of a key (an SSO
   * assertion, an invitation token) is refused: counted against the client address' failed
   * authentications like a refused key (AUTH_FAILURES_PER_MINUTE), 429 past the budget.
   */
  credentialRefusal?: ErrorCode;
  /** A body field the key may be sent in, for clients that send it there (Tavily's `api_key`); headers win. */
  keyInBody?: string;
  /**
   * Not counted against the quotas although its scope is metered: reading a job's progress
   * (a Firecrawl batch), which clients poll; only its rate limit applies.
   */
  unmetered?: boolean;
}

type Json = Record<string, unknown>;

const PATH_PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;

/** Keywords whose values are data, not schemas: a "$ref" inside them is not a reference. */
const VALUE_KEYWORDS: ReadonlySet<string> = new Set(['const', 'enum', 'default', 'examples']);

const RATE_LIMIT_HEADERS: Readonly<Record<string, Json>> = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets, Unix seconds.', schema: { type: 'integer' } },
  'X-RateLimit-Window': { description: 'Length of the window in seconds.', schema: { type: 'integer' } },
};

const RETRY_AFTER_HEADER: Json = { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } };

export function buildOpenApi(routes: readonly RouteDoc[], version: string): object {
  const documents = schemaDocuments();
  const schemas: Record<string, Json> = {};
  for (const [id, schema] of Object.entries(documents)) schemas[id] = toComponent(id, schema as Json);

  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const openPath = route.path.replace(PATH_PARAM, '{$1}');
    const item = (paths[openPath] ??= {});
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`Route documented twice: ${route.method} ${route.path}`);
    item[method] = operation(route, schemas);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Search, Extraction and Validation API',
      version,
      description: 'Web search with generated summaries, content extraction and claim validation, '
        + 'plus result cache, monitoring, dashboards, alerts and key management.',
    },
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    security: [{ bearerAuth: [] }, { apiKeyAuth: [] }],
    paths,
    components: {
      schemas,
      responses: errorResponses(),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
        apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'For clients that cannot send a bearer token.' },
        sessionCookie: {
          type: 'apiKey', in: 'cookie', name: 'sev_session',
          description: 'A console session (POST /v1/session, SSO, an accepted invitation); changes also need its CSRF token in X-CSRF-Token.',
        },
      },
    },
  };
}

function operation(route: RouteDoc, schemas: Readonly<Record<string, Json>>): Json {
  const lookup = (id: string): Json => {
    const schema = schemas[id];
    if (!schema) throw new Error(`${route.method} ${route.path}: no schema ${id}`);
    return schema;
  };
  const ref = (id: string): Json => {
    lookup(id); // an unknown id is a mistake in the route table: fail now, not in a client's code generator
    return { $ref: `#/components/schemas/${id}` };
  };
  const pathParams = [...route.path.matchAll(PATH_PARAM)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    description: `The ${m[1]} of the resource.`,
    schema: { type: 'string' },
  }));
  const parameters = [...pathParams, ...(route.query ? queryParameters(lookup(route.query)) : [])];

  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c?: string) => (c ?? '').toUpperCase())}`,
    summary: route.summary,
    tags: [route.tag],
    // OpenAPI 3.1 lets non-OAuth requirements list role names: here, the key scope the route needs.
    security: route.scope ? [{ bearerAuth: [route.scope] }, { apiKeyAuth: [route.scope] }, { sessionCookie: [route.scope] }] : [],
    ...(route.scope ? { description: accessNote(route) } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { [route.form ? 'application/x-www-form-urlencoded' : 'application/json']: { schema: ref(route.body) } } } }
      : {}),
    responses: {
      ...(route.redirect ? { 302: { description: 'Redirect.', headers: { Location: { description: 'Where the browser goes next.', schema: { type: 'string' } } } } } : {}),
      ...(route.redirect ? {} : { [route.status ?? 200]: {
        description: route.status === 201 ? 'Created.' : 'Success.',
        ...(route.scope ? { headers: RATE_LIMIT_HEADERS } : {}),
        content: route.media
          ? Object.fromEntries(route.media.map((type) => [type, { schema: route.mediaSchema ? ref(route.mediaSchema) : { type: 'string' } }]))
          : { 'application/json': { schema: route.vendor && route.response ? ref(route.response) : successEnvelope(route.response ? ref(route.response) : undefined) } },
      } }),
      ...(route.vendor
        ? vendorErrorResponses(route.vendor, errorStatuses(route, pathParams.length > 0 || route.notFound === true), ref(route.vendor.schema))
        : Object.fromEntries(
          errorStatuses(route, pathParams.length > 0 || route.notFound === true).map((s) => [s, { $ref: `#/components/responses/Error${s}` }]),
        )),
    },
  };
}

/**
 * The failures of a route that speaks another vendor's API: the statuses its format gives the
 * catalogued errors the route can meet, each in the vendor's error body.
 */
function vendorErrorResponses(vendor: VendorErrorFormat, nativeStatuses: readonly number[], schema: Json): Record<string, Json> {
  const byStatus = new Map<number, string[]>();
  for (const code of ERROR_CODES) {
    if (!nativeStatuses.includes(ERROR_CATALOGUE[code].status)) continue;
    const { status } = vendor.render(new ApiError(code), 'req_example');
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => [String(status), {
    description: `Error in the vendor's format, for ${codes.join(', ')}.`,
    headers: {
      [ERROR_CODE_HEADER]: { description: 'The catalogued error code (see /docs/errors).', schema: { type: 'string' } },
      ...(status === 429 ? { ...RATE_LIMIT_HEADERS, 'Retry-After': RETRY_AFTER_HEADER } : {}),
    },
    content: { 'application/json': { schema } },
  }]));
}

function accessNote(route: RouteDoc): string {
  const scope = route.scope!;
  if (scope === 'operator') return 'Requires the master key.';
  if (scope === 'authenticated') return 'Requires any valid API key.';
  if (scope === 'admin') {
    return 'Requires the master key, or a key with the admin permission (for its own account), or a team member in the admin role'
      + `${route.ownKeys ? '; a developer reaches its own keys only' : ''}.`;
  }
  return `Requires an API key with the ${scope} scope.`;
}

/** The statuses a route can answer with besides 200, from what it takes and whether it needs a key. */
function errorStatuses(route: RouteDoc, mayBeMissing: boolean): number[] {
  // Any route: 403 HTTPS_REQUIRED; what the HTTP layer refuses (400 MALFORMED_REQUEST, 408, 431).
  const statuses = [400, 403, 408, 431, 500, 503];
  if (route.scope) statuses.push(401, 429);
  else if (route.credentialRefusal) statuses.push(429);
  if (mayBeMissing) statuses.push(404);
  if (route.body) statuses.push(415, 422);
  for (const status of route.failures ?? []) if (!statuses.includes(status)) statuses.push(status);
  return statuses.sort((a, b) => a - b);
}

/** One shared response per status, listing the error codes the catalogue gives that status. */
function errorResponses(): Record<string, Json> {
  const byStatus = new Map<number, string[]>();
  for (const code of ERROR_CODES) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => [
    `Error${status}`,
    {
      description: `Error: ${codes.join(', ')}.`,
      ...(status === 429 ? { headers: { ...RATE_LIMIT_HEADERS, 'Retry-After': RETRY_AFTER_HEADER } } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/error.envelope' } } },
    },
  ]));
}

function successEnvelope(data: Json | undefined): Json {
  return {
    type: 'object',
    required: ['success', 'data'],
    properties: {
      success: { const: true, description: 'Always true.' },
      data: data ?? { type: 'object', description: 'The result.' },
      request_id: { type: 'string', description: 'Identifier of the request.' },
    },
  };
}

/** A query-string schema as OpenAPI parameters: one per property. */
function queryParameters(schema: Json): Json[] {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

/**
 * A schema as an OpenAPI component: without $id and $schema (the document's default dialect is
 * 2020-12 already), and with references made absolute within the OpenAPI document, because a
 * component has no base URI of its own once its $id is gone.
 */
function toComponent(id: string, schema: Json): Json {
  const rest = { ...schema };
  delete rest.$id;
  delete rest.$schema;
  return rewriteRefs(rest, id) as Json;
}

function rewriteRefs(node: unknown, ownId: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, ownId));
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(Object.entries(node).map(([key, value]) => {
    if (key === '$ref' && typeof value === 'string') return [key, componentRef(value, ownId)];
    return [key, VALUE_KEYWORDS.has(key) ? value : rewriteRefs(value, ownId)];
  }));
}

/** 'other#/$defs/x' -> '#/components/schemas/other/$defs/x'; '#/$defs/x' stays within its own schema. */
function componentRef(ref: string, ownId: string): string {
  const hash = ref.indexOf('#');
  const target = hash === -1 ? ref : ref.slice(0, hash) || ownId;
  const pointer = hash === -1 ? '' : ref.slice(hash + 1);
  return `#/components/schemas/${target}${pointer}`;
}
