import { expect } from 'chai';
import { request } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { call, startTestService, TEST_KEY, type TestService } from './helpers/service.js';
import { newRequestId } from '../src/http/middleware/request-id.js';

/** Sends a body of `bytes` bytes, chunked (no Content-Length) unless `declared` is set. */
function sendLarge(base: string, bytes: number, declared: boolean): Promise<{ status: number; body: any }> {
  const url = new URL('/v1/extract', base);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_KEY}`,
          'content-type': 'application/json',
          ...(declared ? { 'content-length': String(bytes) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    // The server may answer and close before the whole body is sent; that is the point.
    req.on('error', reject);
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    let sent = 0;
    const write = (): void => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

describe('HTTP edge', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ RATE_LIMIT_PER_MINUTE: '1000' });
  });
  after(() => service.close());

  it('answers with the success envelope and a request id in body and header', async () => {
    const res = await call(service.url, '/v1/health');
    expect(res.status).to.equal(200);
    expect(res.json.success).to.equal(true);
    expect(res.json.request_id).to.match(/^req_[0-9a-f]{32}$/);
    expect(res.headers.get('x-request-id')).to.equal(res.json.request_id);
  });

  it('gives request ids that grow with time, so the audit index is appended to', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await call(service.url, '/v1/health')).json.request_id);
      await delay(2);
    }
    expect([...ids].sort()).to.deep.equal(ids);
    expect(new Set(ids).size).to.equal(3);
    // The time leads: an id says when its request arrived, to the millisecond.
    const arrived = parseInt(ids[2]!.slice(4, 16), 16);
    expect(Date.now() - arrived).to.be.within(0, 5000);
    expect(newRequestId(1_000).slice(0, 16)).to.equal('req_0000000003e8');
  });

  it('keeps a well-formed request id sent by the client', async () => {
    const res = await call(service.url, '/v1/health', { headers: { 'x-request-id': 'client-id-12345' } });
    expect(res.json.request_id).to.equal('client-id-12345');
  });

  it('locates a JSON syntax error by line and column', async () => {
    const res = await call(service.url, '/v1/extract', { body: '{\n  "url": "http://example.com",\n  "format": }' });
    expect(res.status).to.equal(400);
    expect(res.json.success).to.equal(false);
    expect(res.json.error.code).to.equal('INVALID_JSON');
    expect(res.json.error.details).to.include({ line: 3, column: 13 });
    expect(res.json.error.details.syntax_error).to.be.a('string').and.not.empty;
    expect(res.json.request_id).to.equal(res.headers.get('x-request-id'));
    expect(res.json.timestamp).to.be.a('string');
    expect(res.json.error.documentation).to.match(/\/docs\/errors#INVALID_JSON$/);
  });

  it('refuses a 12 MB body with a declared length before reading it, and keeps serving', async () => {
    const res = await sendLarge(service.url, 12 * 1024 * 1024, true);
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('CONTENT_TOO_LARGE');
    expect(res.body.error.details).to.deep.equal({ max_size_mb: 10, provided_size_mb: 12 });
    expect(res.body.error.suggestion).to.equal('Send at most 10 MB.');
    expect((await call(service.url, '/v1/health')).status).to.equal(200);
  });

  it('cuts off a chunked body once it passes 10 MB', async () => {
    const res = await sendLarge(service.url, 12 * 1024 * 1024, false);
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('CONTENT_TOO_LARGE');
    expect(res.body.error.details.max_size_mb).to.equal(10);
    expect(res.body.error.details.provided_size_mb).to.be.greaterThan(10);
    expect((await call(service.url, '/v1/health')).status).to.equal(200);
  });

  it('answers an unknown path with 404 NOT_FOUND, with or without a key', async () => {
    for (const key of [undefined, null]) {
      const res = await call(service.url, '/v1/nothing-here', { key });
      expect(res.status).to.equal(404);
      expect(res.json.error.code).to.equal('NOT_FOUND');
      expect(res.json.error.details.path).to.equal('/v1/nothing-here');
    }
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const res = await call(service.url, '/v1/extract', { method: 'GET' });
    expect(res.status).to.equal(405);
    expect(res.json.error.code).to.equal('METHOD_NOT_ALLOWED');
    expect(res.json.error.details.allowed).to.deep.equal(['POST']);
    expect(res.headers.get('allow')).to.equal('POST');
  });

  it('refuses a body that is not declared as JSON with 415', async () => {
    const res = await call(service.url, '/v1/extract', { body: '{"url":"http://x.test"}', headers: { 'content-type': 'text/plain' } });
    expect(res.status).to.equal(415);
    expect(res.json.error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    expect(res.json.error.details).to.deep.equal({ provided: 'text/plain', expected: 'application/json' });
  });

  it('asks for a key when none is sent, and refuses a wrong one', async () => {
    const missing = await call(service.url, '/v1/health', { key: null });
    expect(missing.status).to.equal(401);
    expect(missing.json.error.code).to.equal('MISSING_API_KEY');

    const wrong = await call(service.url, '/v1/health', { key: 'sev_live_not-a-real-key' });
    expect(wrong.status).to.equal(401);
    expect(wrong.json.error.code).to.equal('INVALID_API_KEY');

    const malformed = await call(service.url, '/v1/health', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(malformed.status).to.equal(401);
    expect(malformed.json.error.code).to.equal('INVALID_API_KEY');
  });

  it('checks the key before the body: an invalid body with a wrong key is a 401', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: 'nope' }, key: 'sev_live_not-a-real-key' });
    expect(res.status).to.equal(401);
    expect(res.json.error.code).to.equal('INVALID_API_KEY');
  });

  it('accepts the key in X-API-Key', async () => {
    const res = await call(service.url, '/v1/health', { key: null, headers: { 'x-api-key': TEST_KEY } });
    expect(res.status).to.equal(200);
  });

  it('sends rate-limit headers on authenticated responses, errors included', async () => {
    const ok = await call(service.url, '/v1/health');
    expect(ok.headers.get('x-ratelimit-limit')).to.equal('1000');
    expect(Number(ok.headers.get('x-ratelimit-remaining'))).to.be.within(0, 999);
    expect(Number(ok.headers.get('x-ratelimit-reset'))).to.be.greaterThan(Date.now() / 1000 - 1);
    expect(ok.headers.get('x-ratelimit-window')).to.equal('60');
    const invalid = await call(service.url, '/v1/extract', { body: { url: 'nope' } });
    expect(invalid.status).to.equal(422);
    expect(invalid.headers.get('x-ratelimit-limit')).to.equal('1000');
  });

  it('serves probes without a key', async () => {
    expect((await call(service.url, '/livez', { key: null })).json).to.deep.equal({ status: 'alive' });
    expect((await call(service.url, '/readyz', { key: null })).json).to.deep.equal({ status: 'ready' });
  });
});

describe('rate limit', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ RATE_LIMIT_PER_MINUTE: '3' });
  });
  after(() => service.close());

  it('answers 429 RATE_LIMITED with details and Retry-After past the limit', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await call(service.url, '/v1/health');
      statuses.push(last.status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
    expect(last!.json.error.code).to.equal('RATE_LIMITED');
    const details = last!.json.error.details;
    expect(details.limit).to.equal(3);
    expect(details.period).to.equal('60s');
    expect(Date.parse(details.reset_time)).to.be.greaterThan(Date.now());
    expect(details.retry_after).to.be.within(1, 60);
    expect(last!.headers.get('retry-after')).to.equal(String(details.retry_after));
    expect(last!.headers.get('x-ratelimit-remaining')).to.equal('0');
  });
});
