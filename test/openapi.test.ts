import { expect } from 'chai';
import { buildOpenApi, type RouteDoc } from '../src/http/openapi.js';
import { postTavilySearch } from '../src/http/routes/compat-tavily.js';

/** The document is free-form JSON; `any` keeps the many deep property reads below readable. */
type Json = Record<string, any>;

const ROUTES: readonly RouteDoc[] = [
  { method: 'GET', path: '/v1/health', summary: 'Service health', tag: 'monitoring', response: 'health.response' },
  {
    method: 'POST', path: '/v1/search', summary: 'Search the web', tag: 'core', scope: 'search',
    body: 'search.request', response: 'search.response',
  },
  { method: 'GET', path: '/v1/audit', summary: 'Audit log', tag: 'monitoring', scope: 'monitor', query: 'audit.query' },
  { method: 'GET', path: '/v1/audit/export', summary: 'Audit export', tag: 'monitoring', scope: 'monitor', query: 'audit-export.query', media: ['application/x-ndjson', 'text/csv'] },
  { method: 'GET', path: '/v1/cache/query', summary: 'Read the cache', tag: 'cache', scope: 'cache', query: 'cache-query.query', notFound: true },
  { method: 'DELETE', path: '/v1/auth/keys/:id', summary: 'Revoke a key', tag: 'keys', scope: 'admin' },
  { method: 'POST', path: '/v1/auth/keys/:id/rotate', summary: 'Rotate a key', tag: 'keys', scope: 'admin' },
  { method: 'PUT', path: '/v1/teams/:teamId/members/:member_id', summary: 'Add a member', tag: 'keys', scope: 'admin' },
];

const build = (routes: readonly RouteDoc[] = ROUTES): Json => buildOpenApi(routes, '1.4.2') as Json;

/** Resolves a local JSON pointer reference such as '#/components/schemas/a.b/$defs/x'. */
function resolve(doc: Json, ref: string): unknown {
  expect(ref.startsWith('#/'), ref).to.equal(true);
  return ref.slice(2).split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], doc);
}

function collectRefs(node: unknown, refs: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => collectRefs(n, refs));
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') refs.push(value);
      else collectRefs(value, refs);
    }
  }
  return refs;
}

