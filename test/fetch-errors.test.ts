import { expect } from 'chai';
import zlib from 'node:zlib';
import { ApiError } from '../src/errors/catalogue.js';
import { FetchError, type FetchErrorKind } from '../src/fetch/fetch-errors.js';
import { fetchPage, type FetchOptions } from '../src/fetch/fetch-page.js';
import { clientError } from '../src/page/fetch-failure.js';
import { html, raw, startPageServer, type PageServer } from './helpers/page-server.js';

/** The FetchError a promise rejects with; fails the test when it resolves or rejects otherwise. */
async function fetchFailure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(FetchError);
    return error as FetchError;
  }
  throw new Error('expected the fetch to fail');
}

describe('fetch errors', () => {
  describe('fetchPage', function () {
    this.timeout(5000);

    let site: PageServer;
    const options: FetchOptions = { timeoutMs: 2000, maxBytes: 1000, maxRedirects: 2, userAgent: 'sev-test/1.0', allowedCidrs: ['127.0.0.1/32'] };

    before(async () => {
      site = await startPageServer({
        '/robots.txt': raw('User-agent: *\nDisallow: /private\n', { 'content-type': 'text/plain' }),
        '/private': html('<p>secret</p>'),
        '/missing': html('gone', 404),
        '/challenge': raw('<html><head><title>Just a moment...</title></head></html>', { 'content-type': 'text/html' }, 503),
        '/image': raw(Buffer.from([0x89, 0x50, 0x4e, 0x47]), { 'content-type': 'image/png' }),
        '/large': html('x'.repeat(5000)),
        '/corrupt': raw('not gzip at all', { 'content-type': 'text/html', 'content-encoding': 'gzip' }),
        '/gzip': raw(zlib.gzipSync('<p>fine</p>'), { 'content-type': 'text/html', 'content-encoding': 'gzip' }),
        '/silent': () => undefined,
      });
    });

    after(() => site.close());

    it('tells what went wrong by kind, naming the URL asked for', async () => {
      const cases: Array<[string, Partial<FetchOptions>, FetchErrorKind, string]> = [
        ['/missing', {}, 'unreachable', 'HTTP 404'],
        ['/silent', { timeoutMs: 200 }, 'unreachable', 'timed out after 0.2s'],
        ['/private', { respectRobots: true }, 'disallowed', 'blocked by robots.txt'],
        ['/challenge', {}, 'blocked', 'blocked: Cloudflare challenge'],
        ['/image', {}, 'not-a-page', 'unsupported content type: image/png'],
      ];
      for (const [path, overrides, kind, reason] of cases) {
        const error = await fetchFailure(fetchPage(`${site.url}${path}`, { ...options, ...overrides }));
        expect({ kind: error.kind, reason: error.reason, url: error.url }, path).to.deep.equal({ kind, reason, url: `${site.url}${path}` });
      }
    });

    it('carries the status of an HTTP error, and only then', async () => {
      expect((await fetchFailure(fetchPage(`${site.url}/missing`, options))).httpStatus).to.equal(404);
      expect((await fetchFailure(fetchPage(`${site.url}/silent`, { ...options, timeoutMs: 200 }))).httpStatus).to.equal(undefined);
    });

    it('says invalid-url before requesting anything', async () => {
      const error = await fetchFailure(fetchPage('ftp://127.0.0.1/', options));
      expect(error).to.include({ kind: 'invalid-url', url: 'ftp://127.0.0.1/' });
    });

    it('reports a body it cannot have as too-large or undecodable', async () => {
      expect((await fetchFailure(fetchPage(`${site.url}/large`, options))).kind).to.equal('too-large');
      expect((await fetchFailure(fetchPage(`${site.url}/corrupt`, options))).kind).to.equal('undecodable');
      expect((await fetchPage(`${site.url}/gzip`, options)).body.toString()).to.equal('<p>fine</p>');
    });
  });

  describe('clientError', () => {
    const url = 'https://example.test/page';

    it('reports an invalid URL as URL_INVALID', () => {
      const error = clientError(new FetchError('invalid-url', 'not an absolute http(s) URL', { url }));
      expect(error.code).to.equal('URL_INVALID');
      expect(error.details).to.deep.equal({ url, expected_format: 'absolute http:// or https:// URL' });
    });

    it('reports an unreachable page as URL_UNREACHABLE, with the HTTP status when there was one', () => {
      expect(clientError(new FetchError('unreachable', 'HTTP 503', { url, httpStatus: 503 })).details).to.deep.equal({ url, http_status: 503, reason: 'HTTP 503' });
      const timedOut = clientError(new FetchError('unreachable', 'timed out after 5s', { url }));
      expect(timedOut.code).to.equal('URL_UNREACHABLE');
      expect(timedOut.details).to.deep.equal({ url, reason: 'timed out after 5s' });
    });

    it('reports a page that offers nothing to extract as EXTRACTION_FAILED with the reason only', () => {
      for (const kind of ['disallowed', 'blocked', 'not-a-page', 'too-large', 'undecodable'] as const) {
        const error = clientError(new FetchError(kind, `why ${kind}`, { url }));
        expect(error.code, kind).to.equal('EXTRACTION_FAILED');
        expect(error.details, kind).to.deep.equal({ reason: `why ${kind}` });
        expect(error.cause, kind).to.be.instanceOf(FetchError);
      }
    });

    it('passes anything else on as it is', () => {
      const reason = new Error('shutting down');
      expect(clientError(reason)).to.equal(reason);
      const api = new ApiError('SEARCH_TIMEOUT', { timeout_seconds: 1 });
      expect(clientError(api)).to.equal(api);
    });
  });
});
