import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { ApiError, ERROR_CATALOGUE, ERROR_CODES, suggestionFor, type ErrorCode } from '../src/errors/catalogue.js';
import { errorEnvelope } from '../src/http/middleware/error-envelope.js';
import { requestId } from '../src/http/middleware/request-id.js';
import type { AppState } from '../src/http/context.js';
import { createLogger } from '../src/log/logger.js';
import { PROJECT_ROOT } from '../src/paths.js';

// Section 7.3 of the interface specification: code → HTTP status and details fields.
const SPEC: Record<string, [number, string[]]> = {
  INVALID_API_KEY: [401, []],
  EXPIRED_API_KEY: [401, []],
  MISSING_API_KEY: [401, []],
  QUERY_REQUIRED: [400, ['parameter', 'expected', 'provided']],
  QUERY_TOO_SHORT: [400, []],
  QUERY_TOO_LONG: [400, ['max_length', 'provided_length']],
  INVALID_MAX_RESULTS: [400, ['parameter', 'min_value', 'max_value', 'provided']],
  INVALID_LANGUAGE: [400, ['parameter', 'provided', 'supported']],
  INVALID_COUNTRY: [400, ['parameter', 'provided', 'format']],
  INVALID_FORMAT: [400, ['parameter', 'provided', 'supported']],
  CONTENT_TOO_LARGE: [400, ['max_size_mb', 'provided_size_mb']],
  INVALID_JSON: [400, ['line', 'column', 'syntax_error']],
  INSUFFICIENT_PERMISSIONS: [403, ['required_permission', 'current_plan', 'upgrade_url']],
  FEATURE_NOT_AVAILABLE: [403, ['feature', 'required_plan', 'current_plan']],
  RATE_LIMITED: [429, ['limit', 'period', 'reset_time', 'retry_after']],
  MONTHLY_LIMIT_EXCEEDED: [429, ['monthly_limit', 'requests_used', 'reset_date', 'upgrade_url']],
  NO_RESULTS_FOUND: [422, []],
  SEARCH_TIMEOUT: [422, ['timeout_seconds']],
  INSUFFICIENT_SOURCES: [422, ['sources_found', 'sources_required']],
  URL_INVALID: [422, ['url', 'expected_format']],
  URL_UNREACHABLE: [422, ['url', 'http_status']],
  EXTRACTION_FAILED: [422, ['reason']],
  CLAIM_TOO_VAGUE: [422, []],
  VALIDATION_TIMEOUT: [422, ['sources_checked', 'sources_pending']],
  INTERNAL_SERVER_ERROR: [500, ['incident_id']],
  UPSTREAM_ERROR: [502, []],
  SERVICE_UNAVAILABLE: [503, ['estimated_recovery', 'status_page']],
};