describe('openapi', () => {
  it('is an OpenAPI 3.1 document with the given version and the route tags', () => {
    const doc = build();
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.info.version).to.equal('1.4.2');
    expect(doc.info.title).to.be.a('string');
    expect(doc.tags).to.deep.equal([{ name: 'monitoring' }, { name: 'core' }, { name: 'cache' }, { name: 'keys' }]);
    expect(() => JSON.stringify(doc)).not.to.throw();
  });

  it('declares bearer and X-API-Key authentication, required by default, and the console session cookie', () => {
    const doc = build();
    expect(doc.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.apiKeyAuth).to.include({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.components.securitySchemes.sessionCookie).to.include({ type: 'apiKey', in: 'cookie', name: 'sev_session' });
    expect(doc.security).to.deep.equal([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
  });

  it('marks public routes with an empty security list and scoped ones with their scope', () => {
    const doc = build();
    expect(doc.paths['/v1/health'].get.security).to.deep.equal([]);
    expect(doc.paths['/v1/search'].post.security).to.deep.equal([{ bearerAuth: ['search'] }, { apiKeyAuth: ['search'] }, { sessionCookie: ['search'] }]);
  });

  it('turns Koa path parameters into OpenAPI ones', () => {
    const doc = build();
    expect(Object.keys(doc.paths)).to.include.members([
      '/v1/auth/keys/{id}', '/v1/auth/keys/{id}/rotate', '/v1/teams/{teamId}/members/{member_id}',
    ]);
    const revoke = doc.paths['/v1/auth/keys/{id}'].delete;
    expect(revoke.parameters).to.have.length(1);
    expect(revoke.parameters[0]).to.include({ name: 'id', in: 'path', required: true });
    expect(revoke.parameters[0].schema).to.deep.equal({ type: 'string' });
    const member = doc.paths['/v1/teams/{teamId}/members/{member_id}'].put;
    expect(member.parameters.map((p: Json) => p.name)).to.deep.equal(['teamId', 'member_id']);
    expect(revoke.responses).to.have.property('404');
    expect(doc.paths['/v1/search'].post.responses).not.to.have.property('404');
    // A cache lookup names its entry in the query string, and a miss is a 404.
    expect(doc.paths['/v1/cache/query'].get.responses).to.have.property('404');
    expect(doc.paths['/v1/audit'].get.responses).not.to.have.property('404');
  });

  it('gives every operation a distinct operationId', () => {
    const doc = build();
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item as Json).map((op: Json) => op.operationId));
    expect(ids).to.have.length(ROUTES.length);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(doc.paths['/v1/auth/keys/{id}'].delete.operationId).to.equal('deleteV1AuthKeysId');
  });

  it('references the request body schema', () => {
    const search = build().paths['/v1/search'].post;
    expect(search.requestBody).to.deep.equal({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/search.request' } } },
    });
    expect(search.summary).to.equal('Search the web');
    expect(search.tags).to.deep.equal(['core']);
  });

  it('expands a query schema into parameters', () => {
    const doc = build();
    const audit = doc.paths['/v1/audit'].get;
    expect(audit).not.to.have.property('requestBody');
    expect(audit.parameters.map((p: Json) => p.name)).to.deep.equal(
      ['limit', 'offset', 'start_date', 'end_date', 'endpoint', 'status', 'request_id', 'account_id', 'mode'],
    );
    const limit = audit.parameters[0];
    expect(limit).to.include({ in: 'query', required: false, description: 'Number of entries per page.' });
    expect(limit.schema).to.deep.equal({ type: 'integer', minimum: 1, maximum: 1000, default: 50 });
    // An export answers with a file, not the JSON envelope.
    expect(Object.keys(doc.paths['/v1/audit/export'].get.responses['200'].content)).to.deep.equal(['application/x-ndjson', 'text/csv']);
    const q = doc.paths['/v1/cache/query'].get.parameters[0];
    expect(q).to.include({ name: 'q', in: 'query', required: true });
  });

  it('wraps the response schema in the success envelope', () => {
    const doc = build();
    const schema = doc.paths['/v1/search'].post.responses['200'].content['application/json'].schema;
    expect(schema.required).to.deep.equal(['success', 'data']);
    expect(schema.properties.success).to.include({ const: true });
    expect(schema.properties.data).to.deep.equal({ $ref: '#/components/schemas/search.response' });
    expect(schema.properties.request_id).to.include({ type: 'string' });
    const audit = doc.paths['/v1/audit'].get.responses['200'].content['application/json'].schema;
    expect(audit.properties.data).to.include({ type: 'object' });
  });

  it('lists the error responses that apply, all in the error envelope', () => {
    const doc = build();
    expect(Object.keys(doc.paths['/v1/search'].post.responses)).to.deep.equal(
      ['200', '400', '401', '403', '408', '415', '422', '429', '431', '500', '503'],
    );
    expect(Object.keys(doc.paths['/v1/health'].get.responses)).to.deep.equal(['200', '400', '403', '408', '431', '500', '503']);
    expect(doc.paths['/v1/search'].post.responses['400']).to.deep.equal({ $ref: '#/components/responses/Error400' });
    const error400 = doc.components.responses.Error400;
    expect(error400.description).to.include('QUERY_TOO_LONG').and.include('INVALID_PARAMETER');
    expect(error400.content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/error.envelope' });
    expect(doc.components.responses.Error429.headers).to.have.property('Retry-After');
  });

  it('documents an HTML form body, a redirect and failures particular to a route', () => {
    const doc = build([
      ...ROUTES,
      { method: 'GET', path: '/v1/sso/:account_id/login', summary: 'Sign in', tag: 'SSO', redirect: true },
      { method: 'POST', path: '/v1/sso/:account_id/acs', summary: 'ACS', tag: 'SSO', form: true, body: 'sso-acs.request', media: ['text/html'], failures: [401] },
    ]);
    const login = doc.paths['/v1/sso/{account_id}/login'].get;
    expect(login.responses).not.to.have.property('200');
    expect(login.responses['302'].headers).to.have.property('Location');
    const acs = doc.paths['/v1/sso/{account_id}/acs'].post;
    expect(Object.keys(acs.requestBody.content)).to.deep.equal(['application/x-www-form-urlencoded']);
    expect(Object.keys(acs.responses['200'].content)).to.deep.equal(['text/html']);
    expect(acs.responses).to.have.property('401');
    expect(acs.security).to.deep.equal([]);
  });

  it('documents the compatibility routes under their own tags, in their vendors\' shapes', () => {
    const doc = build([...ROUTES, postTavilySearch]);
    expect(doc.tags.map((t: { name: string }) => t.name)).to.include('Compatibility: Tavily');
    const search = doc.paths['/compat/tavily/search'].post;
    expect(search.tags).to.deep.equal(['Compatibility: Tavily']);
    // The vendor's body itself, not data in the envelope.
    expect(search.responses['200'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/compat-tavily-search.response' });
    expect(search.responses['403'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/compat-tavily.error' });
    expect(search.responses['403'].headers).to.have.property('X-Error-Code');
    // Tavily's own status for a used-up plan.
    expect(search.responses['432'].description).to.include('MONTHLY_LIMIT_EXCEEDED');
    expect(search.responses['429'].description).to.include('RATE_LIMITED').and.not.include('MONTHLY_LIMIT_EXCEEDED');
  });

  it('puts every schema under components without $id and with resolvable references', () => {
    const doc = build();
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas)).to.include.members(['search.request', 'audit.query', 'error.envelope', 'validate.response']);
    for (const [id, schema] of Object.entries(schemas as Json)) {
      expect(schema, id).not.to.have.property('$id');
      expect(schema, id).not.to.have.property('$schema');
    }
    const refs = collectRefs(doc);
    expect(refs).to.include('#/components/schemas/validate.response/$defs/evidence_item');
    for (const ref of refs) expect(resolve(doc, ref), ref).to.be.an('object');
    expect(schemas['error.envelope'].properties.success).to.deep.equal({ description: 'Always false.', const: false });
  });

  it('refuses a route documented twice or naming an unknown schema', () => {
    const twice: RouteDoc = { method: 'GET', path: '/v1/health', summary: 'again', tag: 'monitoring' };
    expect(() => build([...ROUTES, twice])).to.throw(/documented twice/);
    expect(() => build([{ method: 'POST', path: '/v1/x', summary: 'x', tag: 'x', body: 'nope.request' }]))
      .to.throw(/no schema nope.request/);
    expect(() => build([{ method: 'GET', path: '/v1/x', summary: 'x', tag: 'x', query: 'nope.query' }]))
      .to.throw(/no schema nope.query/);
  });
});
