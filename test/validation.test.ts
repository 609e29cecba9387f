import { expect } from 'chai';
import { ISO_COUNTRIES, isCountryCode } from '../src/schema/countries.js';
import { ApiError } from '../src/errors/catalogue.js';
import { compileEverySchema, schemaDocuments, validateBody, validateQuery } from '../src/schema/request-validator.js';

/** The ApiError `fn` throws; fails the test when it throws nothing or something else. */
function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError, nothing was thrown');
}

function expectError(fn: () => unknown, code: string, details: Record<string, unknown>): void {
  const error = apiError(fn);
  expect(error.code).to.equal(code);
  expect(error.details).to.deep.equal(details);
}

const search = (body: Record<string, unknown>) => () => validateBody('search.request', { query: 'q', ...body });
const extract = (body: Record<string, unknown>) => () => validateBody('extract.request', { url: 'https://example.com/', ...body });

const invalid = (parameter: string, reason: string, provided?: unknown) => ({
  parameter,
  reason,
  ...(provided === undefined ? {} : { provided }),
});

describe('validation', () => {
  it('compiles every schema in strict mode, for bodies and for query strings (a start compiles each on first use only)', () => {
    expect(() => compileEverySchema()).to.not.throw();
  });

  describe('schemas', () => {
    it('loads every schema under its file name', () => {
      const documents = schemaDocuments();
      for (const id of [
        'search.request', 'extract.request', 'validate.request', 'cache-query.query', 'cache-store.request',
        'cache-clear.request', 'usage.query', 'audit.query', 'errors.query', 'metrics-live.query',
        'dashboard.request', 'auth-key.request', 'service-account.request', 'alert.request',
        'search.response', 'extract.response', 'validate.response', 'health.response', 'error.envelope',
      ]) {
        expect(documents[id], id).to.include({ $id: id });
      }
    });

    it('describes every property and closes every request object', () => {
      const visit = (node: unknown, where: string, isRequest: boolean): void => {
        if (typeof node !== 'object' || node === null) return;
        const schema = node as Record<string, unknown>;
        if (schema.type === 'object' && schema.properties) {
          if (isRequest) expect(schema.additionalProperties, `${where} additionalProperties`).to.equal(false);
          for (const [name, property] of Object.entries(schema.properties as Record<string, unknown>)) {
            expect(property, `${where}.${name}`).to.have.property('description').that.is.a('string');
            visit(property, `${where}.${name}`, isRequest);
          }
        }
        if (schema.items) visit(schema.items, `${where}[]`, isRequest);
      };
      for (const [id, schema] of Object.entries(schemaDocuments())) {
        visit(schema, id, id.endsWith('.request') || id.endsWith('.query'));
      }
    });

    it('returns copies that callers cannot use to change validation', () => {
      const documents = schemaDocuments() as Record<string, { properties: Record<string, { maximum?: number }> }>;
      const maxResults = documents['search.request']?.properties.max_results;
      if (maxResults) maxResults.maximum = 1000;
      expect(apiError(search({ max_results: 21 })).code).to.equal('INVALID_MAX_RESULTS');
    });

    it('treats an unknown schema id as a programming error', () => {
      expect(() => validateBody('nope.request', {})).to.throw(Error, /Unknown schema id: nope.request/)
        .and.not.be.instanceOf(ApiError);
      expect(() => validateQuery('nope.query', {})).to.throw(Error).and.not.be.instanceOf(ApiError);
    });
  });

  describe('search query', () => {
    const expected = 'string (1-500 characters)';

    it('applies the defaults of a minimal request', () => {
      expect(validateBody('search.request', { query: 'solid-state batteries' })).to.deep.equal({
        query: 'solid-state batteries',
        max_results: 10,
        format: 'markdown',
        include_sources: true,
        options: { enable_cache: true, timeout: 15, deep_search: false },
      });
    });

    it('keeps given values and fills in the missing nested defaults', () => {
      const body = validateBody<{ options: Record<string, unknown> }>('search.request', {
        query: 'q', options: { timeout: 30 },
      });
      expect(body.options).to.deep.equal({ enable_cache: true, timeout: 30, deep_search: false });
    });

    it('accepts a full request', () => {
      const body = {
        query: 'q', max_results: 20, language: 'ja', country: 'JP', recency: 'week', format: 'markdown',
        include_sources: false, domain_filter: { include: ['nature.com'], exclude: ['example.org'] },
        options: { enable_cache: false, timeout: 60, deep_search: true },
      };
      expect(validateBody('search.request', structuredClone(body))).to.deep.equal(body);
    });

    it('reports a missing query as QUERY_REQUIRED', () => {
      expectError(() => validateBody('search.request', {}), 'QUERY_REQUIRED',
        { parameter: 'query', expected, provided: null });
    });

    it('treats a request without a body as an empty object', () => {
      expectError(() => validateBody('search.request', undefined), 'QUERY_REQUIRED',
        { parameter: 'query', expected, provided: null });
    });

    it('reports a query of the wrong type as QUERY_REQUIRED with the type given', () => {
      expectError(search({ query: 42 }), 'QUERY_REQUIRED', { parameter: 'query', expected, provided: 'number' });
      expectError(search({ query: null }), 'QUERY_REQUIRED', { parameter: 'query', expected, provided: 'null' });
      expectError(search({ query: ['a'] }), 'QUERY_REQUIRED', { parameter: 'query', expected, provided: 'array' });
    });

    it('reports a blank query as QUERY_REQUIRED with the value given', () => {
      expectError(search({ query: '  \t' }), 'QUERY_REQUIRED', { parameter: 'query', expected, provided: '  \t' });
    });

    it('reports an empty query as QUERY_TOO_SHORT', () => {
      expectError(search({ query: '' }), 'QUERY_TOO_SHORT', { min_length: 1, provided_length: 0 });
    });

    it('reports a query over 500 characters as QUERY_TOO_LONG', () => {
      expectError(search({ query: 'a'.repeat(501) }), 'QUERY_TOO_LONG', { max_length: 500, provided_length: 501 });
      expect(apiError(search({ query: 'a'.repeat(501) })).status).to.equal(400);
    });

    it('counts characters, not UTF-16 units', () => {
      expect(() => validateBody('search.request', { query: '😀'.repeat(500) })).not.to.throw();
      expectError(search({ query: '😀'.repeat(501) }), 'QUERY_TOO_LONG', { max_length: 500, provided_length: 501 });
    });
  });

  describe('search parameters with codes of their own', () => {
    const maxResults = (provided: unknown) => ({ parameter: 'max_results', min_value: 1, max_value: 20, provided });

    it('reports max_results out of range, fractional or not a number as INVALID_MAX_RESULTS', () => {
      expectError(search({ max_results: 0 }), 'INVALID_MAX_RESULTS', maxResults(0));
      expectError(search({ max_results: 21 }), 'INVALID_MAX_RESULTS', maxResults(21));
      expectError(search({ max_results: 2.5 }), 'INVALID_MAX_RESULTS', maxResults(2.5));
      // Bodies are JSON: a string is not coerced to a number.
      expectError(search({ max_results: '5' }), 'INVALID_MAX_RESULTS', maxResults('5'));
    });

    it('reports an unsupported language as INVALID_LANGUAGE', () => {
      expectError(search({ language: 'it' }), 'INVALID_LANGUAGE',
        { parameter: 'language', provided: 'it', supported: ['en', 'es', 'fr', 'de', 'ja', 'zh'] });
      expectError(search({ language: 7 }), 'INVALID_LANGUAGE',
        { parameter: 'language', provided: 7, supported: ['en', 'es', 'fr', 'de', 'ja', 'zh'] });
    });

    it('reports an unsupported format as INVALID_FORMAT with the formats of that endpoint', () => {
      expectError(search({ format: 'pdf' }), 'INVALID_FORMAT',
        { parameter: 'format', provided: 'pdf', supported: ['json', 'markdown', 'text', 'html'] });
      expectError(extract({ format: 'pdf' }), 'INVALID_FORMAT',
        { parameter: 'format', provided: 'pdf', supported: ['text', 'markdown', 'html', 'json'] });
    });

    it('accepts assigned country codes in either case', () => {
      for (const country of ['US', 'de', 'Gb', 'AQ']) {
        expect(() => validateBody('search.request', { query: 'q', country }), country).not.to.throw();
      }
    });

    it('reports an unassigned or malformed country as INVALID_COUNTRY', () => {
      for (const country of ['XX', 'USA', 'UK', 'u1', '', 'EU']) {
        expectError(search({ country }), 'INVALID_COUNTRY',
          { parameter: 'country', provided: country, format: 'ISO 3166-1 alpha-2' });
      }
      expectError(search({ country: 49 }), 'INVALID_COUNTRY',
        { parameter: 'country', provided: 49, format: 'ISO 3166-1 alpha-2' });
    });
  });

  describe('INVALID_PARAMETER', () => {
    it('names a nested field and the allowed range', () => {
      const error = apiError(search({ options: { timeout: 0 } }));
      expect(error.code).to.equal('INVALID_PARAMETER');
      expect(error.status).to.equal(400);
      expect(error.details).to.deep.equal(invalid('options.timeout', 'must be an integer from 1 to 60', 0));
      expect(error.message).to.equal('options.timeout must be an integer from 1 to 60');
      expectError(search({ options: { timeout: '10' } }), 'INVALID_PARAMETER',
        invalid('options.timeout', 'must be an integer from 1 to 60', '10'));
    });

    it('rejects unknown fields, at the top and nested', () => {
      expectError(search({ foo: 1 }), 'INVALID_PARAMETER', invalid('foo', 'is not allowed', 1));
      expectError(search({ options: { retries: 3 } }), 'INVALID_PARAMETER', invalid('options.retries', 'is not allowed', 3));
      // A field named like one with a code of its own is still just unknown where it does not belong.
      expectError(search({ url: 'x' }), 'INVALID_PARAMETER', invalid('url', 'is not allowed', 'x'));
    });

    it('indexes array items', () => {
      expectError(search({ domain_filter: { include: ['example.com', 'not a host'] } }), 'INVALID_PARAMETER',
        invalid('domain_filter.include[1]', 'must be a host name such as example.com', 'not a host'));
    });

    it('describes enums, booleans, objects and the body itself', () => {
      expectError(search({ recency: 'decade' }), 'INVALID_PARAMETER',
        invalid('recency', 'must be one of: day, week, month, year', 'decade'));
      expectError(search({ include_sources: 'yes' }), 'INVALID_PARAMETER',
        invalid('include_sources', 'must be true or false', 'yes'));
      expectError(search({ options: [] }), 'INVALID_PARAMETER', invalid('options', 'must be an object', []));
      expectError(() => validateBody('search.request', ['q']), 'INVALID_PARAMETER',
        invalid('body', 'must be an object', ['q']));
    });

    it('leaves out values too large to echo', () => {
      expectError(() => validateBody('validate.request', { claim: 'x'.repeat(5000) }), 'INVALID_PARAMETER',
        invalid('claim', 'must be at most 2000 characters long'));
    });
  });

  describe('extract', () => {
    const urlInvalid = (url: unknown) => ({ url, expected_format: 'absolute http:// or https:// URL' });

    it('applies the defaults', () => {
      expect(validateBody('extract.request', { url: 'https://example.com/a?b=1#c' })).to.deep.equal({
        url: 'https://example.com/a?b=1#c',
        format: 'markdown',
        include_metadata: true,
        extract_images: false,
        extract_links: false,
        clean_html: true,
        options: { timeout: 15, preserve_formatting: false, min_content_length: 0, max_age: 0, pdf_page_markers: false, only_main_content: true },
      });
    });

    it('accepts http and https URLs', () => {
      for (const url of ['http://example.com', 'HTTPS://example.com:8443/x', 'http://127.0.0.1/', 'https://[2001:db8::1]/']) {
        expect(extract({ url }), url).not.to.throw();
      }
    });

    it('reports a missing url as URL_INVALID with url null', () => {
      const error = apiError(() => validateBody('extract.request', {}));
      expect(error.code).to.equal('URL_INVALID');
      expect(error.status).to.equal(422);
      expect(error.details).to.deep.equal(urlInvalid(null));
    });

    it('reports a malformed or non-http(s) url as URL_INVALID', () => {
      for (const url of ['ftp://example.com/f', 'example.com', 'not a url', 'http://', 'http:///x', 'http:example.com',
        ' https://example.com', 'https://exa mple.com', 'javascript:alert(1)']) {
        expectError(extract({ url }), 'URL_INVALID', urlInvalid(url));
      }
      expectError(extract({ url: 42 }), 'URL_INVALID', urlInvalid(42));
    });

    it('bounds min_content_length', () => {
      expectError(extract({ options: { min_content_length: -1 } }), 'INVALID_PARAMETER',
        invalid('options.min_content_length', 'must be an integer from 0 to 1000000', -1));
    });
  });

  describe('validate', () => {
    it('requires a claim', () => {
      expectError(() => validateBody('validate.request', {}), 'INVALID_PARAMETER', invalid('claim', 'is required'));
      expectError(() => validateBody('validate.request', { claim: ' ' }), 'INVALID_PARAMETER',
        invalid('claim', 'must be a non-blank string of 1 to 2000 characters', ' '));
    });

    it('accepts URLs and bare domains as sources, up to 50', () => {
      const sources = ['https://www.who.int/news', 'who.int', 'xn--bcher-kva.example'];
      const body = validateBody<{ sources: string[] }>('validate.request', { claim: 'c', sources });
      expect(body.sources).to.deep.equal(sources);
      expectError(() => validateBody('validate.request', { claim: 'c', sources: ['localhost'] }), 'INVALID_PARAMETER',
        invalid('sources[0]', 'must be an http(s) URL or a bare domain such as example.com', 'localhost'));
      const many = Array.from({ length: 51 }, (_, i) => `site${i}.example`);
      expectError(() => validateBody('validate.request', { claim: 'c', sources: many }), 'INVALID_PARAMETER',
        invalid('sources', 'must contain at most 50 items', many));
    });

    it('bounds the options', () => {
      const options = (o: Record<string, unknown>) => () => validateBody('validate.request', { claim: 'c', options: o });
      expectError(options({ confidence_threshold: 1.5 }), 'INVALID_PARAMETER',
        invalid('options.confidence_threshold', 'must be a number from 0 to 1', 1.5));
      expectError(options({ timeout: 121 }), 'INVALID_PARAMETER',
        invalid('options.timeout', 'must be an integer from 1 to 120', 121));
      expectError(() => validateBody('validate.request', { claim: 'c', context: { claim_type: 'rumour' } }),
        'INVALID_PARAMETER', invalid('context.claim_type', 'must be one of: factual, statistical, opinion', 'rumour'));
    });
  });

  describe('cache', () => {
    it('reports a missing q as QUERY_REQUIRED', () => {
      expectError(() => validateQuery('cache-query.query', {}), 'QUERY_REQUIRED',
        { parameter: 'q', expected: 'string (1-500 characters)', provided: null });
      expectError(() => validateQuery('cache-query.query', { q: '' }), 'QUERY_TOO_SHORT', { min_length: 1, provided_length: 0 });
    });

    it('stores any JSON content with defaults', () => {
      for (const content of [null, 0, 'text', [1, 2], { a: { b: true } }]) {
        expect(validateBody('cache-store.request', { query: 'q', content })).to.deep.equal({
          query: 'q', content, ttl: 3600, trust_level: 'medium',
        });
      }
      expectError(() => validateBody('cache-store.request', { query: 'q' }), 'INVALID_PARAMETER', invalid('content', 'is required'));
      expectError(() => validateBody('cache-store.request', { query: 'q', content: 1, ttl: 31536001 }), 'INVALID_PARAMETER',
        invalid('ttl', 'must be an integer from 1 to 31536000', 31536001));
      expectError(() => validateBody('cache-store.request', { query: 'q', content: 1, trust_level: 'total' }),
        'INVALID_PARAMETER', invalid('trust_level', 'must be one of: low, medium, high, verified', 'total'));
    });

    it('needs at least one filter to clear', () => {
      expect(validateBody('cache-clear.request', { tags: ['news'] })).to.deep.equal({ tags: ['news'] });
      expect(() => validateBody('cache-clear.request', { older_than: '2025-01-31T00:00:00Z' })).not.to.throw();
      expectError(() => validateBody('cache-clear.request', {}), 'INVALID_PARAMETER',
        invalid('body', 'must contain at least one of: tags, older_than', {}));
      expectError(() => validateBody('cache-clear.request', { older_than: 'yesterday' }), 'INVALID_PARAMETER',
        invalid('older_than', 'must be an ISO 8601 date-time such as 2025-01-31T12:00:00Z', 'yesterday'));
    });
  });

  describe('query strings', () => {
    it('coerces numbers and booleans and applies defaults', () => {
      expect(validateQuery('audit.query', { limit: '10', offset: '20', status: 'error' }))
        .to.deep.equal({ limit: 10, offset: 20, status: 'error' });
      expect(validateQuery('audit.query', {})).to.deep.equal({ limit: 50, offset: 0 });
      expect(validateQuery('usage.query', { include_details: 'true' }))
        .to.deep.equal({ period: 'month', breakdown: 'day', include_details: true });
      expect(validateQuery('errors.query', {})).to.deep.equal({ period: 'day' });
    });

    it('works on null-prototype objects and leaves the input untouched', () => {
      const input = Object.assign(Object.create(null) as Record<string, unknown>, { limit: '5' });
      expect(validateQuery('audit.query', input)).to.deep.equal({ limit: 5, offset: 0 });
      expect(input.limit).to.equal('5');
      expect(input).not.to.have.property('offset');
    });

    it('reports values that do not coerce', () => {
      expectError(() => validateQuery('audit.query', { limit: 'abc' }), 'INVALID_PARAMETER',
        invalid('limit', 'must be an integer from 1 to 1000', 'abc'));
      expectError(() => validateQuery('audit.query', { limit: '1001' }), 'INVALID_PARAMETER',
        invalid('limit', 'must be an integer from 1 to 1000', 1001));
      expectError(() => validateQuery('audit.query', { offset: '-1' }), 'INVALID_PARAMETER',
        invalid('offset', 'must be an integer of at least 0', -1));
      expectError(() => validateQuery('audit.query', { status: 'ok' }), 'INVALID_PARAMETER',
        invalid('status', 'must be one of: success, error', 'ok'));
      expectError(() => validateQuery('audit.query', { start_date: '2025-13-01T00:00:00Z' }), 'INVALID_PARAMETER',
        invalid('start_date', 'must be an ISO 8601 date-time such as 2025-01-31T12:00:00Z', '2025-13-01T00:00:00Z'));
      expectError(() => validateQuery('usage.query', { period: 'decade' }), 'INVALID_PARAMETER',
        invalid('period', 'must be one of: hour, day, week, month, year', 'decade'));
      // A repeated parameter arrives as an array.
      expectError(() => validateQuery('cache-query.query', { q: ['a', 'b'] }), 'QUERY_REQUIRED',
        { parameter: 'q', expected: 'string (1-500 characters)', provided: 'array' });
    });

    it('rejects any parameter on /v1/metrics/live', () => {
      expect(validateQuery('metrics-live.query', {})).to.deep.equal({});
      expectError(() => validateQuery('metrics-live.query', { verbose: '1' }), 'INVALID_PARAMETER',
        invalid('verbose', 'is not allowed', '1'));
    });
  });

  describe('keys and service accounts', () => {
    it('defaults the key type and requires permissions for scoped keys', () => {
      expect(validateBody('auth-key.request', { name: 'ci' })).to.deep.equal({ name: 'ci', type: 'standard' });
      expect(() => validateBody('auth-key.request', {
        name: 'ci', type: 'scoped', permissions: ['search', 'monitor'], rate_limit: 100,
        expires_at: '2030-01-01T00:00:00+02:00', description: 'CI runs',
      })).not.to.throw();
      expectError(() => validateBody('auth-key.request', { name: 'ci', type: 'scoped' }), 'INVALID_PARAMETER',
        invalid('permissions', 'is required'));
    });

    it('checks each permission, the type, the rate limit and the expiry', () => {
      const key = (body: Record<string, unknown>) => () => validateBody('auth-key.request', { name: 'k', ...body });
      expectError(key({ type: 'scoped', permissions: ['search', 'root'] }), 'INVALID_PARAMETER',
        invalid('permissions[1]', 'must be one of: search, extract, summarize, validate, cache, monitor, index, admin', 'root'));
      expectError(key({ permissions: ['search', 'search'] }), 'INVALID_PARAMETER',
        invalid('permissions', 'must not contain duplicates', ['search', 'search']));
      expectError(key({ type: 'master' }), 'INVALID_PARAMETER', invalid('type', 'must be one of: standard, scoped', 'master'));
      expectError(key({ rate_limit: 0 }), 'INVALID_PARAMETER',
        invalid('rate_limit', 'must be an integer from 1 to 2147483647', 0));
      expectError(key({ expires_at: '2030-01-01' }), 'INVALID_PARAMETER',
        invalid('expires_at', 'must be an ISO 8601 date-time such as 2025-01-31T12:00:00Z', '2030-01-01'));
      expectError(() => validateBody('auth-key.request', {}), 'INVALID_PARAMETER', invalid('name', 'is required'));
    });

    const account = (ip_allowlist: string[]) => () =>
      validateBody('service-account.request', { name: 'etl', environment: 'production', ip_allowlist });

    it('accepts IPv4 and IPv6 CIDR ranges', () => {
      const good = ['203.0.113.0/24', '10.0.0.1/32', '0.0.0.0/0', '2001:db8::/32', '::1/128', '::/0',
        'fe80::/10', '::ffff:192.0.2.0/120', '2001:0db8:0000:0000:0000:0000:0000:0000/64'];
      expect(account(good)).not.to.throw();
    });

    it('rejects bad IPv4 CIDR ranges', () => {
      for (const cidr of ['203.0.113.0', '203.0.113.0/33', '256.0.0.0/8', '10.1/8', '167772160/8',
        '10.0.0.0/08', '10.0.0.0/', '10.0.0.0/-1', ' 10.0.0.0/8', 'abc/24', '0x0a.0.0.0/8']) {
        expectError(account([cidr]), 'INVALID_PARAMETER',
          invalid('ip_allowlist[0]', 'must be a CIDR range such as 203.0.113.0/24 or 2001:db8::/32', cidr));
      }
    });

    it('rejects bad IPv6 CIDR ranges', () => {
      for (const cidr of ['2001:db8::', '2001:db8::/129', '2001:db8:::/32', 'fe80::1%eth0/64', '2001:db8::g/32',
        '1:2:3:4:5:6:7:8:9/64']) {
        expectError(account([cidr]), 'INVALID_PARAMETER',
          invalid('ip_allowlist[0]', 'must be a CIDR range such as 203.0.113.0/24 or 2001:db8::/32', cidr));
      }
    });

    it('requires an environment name', () => {
      expectError(() => validateBody('service-account.request', { name: 'etl' }), 'INVALID_PARAMETER',
        invalid('environment', 'is required'));
      expectError(() => validateBody('service-account.request', { name: 'etl', environment: 'Prod!' }),
        'INVALID_PARAMETER', invalid('environment', 'must be a lower-case name (a-z, 0-9, _, -) of at most 64 characters', 'Prod!'));
    });
  });

  describe('dashboards and alerts', () => {
    it('accepts the documented dashboard shape', () => {
      const dashboard = {
        name: 'Ops',
        metrics: [{ type: 'requests_per_hour', period: '24h' }, { type: 'response_time', percentile: 95 }],
        alerts: [{ metric: 'error_rate', threshold: 0.05, condition: 'greater_than' }],
      };
      expect(validateBody('dashboard.request', structuredClone(dashboard))).to.deep.equal(dashboard);
      expectError(() => validateBody('dashboard.request', { ...dashboard, metrics: [{ type: 'requests', period: '1 day' }] }),
        'INVALID_PARAMETER', invalid('metrics[0].period', 'must be a duration such as 30s, 5m, 24h or 7d', '1 day'));
      expectError(() => validateBody('dashboard.request', { ...dashboard, metrics: [{ type: 'latency' }] }), 'INVALID_PARAMETER',
        invalid('metrics[0].type', 'must be one of: requests, requests_per_hour, success_rate, error_rate, response_time, cache_hit_rate, usage_percentage', 'latency'));
      expectError(() => validateBody('dashboard.request', { ...dashboard, metrics: [] }), 'INVALID_PARAMETER',
        invalid('metrics', 'must contain at least 1 item', []));
    });

    it('checks an alert\'s durations, channels, destinations and e-mail addresses (conditions and templates are parsed when saved)', () => {
      const alert = { name: 'errors', condition: 'error_rate > 0.05', duration: '5m', channels: ['email', 'webhook'], webhook: { url: 'https://hooks.example.com/a' }, email: { to: ['ops@example.com'] } };
      expect(validateBody('alert.request', structuredClone(alert))).to.deep.equal({ ...alert, severity: 'warning', enabled: true });
      const body = (changes: Record<string, unknown>) => () => validateBody('alert.request', { ...alert, ...changes });
      expectError(body({ duration: '5 minutes' }), 'INVALID_PARAMETER',
        invalid('duration', 'must be a duration such as 30s, 5m, 24h or 7d', '5 minutes'));
      expectError(body({ channels: ['pager'] }), 'INVALID_PARAMETER', invalid('channels[0]', 'must be one of: email, webhook, slack', 'pager'));
      expectError(body({ email: { to: ['ops at example'] } }), 'INVALID_PARAMETER',
        invalid('email.to[0]', 'must be an e-mail address such as ops@example.com', 'ops at example'));
      // Only the top-level url of extract has a code of its own.
      expectError(body({ webhook: { url: 'ftp://hooks.example.com' } }), 'INVALID_PARAMETER',
        invalid('webhook.url', 'must be an absolute http:// or https:// URL', 'ftp://hooks.example.com'));
    });
  });

  describe('countries', () => {
    it('holds the 249 officially assigned alpha-2 codes', () => {
      expect(ISO_COUNTRIES.size).to.equal(249);
      for (const code of ISO_COUNTRIES) expect(code).to.match(/^[A-Z]{2}$/);
      for (const code of ['US', 'DE', 'JP', 'SS', 'BQ', 'CW', 'SX', 'AX']) expect(ISO_COUNTRIES.has(code), code).to.equal(true);
      for (const code of ['UK', 'EU', 'XK', 'AN', 'YU']) expect(ISO_COUNTRIES.has(code), code).to.equal(false);
    });

    it('matches case-insensitively', () => {
      expect(isCountryCode('de')).to.equal(true);
      expect(isCountryCode('fR')).to.equal(true);
      expect(isCountryCode('XX')).to.equal(false);
      expect(isCountryCode('USA')).to.equal(false);
      expect(isCountryCode('')).to.equal(false);
    });
  });
});