describe('error catalogue', () => {
  let server: Server;
  let base: string;

  before(async () => {
    // The real envelope middleware behind a route that throws whichever code the test names.
    const app = new Koa<AppState>();
    app.silent = true;
    app.use(requestId());
    app.use(async (ctx, next) => {
      ctx.state.origin = 'http://service.test';
      await next();
    });
    app.use(errorEnvelope(undefined, createLogger('silent', 'api')));
    app.use(async (ctx) => {
      const code = ctx.path.slice(1) as ErrorCode;
      if (code === ('CRASH' as ErrorCode)) throw new TypeError('a bug');
      const details = Object.fromEntries(ERROR_CATALOGUE[code].details.map((field) => [field, `${field}-value`]));
      throw new ApiError(code, details);
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('contains every code of the specification with its status and details fields', () => {
    for (const [code, [status, fields]] of Object.entries(SPEC)) {
      expect(ERROR_CATALOGUE, code).to.have.property(code);
      const spec = ERROR_CATALOGUE[code as ErrorCode];
      expect(spec.status, code).to.equal(status);
      expect(spec.details, code).to.include.members(fields);
    }
  });

  it('marks exactly the 5xx and 429 codes as retryable (spec 7.5), plus time-outs', () => {
    for (const code of ERROR_CODES) {
      const { status, retryable } = ERROR_CATALOGUE[code];
      const expected = status >= 500 || status === 429 || code.endsWith('_TIMEOUT');
      expect(retryable, code).to.equal(expected);
    }
  });

  for (const code of ERROR_CODES) {
    it(`renders ${code} as the error envelope with status ${ERROR_CATALOGUE[code].status}`, async () => {
      const response = await fetch(`${base}/${code}`);
      const body = (await response.json()) as any;
      expect(response.status).to.equal(ERROR_CATALOGUE[code].status);
      expect(body.success).to.equal(false);
      expect(body.error.code).to.equal(code);
      expect(body.error.message).to.be.a('string').and.not.empty;
      expect(body.error.documentation).to.equal(`http://service.test/docs/errors#${code}`);
      expect(body.request_id).to.equal(response.headers.get('x-request-id'));
      expect(Date.parse(body.timestamp)).to.be.closeTo(Date.now(), 10_000);
      for (const field of ERROR_CATALOGUE[code].details) expect(body.error.details).to.have.property(field);
    });
  }

  it('fills a suggestion from the error\'s details, and names the field where there are none', async () => {
    const body = (await (await fetch(`${base}/CONTENT_TOO_LARGE`)).json()) as any;
    expect(body.error.suggestion).to.equal('Send at most max_size_mb-value MB.');
    expect(suggestionFor('CONTENT_TOO_LARGE', { max_size_mb: 1 })).to.equal('Send at most 1 MB.');
    expect(suggestionFor('CONTENT_TOO_LARGE')).to.equal('Send at most details.max_size_mb MB.');
    // Braces around anything else are text.
    expect(suggestionFor('TOO_MANY_CRAWLS', { limit: 5, unfinished: 5 })).to.include('DELETE /v1/crawl/{id}');
  });

  it('turns an unexpected exception into INTERNAL_SERVER_ERROR with an incident id and no internals', async () => {
    const response = await fetch(`${base}/CRASH`);
    const body = (await response.json()) as any;
    expect(response.status).to.equal(500);
    expect(body.error.code).to.equal('INTERNAL_SERVER_ERROR');
    expect(body.error.details.incident_id).to.match(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(body)).to.not.include('a bug');
  });

  it('survives the trip through a job failure reason', () => {
    const original = new ApiError('URL_UNREACHABLE', { url: 'http://x.test', http_status: 503, reason: 'HTTP 503' });
    const copy = ApiError.fromJSON(JSON.stringify(original.toJSON()));
    expect(copy?.code).to.equal('URL_UNREACHABLE');
    expect(copy?.details).to.deep.equal(original.details);
    expect(ApiError.fromJSON('plain failure text')).to.equal(undefined);
    expect(ApiError.fromJSON('{"code":"NOT_A_CODE"}')).to.equal(undefined);
  });

  it('is documented in the README, every code in the error table', () => {
    const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    for (const code of ERROR_CODES) {
      const row = new RegExp(`^\\| \`${code}\` \\| ${ERROR_CATALOGUE[code].status} \\|`, 'm');
      expect(readme, code).to.match(row);
    }
  });

  it('is documented exactly: the README table lists every code once with its details and retry, and nothing else', () => {
    const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| ([^|]*) \| (yes|no) \|/gm)];
    expect(rows.map((r) => r[1]).sort()).to.deep.equal([...ERROR_CODES].sort());
    for (const [, code, status, details, retryable] of rows) {
      const spec = ERROR_CATALOGUE[code as ErrorCode];
      expect(Number(status), code).to.equal(spec.status);
      expect([...details!.matchAll(/`(\w+)`/g)].map((m) => m[1]), code).to.deep.equal([...spec.details]);
      expect(retryable === 'yes', code).to.equal(spec.retryable);
    }
  });

  it('names in the README and docs/ only codes that exist', () => {
    // Every name of a code's shape the documentation mentions must exist in the code: an error
    // code of the catalogue, or else a setting, label or constant that the sources spell out.
    const read = (dir: string, ext: string): string[] => readdirSync(path.join(PROJECT_ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith(ext)).map((f) => readFileSync(path.join(PROJECT_ROOT, dir, f), 'utf8'));
    const sources = [...read('src', '.ts'), ...read('bench', '.ts'), ...read('test', '.ts'), ...read('schemas', '.json')].join('\n');
    const documents = [readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8'), ...read('docs', '.md')];
    const named = new Set(documents.flatMap((text) => [...text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)].map((m) => m[1]!)));
    const unknown = [...named].filter((name) => !ERROR_CODES.includes(name as ErrorCode) && !new RegExp(`\\b${name}\\b`).test(sources));
    expect(unknown).to.deep.equal([]);
  });
});
