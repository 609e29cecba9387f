import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { ROUTES } from '../src/http/routes/index.js';
import { MAX_JSON_DEPTH } from '../src/schema/json-shape.js';

/** JSON text of `levels` arrays nested in one another. */
const nestedArrays = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

/**
 * Hostile input refused at the edge, with a catalogued 400 and never a 500: bodies nested too
 * deep, text that is not well-formed Unicode, numbers in query strings too large to be finite.
 */
describe('input at the edge', function () {
  this.timeout(60_000);
  let service: TestService;
  let key: string;

  before(async () => {
    service = await startTestService({ PLANS_FILE: writePlansFile() }, 'api');
    key = (await createKey(service.url, { account_id: await createAccount(service.url, 'enterprise') })).key;
  });
  after(() => service.close());

  const store = (body: string | Record<string, unknown>) => call(service.url, '/v1/cache/store', { key, body });
  const query = (q: string) => call(service.url, `/v1/cache/query?q=${encodeURIComponent(q)}`, { key });

  describe('nesting depth', () => {
    it(`refuses a body nested deeper than ${MAX_JSON_DEPTH} levels on every route that takes one, naming the limit`, async () => {
      // A route that takes an HTML form (the SAML assertion consumer) answers JSON with 415 (test/sso.test.ts).
      const withBody = ROUTES.filter((route) => (route.body !== undefined || route.bodyEnvelope !== undefined) && route.form !== true);
      expect(withBody.length).to.be.at.least(15);
      for (const route of withBody) {
        const path = route.path.replace(/\{[^}]+\}/g, 'x_1');
        const response = await call(service.url, path, { method: route.method, body: `{"deep": ${nestedArrays(5000)}}` });
        const what = `${route.method} ${path}: ${JSON.stringify(response.json).slice(0, 300)}`;
        expect(response.status, what).to.equal(400);
        if (route.vendor) {
          // A route that speaks another vendor's API refuses in that vendor's format, the code in a header.
          expect(response.headers.get('x-error-code'), what).to.equal('INVALID_PARAMETER');
          expect(JSON.stringify(response.json), what).to.include(`more than ${MAX_JSON_DEPTH} levels deep`);
          continue;
        }
        expect(response.json.error.code, what).to.equal('INVALID_PARAMETER');
        expect(response.json.error.details, what).to.deep.equal({ parameter: 'deep', reason: `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep` });
        expect(response.json.error.message, what).to.include(String(MAX_JSON_DEPTH));
      }
    });

    it('refuses deep cache content before it reaches the cache, and accepts content up to the limit', async () => {
      const refused = await store(`{"query": "deep content", "content": ${nestedArrays(10_000)}}`);
      expect(refused.status, JSON.stringify(refused.json)).to.equal(400);
      expect(refused.json.error.details.parameter).to.equal('content');
      expect((await query('deep content')).status).to.equal(404);

      // The body's own object is the first level: content may hold 63 more.
      expect((await store(`{"query": "deep content", "content": ${nestedArrays(MAX_JSON_DEPTH)}}`)).status).to.equal(400);
      const stored = await store(`{"query": "deep content", "content": ${nestedArrays(MAX_JSON_DEPTH - 1)}}`);
      expect(stored.status, JSON.stringify(stored.json)).to.equal(200);
      expect(JSON.stringify((await query('deep content')).json.data.content)).to.equal(nestedArrays(MAX_JSON_DEPTH - 1));
    });

    it('names the field without echoing a large value back', async () => {
      // A wrong type whose value is 2 MB of JSON: refused by its schema, and not sent back.
      const response = await call(service.url, '/v1/extract', { key, body: { url: 'http://example.com', format: ['x'.repeat(2_000_000)] } });
      expect(response.status).to.equal(400);
      expect(response.json.error.details).to.include({ parameter: 'format' });
      expect(response.json.error.details).not.to.have.property('provided');
    });
  });

  describe('ill-formed Unicode', () => {
    it('refuses a lone surrogate in a cache tag, and the cache stays usable', async () => {
      const refused = await store({ query: 'surrogate tag', content: 1, tags: ['ok', '\ud800'] });
      expect(refused.status, JSON.stringify(refused.json)).to.equal(400);
      expect(refused.json.error).to.deep.include({ code: 'INVALID_PARAMETER' });
      expect(refused.json.error.details).to.deep.equal({ parameter: 'tags[1]', reason: 'holds a lone UTF-16 surrogate (not well-formed Unicode)' });
      expect((await query('surrogate tag')).status).to.equal(404);
      // Nothing half-stored poisons the namespace: clearing it works.
      expect((await store({ query: 'surrogate tag', content: 2, tags: ['ok'] })).status).to.equal(200);
      const cleared = await call(service.url, '/v1/cache/clear', { key, method: 'DELETE', body: { tags: ['ok'] } });
      expect(cleared.status, JSON.stringify(cleared.json)).to.equal(200);
      expect(cleared.json.data.deleted).to.equal(1);
    });

    it('refuses lone surrogates in any string and member name of any body, well-formed pairs accepted', async () => {
      // Written as JSON escapes: the only way a lone surrogate reaches us (raw bytes are decoded as UTF-8).
      const value = 'holds a lone UTF-16 surrogate (not well-formed Unicode)';
      const name = 'has a member name holding a lone UTF-16 surrogate (not well-formed Unicode)';
      const cases: Array<[string, string, string, string]> = [
        ['/v1/search', '{"query": "tea \\udc00"}', 'query', value],
        ['/v1/validate', '{"claim": "The sky is blue.", "sources": ["who.int", "\\ud83d"]}', 'sources[1]', value],
        ['/v1/cache/store', '{"query": "q", "content": {"a": [{"\\udfff": 1}]}}', 'content.a[0]', name],
        ['/v1/cache/store', '{"\\ud800": 1}', 'body', name],
      ];
      for (const [path, body, parameter, reason] of cases) {
        const response = await call(service.url, path, { key, body });
        expect(response.status, `${path} ${JSON.stringify(response.json)}`).to.equal(400);
        expect(response.json.error.details, path).to.deep.equal({ parameter, reason });
      }
      const pair = await store('{"query": "emoji \\ud83d\\ude00", "content": {"\\ud83d\\ude00": "\\ud83d\\ude00"}}');
      expect(pair.status, JSON.stringify(pair.json)).to.equal(200);
      expect((await query('emoji 😀')).json.data.content).to.deep.equal({ '😀': '😀' });
    });

    it('cannot receive a lone surrogate through a query string or a path: bad percent-encodings decode to U+FFFD', async () => {
      // %ED%A0%80 is U+D800 encoded as if it were a character; UTF-8 decoding replaces each byte.
      const query = await call(service.url, '/v1/cache/query?q=%ED%A0%80', { key });
      expect(query.status).to.equal(404);
      expect(query.json.error.details.id).to.equal('\ufffd\ufffd\ufffd');
      // A path segment that is not UTF-8 stays as it was sent.
      const path = await call(service.url, '/v1/auth/keys/%ED%A0%80');
      expect(path.status).to.equal(404);
      expect(path.json.error.details.id).to.equal('%ED%A0%80');
    });
  });

  describe('numbers in query strings', () => {
    it('refuses a number too large to be finite in every paged list, naming the parameter', async () => {
      const cases: Array<[string, string]> = [
        ['/v1/auth/keys?limit=1e309', 'limit'],
        ['/v1/auth/keys?offset=1e309', 'offset'],
        ['/v1/accounts?limit=-1e309', 'limit'],
        ['/v1/accounts?offset=Infinity', 'offset'],
        ['/v1/auth/service-accounts?offset=1e400', 'offset'],
        ['/v1/dashboards?limit=1e309', 'limit'],
        ['/v1/audit?offset=1e309', 'offset'],
      ];
      for (const [path, parameter] of cases) {
        const response = await call(service.url, path);
        expect(response.status, `${path} ${JSON.stringify(response.json)}`).to.equal(400);
        expect(response.json.error.code, path).to.equal('INVALID_PARAMETER');
        expect(response.json.error.details.parameter, path).to.equal(parameter);
        expect(response.json.error.details.provided, path).to.equal(new URLSearchParams(path.split('?')[1]).get(parameter));
      }
      expect((await call(service.url, '/v1/auth/keys?limit=1e2&offset=0')).status).to.equal(200);
    });
  });
});
