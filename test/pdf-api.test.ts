import { expect } from 'chai';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { findExtractionByRequestId } from '../src/extract/extraction.repository.js';
import { html, raw, startPageServer, type PageServer } from './helpers/page-server.js';
import {
  brokenPdf, encryptedPdf, longPdf, PROSE, reportPdf, RUSSIAN, russianPdf, scannedPdf, TABLE, tablePdf, TWO_COLUMN_TITLE, twoColumnPdf,
} from './helpers/pdf-samples.js';
import { expectSchema } from './helpers/response-schema.js';
import { call, startTestService, type TestService } from './helpers/service.js';
import { eventually } from './helpers/wait.js';

const PDF = { 'content-type': 'application/pdf' };

describe('PDFs through the API', function () {
  this.timeout(60_000);
  let service: TestService;
  let site: PageServer;
  let storage: Storage;
  let reportHits = 0;

  before(async () => {
    site = await startPageServer({
      '/report.pdf': (req, res) => {
        reportHits++;
        raw(reportPdf(), PDF)(req, res);
      },
      '/columns.pdf': raw(twoColumnPdf(), PDF),
      '/table.pdf': raw(tablePdf(), PDF),
      '/russian.pdf': raw(russianPdf(), PDF),
      // Sent as a download, and with no type at all: the signature says what they are.
      '/download': raw(tablePdf(), { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="t.pdf"' }),
      '/untyped': raw(tablePdf()),
      '/locked.pdf': raw(encryptedPdf('secret'), PDF),
      '/scan.pdf': raw(scannedPdf(), PDF),
      '/broken.pdf': raw(brokenPdf(), PDF),
      '/long.pdf': raw(longPdf(6), PDF),
      '/': html(`<html><body><article><h1>Reports</h1><p>Our yearly reports on river sediment are published as PDFs, and this page lists them
        with a few words on each, so that a reader knows which one to open before downloading it.</p>
        <p>The <a href="/report.pdf">sediment report</a> covers three rivers over a century of gauge readings and station logs.
        The <a href="/scan.pdf">scanned appendix</a> holds the original log books as photographs, without any text to search.</p></article></body></html>`),
    });
    service = await startTestService({ PDF_MAX_PAGES: '5' });
    storage = openStorage(service.config.databaseUrl, 2);
  });
  after(async () => {
    await service.close();
    await site.close();
    await storage.close();
  });

  const extract = (body: Record<string, unknown>) => call(service.url, '/v1/extract', { body });

  it('extracts a PDF served as application/pdf: markdown with headings, metadata, stored and indexed', async () => {
    const res = await extract({ url: `${site.url}/report.pdf` });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    const data = res.json.data;
    expectSchema('extract.response', data);
    expect(data.content.startsWith('# Sediment in Three Rivers\n\nRivers carry sediment')).to.equal(true);
    expect(data.content).to.include('\n\n## Method\n\n').and.include('\n\n## Results\n\n').and.not.include('draft');
    expect(data.metadata).to.include({
      title: 'Sediment in Three Rivers', author: 'Ada Hydrographer', description: 'River sediment', language: 'en',
      published_date: '2024-03-01T09:30:00+01:00', modified_date: '2024-04-15T12:00:00Z', page_count: 2,
    });
    expect(data.quality_score).to.be.within(0.5, 1);

    const stored = await findExtractionByRequestId(storage.db, res.json.request_id);
    expect(stored).to.include({ title: 'Sediment in Three Rivers', pageCount: 2 });
    expect(stored!.contentText).to.include(PROSE.results);
    expect(stored!.modifiedAt?.toISOString()).to.equal('2024-04-15T12:00:00.000Z');
  });

  it('answers a repeated request from the store in any format, with page markers when asked, and the PDF metadata', async () => {
    await extract({ url: `${site.url}/report.pdf`, format: 'text' });
    const hits = reportHits;
    const res = await extract({ url: `${site.url}/report.pdf`, format: 'html', options: { max_age: 3600, pdf_page_markers: true } });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    expect(reportHits).to.equal(hits);
    const data = res.json.data;
    expect(data.cached).to.equal(true);
    expect(data.content.startsWith('<hr data-page="1">\n<h1>Sediment in Three Rivers</h1>')).to.equal(true);
    expect(data.content).to.include('<hr data-page="2">\n<h2>Results</h2>');
    expect(data.metadata).to.include({ page_count: 2, modified_date: '2024-04-15T12:00:00.000Z', title: 'Sediment in Three Rivers' });
    const plain = (await extract({ url: `${site.url}/report.pdf`, format: 'text', options: { max_age: 3600 } })).json.data;
    expect(plain.cached).to.equal(true);
    expect(plain.content).to.not.include('--- page');
  });

  it('puts page markers into every format of a fresh extraction', async () => {
    const text = (await extract({ url: `${site.url}/report.pdf`, format: 'text', options: { pdf_page_markers: true } })).json.data.content as string;
    expect(text.startsWith('--- page 1 ---\n\nSediment in Three Rivers')).to.equal(true);
    expect(text).to.include('--- page 2 ---\n\nResults');
    const json = (await extract({ url: `${site.url}/report.pdf`, format: 'json', options: { pdf_page_markers: true } })).json.data;
    expectSchema('extract.response', json);
    expect(json.content.filter((b: { type: string }) => b.type === 'page')).to.deep.equal([{ type: 'page', number: 1 }, { type: 'page', number: 2 }]);
    const markdown = (await extract({ url: `${site.url}/report.pdf`, options: { pdf_page_markers: true } })).json.data.content as string;
    expect(markdown).to.include('<!-- page 2 -->\n\n## Results');
  });

  it('reads two columns column by column', async () => {
    const data = (await extract({ url: `${site.url}/columns.pdf`, format: 'text' })).json.data;
    expect(data.content).to.equal([TWO_COLUMN_TITLE, PROSE.left1, PROSE.left2, PROSE.right1, PROSE.right2].join('\n\n'));
  });

  it('keeps a table as a markdown table, whether the PDF comes typed, as a download or untyped', async () => {
    const table = [`| ${TABLE.header.join(' | ')} |`, '| --- | --- | --- |', ...TABLE.rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
    for (const path of ['/table.pdf', '/download', '/untyped']) {
      const res = await extract({ url: `${site.url}${path}` });
      expect(res.status, `${path}: ${JSON.stringify(res.json)}`).to.equal(200);
      expect(res.json.data.content, path).to.include(table);
    }
  });

  it('reads Cyrillic, and chunks a PDF by its headings', async () => {
    const res = await extract({ url: `${site.url}/russian.pdf`, format: 'text', chunking: { max_tokens: 200 } });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    expect(res.json.data.metadata).to.include({ language: 'ru', title: RUSSIAN.title, author: 'Иван Петров', page_count: 1 });
    expect(res.json.data.chunks.map((c: { heading_path: string[] }) => c.heading_path)).to.deep.equal([[RUSSIAN.title], [RUSSIAN.title, RUSSIAN.heading]]);
    expect(res.json.data.chunks[1].content).to.equal(`${RUSSIAN.heading}\n\n${RUSSIAN.more}`);
  });

  it('refuses encrypted, image-only, broken and too long PDFs with 422 EXTRACTION_FAILED and the reason', async () => {
    const cases: Array<[string, string]> = [
      ['/locked.pdf', 'PDF is encrypted: it needs a password to open'],
      ['/scan.pdf', 'PDF has no text layer (scanned or image-only pages)'],
      ['/long.pdf', 'PDF too long: 6 pages, more than the 5 read'],
    ];
    for (const [path, reason] of cases) {
      const res = await extract({ url: `${site.url}${path}` });
      expect(res.status, path).to.equal(422);
      expect(res.json.error.code, path).to.equal('EXTRACTION_FAILED');
      expect(res.json.error.details, path).to.deep.equal({ reason });
    }
    const broken = await extract({ url: `${site.url}/broken.pdf` });
    expect(broken.status).to.equal(422);
    expect(broken.json.error.code).to.equal('EXTRACTION_FAILED');
    expect(broken.json.error.details.reason).to.match(/^PDF is broken: /);
  });

  it('crawls a site\'s PDFs into the index, and reports one without text as failed', async () => {
    const started = await call(service.url, '/v1/crawl', { body: { urls: [`${site.url}/`], max_depth: 1, sitemaps: false } });
    expect(started.status, JSON.stringify(started.json)).to.equal(202);
    const report = await eventually(async () => {
      const response = await call(service.url, `/v1/crawl/${started.json.data.crawl_id}`);
      return ['completed', 'failed', 'cancelled'].includes(response.json.data.state) ? response.json.data : undefined;
    }, 40_000);
    expect(report.state).to.equal('completed');
    expect(report.pages).to.include({ indexed: 2, failed: 1 });
    expect(report.failures).to.deep.equal([{ url: `${site.url}/scan.pdf`, code: 'EXTRACTION_FAILED', reason: 'PDF has no text layer (scanned or image-only pages)', http_status: 200 }]);
    const deleted = await call(service.url, '/v1/index/documents', { method: 'DELETE', body: { urls: [`${site.url}/`, `${site.url}/report.pdf`] } });
    expect(deleted.json.data.deleted).to.equal(2);
  });
});
