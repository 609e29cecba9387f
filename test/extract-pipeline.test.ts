import { expect } from 'chai';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { findExtractionByRequestId } from '../src/extract/extraction.repository.js';
import { findRequestLogByRequestId } from '../src/monitor/request-log.repository.js';
import { ARTICLE, html, startPageServer, type PageServer } from './helpers/page-server.js';
import { call, startTestService, type TestService } from './helpers/service.js';
import { eventually } from './helpers/wait.js';

describe('POST /v1/extract through the whole pipeline', () => {
  let service: TestService;
  let site: PageServer;
  let storage: Storage;

  before(async () => {
    site = await startPageServer({
      '/article': html(ARTICLE),
      // Publication dates no DATETIME column holds, in every place a page states one.
      '/far-future': html(ARTICLE
        .replace('2026-03-04T05:06:07Z', '99999-01-01')
        .replace('</head>', '<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"+099999-01-01T00:00:00Z"}</script></head>')
        .replace('<h1>', '<time datetime="10000-01-01">x 10000</time><h1>')),
      '/image': html('GIF89a', 200, 'image/gif'),
      '/empty': html('<html><body><nav>only navigation</nav></body></html>'),
      '/plain': html('First paragraph.\n\nSecond paragraph.', 200, 'text/plain; charset=utf-8'),
      '/slow': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><body><p>start');
        setTimeout(() => res.end('</p></body></html>'), 3000).unref();
      },
    });
    service = await startTestService();
    storage = openStorage(service.config.databaseUrl, 2);
  });
  after(async () => {
    await service.close();
    await site.close();
    await storage.close();
  });

  it('fetches, cleans in the pool, stores in MySQL and answers with the envelope', async () => {
    const res = await call(service.url, '/v1/extract', {
      body: { url: `${site.url}/article`, format: 'text', extract_links: true, extract_images: true },
    });
    expect(res.status).to.equal(200);
    expect(res.json.success).to.equal(true);
    const data = res.json.data;
    expect(data.content).to.include('Every request travels through Koa');
    expect(data.content).to.not.include('Copyright footer');
    expect(data.content).to.not.include('About');
    expect(data.metadata).to.include({ title: 'The Pipeline Article', author: 'Ada Lovelace', language: 'en', published_date: '2026-03-04T05:06:07Z' });
    expect(data.metadata.word_count).to.be.greaterThan(20);
    expect(data.metadata.reading_time).to.equal('1 min');
    expect(data.links).to.deep.include({ url: `${site.url}/request-id`, text: 'request id' });
    expect(data.images).to.deep.equal([{ url: `${site.url}/diagram.png`, alt: 'Diagram', caption: '' }]);
    expect(data.quality_score).to.be.within(0, 1);

    const stored = await findExtractionByRequestId(storage.db, res.json.request_id);
    expect(stored).to.not.equal(undefined);
    expect(stored!.url).to.equal(`${site.url}/article`);
    expect(stored!.domain).to.equal('127.0.0.1');
    expect(stored!.title).to.equal('The Pipeline Article');
    expect(stored!.contentText).to.include('stored in MySQL');
    expect(stored!.contentHash).to.match(/^[0-9a-f]{64}$/);

    const audited = await eventually(() => findRequestLogByRequestId(storage.db, res.json.request_id));
    expect(audited).to.include({ method: 'POST', endpoint: '/v1/extract', status: 200, principalId: 'master' });
    expect(audited.responseSize).to.be.greaterThan(0);
  });

  it('extracts and stores a page whose publication dates are out of any DATETIME range, without a date', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/far-future`, format: 'text' } });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    expect(res.json.data.content).to.include('Every request travels through Koa');
    expect(res.json.data.metadata).to.not.have.property('published_date');
    const stored = await findExtractionByRequestId(storage.db, res.json.request_id);
    expect(stored!.publishedAt).to.equal(null);
  });

  it('renders markdown by default', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/article` } });
    expect(res.json.data.content).to.include('[request id](').and.include('![Diagram](');
  });

  it('leaves metadata out when include_metadata is false', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/article`, include_metadata: false } });
    expect(res.json.data).to.not.have.property('metadata');
  });

  it('returns plain text as it is', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/plain`, format: 'text' } });
    expect(res.status).to.equal(200);
    expect(res.json.data.content).to.equal('First paragraph.\n\nSecond paragraph.');
  });

  it('reports an HTTP error of the page as URL_UNREACHABLE with its status', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/missing` } });
    expect(res.status).to.equal(422);
    expect(res.json.error.code).to.equal('URL_UNREACHABLE');
    expect(res.json.error.details).to.include({ url: `${site.url}/missing`, http_status: 404 });
  });

  it('reports a non-HTML type as EXTRACTION_FAILED naming the type', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/image` } });
    expect(res.status).to.equal(422);
    expect(res.json.error.code).to.equal('EXTRACTION_FAILED');
    expect(res.json.error.details.reason).to.include('image/gif');
  });

  it('reports a page without content as EXTRACTION_FAILED', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/empty` } });
    expect(res.status).to.equal(422);
    expect(res.json.error.code).to.equal('EXTRACTION_FAILED');
  });

  it('enforces options.min_content_length', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/article`, options: { min_content_length: 100000 } } });
    expect(res.status).to.equal(422);
    expect(res.json.error.code).to.equal('EXTRACTION_FAILED');
    expect(res.json.error.details.reason).to.include('min_content_length');
  });

  it('refuses a malformed URL with URL_INVALID', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: 'not a url' } });
    expect(res.status).to.equal(422);
    expect(res.json.error.code).to.equal('URL_INVALID');
    expect(res.json.error.details).to.deep.equal({ url: 'not a url', expected_format: 'absolute http:// or https:// URL' });
  });

  it('stops a page that trickles past options.timeout', async () => {
    const started = Date.now();
    const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/slow`, options: { timeout: 1 } } });
    expect(res.status).to.equal(422);
    expect(res.json.error.code).to.equal('URL_UNREACHABLE');
    expect(res.json.error.details.reason).to.match(/timed out/);
    expect(Date.now() - started).to.be.lessThan(2900);
  });
});

describe('outbound fetches without a private-network allowance', () => {
  let service: TestService;
  let site: PageServer;
  before(async () => {
    site = await startPageServer({ '/article': html(ARTICLE) });
    service = await startTestService({ FETCH_ALLOW_PRIVATE: '' });
  });
  after(async () => {
    await service.close();
    await site.close();
  });

  it('refuses loopback addresses', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/article` } });
    expect(res.status).to.equal(422);
    expect(res.json.error.code).to.equal('URL_UNREACHABLE');
    expect(res.json.error.details.reason).to.include('address not allowed');
  });
});
