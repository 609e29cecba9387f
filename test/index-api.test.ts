import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { eventually } from './helpers/wait.js';
import { markdownToText } from '../src/index/markdown-text.js';
import { openStorage } from '../src/storage/connection.js';

/**
 * Words no other run has indexed: the index finds near-duplicates across the whole mode, so an
 * article indexed by an earlier run against the same database would otherwise come back a copy.
 */
const runWords = Array.from({ length: 40 }, () => randomUUID().slice(0, 8)).join(' ');

const ARTICLE_HTML = `<!doctype html><html><head><title>Tides</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Why the sea has tides</h1>
<p>The Moon pulls on the oceans, and the water facing it bulges towards it. A second bulge forms on the far side of the Earth.</p>
<p>As the Earth turns, every coast passes through both bulges, so most places see two high tides a day.</p>
<p>The Sun adds its own, smaller pull: when it lines up with the Moon the tides are highest, and these are called spring tides.</p>
<p>Field notes: ${runWords}.</p>
</article><footer>Copyright 2025 Example Ltd.</footer></body></html>`;

describe('index ingestion API', function () {
  this.timeout(120_000);
  let service: TestService;
  /** Every run indexes under its own host, so runs against the same database do not meet. */
  const host = `${randomUUID()}.example`;
  const url = (path: string) => `https://${host}/${path}`;

  before(async () => {
    service = await startTestService({ PLANS_FILE: writePlansFile() });
  });
  after(async () => {
    await call(service.url, '/v1/index/documents', { method: 'DELETE', body: { domain: host } });
    await service.close();
  });

  const post = (documents: unknown, key?: string) =>
    call(service.url, '/v1/index/documents', { body: { documents }, ...(key ? { key } : {}) });

  describe('validation', () => {
    it('refuses a body without a documents array', async () => {
      const response = await call(service.url, '/v1/index/documents', { body: { documents: 'x' } });
      expect(response.status).to.equal(400);
      expect(response.json.error.code).to.equal('INVALID_PARAMETER');
      expect(response.json.error.details).to.include({ parameter: 'documents' });
    });

    it('reports every bad document by position, field and reason', async () => {
      const response = await post([
        { url: 'ftp://nope', title: 't', content: 'c' },
        { url: url('a'), title: 't' },
        { url: url('b'), title: 't', content: 'c', content_type: 'pdf' },
        { url: url('c'), title: 't', content: 'c', language: 'English' },
        { url: url('d'), title: 't', content: 'c', published_date: 'yesterday' },
        { url: url('e'), title: 't', content: 'c', colour: 'red' },
        'not a document',
      ]);
      expect(response.status).to.equal(200);
      expect(response.json.data).to.include({ job_id: null, state: 'completed', total: 7 });
      expect(response.json.data.counts).to.deep.equal({ indexed: 0, replaced: 0, unchanged: 0, duplicate: 0, rejected: 7 });
      const errors = response.json.data.errors as Array<{ index: number; field: string | null; reason: string }>;
      expect(errors.map((e) => [e.index, e.field])).to.deep.equal([
        [0, 'url'], [1, 'content'], [2, 'content_type'], [3, 'language'], [4, 'published_date'], [5, 'colour'], [6, null],
      ]);
      expect(errors[1]!.reason).to.equal('is required');
      expect(errors[5]!.reason).to.equal('is not allowed');
      for (const error of errors) expect(error.reason).to.be.a('string').that.is.not.empty;
    });

    it('refuses a published_date MySQL cannot hold, or that is not ISO 8601, and indexes the rest of the batch', async () => {
      // Issue 20: a year of 10000 reached MySQL and failed the whole batch with a 500, after three tries.
      const document = (path: string, published_date: string) => ({ url: url(path), title: 'Dated', content: `A dated document whose words no other holds: ${Array.from({ length: 12 }, () => randomUUID().slice(0, 8)).join(' ')}.`, published_date });
      const response = await post([
        document('date-ok', '2025-01-31T12:00:00+02:00'),
        document('date-10000', '10000-01-01'),
        document('date-x-10000', 'x 10000'),
        document('date-expanded', '+010000-01-01T00:00:00Z'),
        document('date-past-9999-in-utc', '9999-12-31T23:00:00-05:00'),
        document('date-before-1000', '0999-12-31'),
        document('date-feb-30', '2025-02-30'),
        document('date-first', '1000-01-01'),
        document('date-last', '9999-12-31T23:59:59.999Z'),
        document('date-space', '2025-01-31 08:30'),
      ]);
      expect(response.status, JSON.stringify(response.json)).to.equal(200);
      const errors = response.json.data.errors as Array<{ index: number; field: string | null; reason: string }>;
      expect(errors.map((e) => [e.index, e.field])).to.deep.equal([1, 2, 3, 4, 5, 6].map((index) => [index, 'published_date']));
      for (const error of errors) expect(error.reason).to.match(/ISO 8601.*1000-01-01.*9999-12-31/);
      expect(response.json.data.results.map((r: { index: number; status: string }) => [r.index, r.status]))
        .to.deep.equal([[0, 'indexed'], [7, 'indexed'], [8, 'indexed'], [9, 'indexed']]);
      // Stored as the instants they name, the offset applied and a time without one read as UTC.
      const storage = openStorage(service.config.databaseUrl, 1);
      try {
        const rows = await storage.db.selectFrom('index_documents').select(['url', 'published_at'])
          .where('url', 'in', ['date-ok', 'date-first', 'date-last', 'date-space'].map(url)).execute();
        expect(Object.fromEntries(rows.map((r) => [r.url.slice(url('').length), r.published_at?.toISOString()]))).to.deep.equal({
          'date-ok': '2025-01-31T10:00:00.000Z', 'date-first': '1000-01-01T00:00:00.000Z',
          'date-last': '9999-12-31T23:59:59.999Z', 'date-space': '2025-01-31T08:30:00.000Z',
        });
      } finally {
        await storage.close();
      }
    });

    it('takes exactly one of urls and domain to delete', async () => {
      for (const body of [{}, { urls: [url('a')], domain: host }, { domain: 'not a domain!' }, { urls: [] }]) {
        const response = await call(service.url, '/v1/index/documents', { method: 'DELETE', body });
        expect(response.status, JSON.stringify(body)).to.equal(400);
        expect(response.json.error.code).to.equal('INVALID_PARAMETER');
      }
    });

    it('answers 404 for an unknown job', async () => {
      const response = await call(service.url, '/v1/index/jobs/idx_nope');
      expect(response.status).to.equal(404);
      expect(response.json.error.code).to.equal('NOT_FOUND');
    });
  });

  describe('the index scope', () => {
    it('is part of a standard key and required of a scoped one', async () => {
      const account = await createAccount(service.url, 'pro');
      const standard = await createKey(service.url, { account_id: account });
      expect(standard.permissions).to.include('index');
      const scoped = await createKey(service.url, { account_id: account, type: 'scoped', permissions: ['search'] });
      const response = await post([{ url: url('scope'), title: 't', content: 'c' }], scoped.key);
      expect(response.status).to.equal(403);
      expect(response.json.error.details).to.include({ required_permission: 'index:write' });
    });
  });

  describe('indexing', () => {
    it('indexes text, Markdown and HTML within the request and keeps the good documents of a mixed batch', async () => {
      const documents = [
        { url: url('text'), title: 'Plain', content: 'Glaciers move slowly downhill under their own weight, carving valleys.' },
        { url: url('bad'), title: 'Bad', content: '' },
        { url: url('md'), title: 'Markdown', content_type: 'markdown', content: '# Volcanoes\n\nMagma rises through **cracks** in the [crust](https://x.example/).', language: 'en' },
        { url: url('html'), title: 'Tides', content_type: 'html', content: ARTICLE_HTML, author: 'A. Writer', published_date: '2025-01-31' },
      ];
      const first = await post(documents);
      expect(first.status, JSON.stringify(first.json)).to.equal(200);
      const data = first.json.data;
      expect(data).to.include({ state: 'completed', total: 4 });
      expect(data.job_id).to.be.a('string');
      expect(data.errors).to.deep.equal([{ index: 1, field: 'content', reason: 'must not be empty' }]);
      expect(data.results.map((r: { index: number; status: string }) => [r.index, r.status])).to.deep.equal([[0, 'indexed'], [2, 'indexed'], [3, 'indexed']]);
      for (const result of data.results) {
        expect(result.document_id).to.be.a('number');
        expect(result.passages).to.be.at.least(1);
      }
      expect(data.counts).to.deep.equal({ indexed: 3, replaced: 0, unchanged: 0, duplicate: 0, rejected: 1 });

      const again = await post(documents.filter((d) => d.content !== ''));
      expect(again.json.data.results.map((r: { status: string }) => r.status)).to.deep.equal(['unchanged', 'unchanged', 'unchanged']);

      const changed = await post([{ ...documents[0], content: 'Glaciers retreat when summers melt more ice than winters bring.' }]);
      expect(changed.json.data.results[0]).to.include({ status: 'replaced', url: url('text') });

      const copy = await post([{ ...documents[3], url: url('html-copy') }]);
      expect(copy.json.data.results[0]).to.include({ status: 'duplicate', duplicate_of: data.results[2].document_id });
      expect(copy.json.data.counts).to.include({ duplicate: 1 });
    });

    it('indexes concurrent batches sharing their vocabulary without failing any', async () => {
      // Batches of several clients at once touch the same terms and statistics rows.
      const batch = (n: number) => Array.from({ length: 50 }, (_, i) => ({
        url: url(`concurrent-${n}-${i}`),
        title: `Concurrent ${n} ${i}`,
        content: `Shared vocabulary about batteries, cells and anodes appears in every document. Document ${n} number ${i} adds its own words: ${randomUUID()}.`,
      }));
      const responses = await Promise.all([0, 1, 2, 3, 4, 5].map((n) => post(batch(n))));
      for (const response of responses) {
        expect(response.status, JSON.stringify(response.json).slice(0, 300)).to.equal(200);
        expect(response.json.data.counts.rejected).to.equal(0);
        expect(response.json.data.results).to.have.length(50);
      }
    });

    it('refuses an HTML document without text', async () => {
      const response = await post([{ url: url('empty'), title: 'Empty', content_type: 'html', content: '<html><body><script>x()</script></body></html>' }]);
      expect(response.json.data.errors).to.deep.equal([{ index: 0, field: 'content', reason: 'has no text once converted from html' }]);
    });

    it('refuses an HTML document past the DOM\'s limits, as a page to extract would be, and indexes the rest', async () => {
      const response = await post([
        { url: url('deep'), title: 'Deep', content_type: 'html', content: `<body>${'<div>'.repeat(2000)}Deep text.</body>` },
        { url: url('shallow'), title: 'Shallow', content: `Shallow text: ${Array.from({ length: 12 }, () => randomUUID().slice(0, 8)).join(' ')}.` },
      ]);
      expect(response.json.data.errors).to.deep.equal([{ index: 0, field: 'content', reason: 'page too complex: elements nested more than 1000 deep' }]);
      expect(response.json.data.results.map((r: { index: number; status: string }) => [r.index, r.status])).to.deep.equal([[1, 'indexed']]);
    });

    it('runs a large batch as a job that reports progress, counts and errors, to its own account and mode only', async () => {
      const documents: unknown[] = Array.from({ length: 120 }, (_, i) => ({
        url: url(`bulk/${i}`), title: `Bulk ${i}`, content: `Document number ${i} talks about topic ${i * 7} and nothing else at all.`,
      }));
      documents[17] = { url: url('bulk/17'), title: 'No content' };
      const submitted = await post(documents);
      expect(submitted.status, JSON.stringify(submitted.json)).to.equal(202);
      const { job_id: jobId } = submitted.json.data;
      expect(submitted.json.data).to.include({ total: 120 });
      expect(['queued', 'running']).to.include(submitted.json.data.state);
      expect(submitted.json.data.errors).to.deep.equal([{ index: 17, field: 'content', reason: 'is required' }]);

      const done = await eventually(async () => {
        const response = await call(service.url, `/v1/index/jobs/${jobId}`);
        expect(response.status).to.equal(200);
        return response.json.data.state === 'completed' ? response.json.data : undefined;
      }, 60_000);
      expect(done.progress).to.deep.equal({ done: 120, total: 120 });
      expect(done.counts).to.deep.equal({ indexed: 119, replaced: 0, unchanged: 0, duplicate: 0, rejected: 1 });
      expect(done.errors).to.deep.equal([{ index: 17, field: 'content', reason: 'is required' }]);
      expect(done.finished_at).to.be.a('string');

      const account = await createAccount(service.url, 'pro');
      for (const mode of ['live', 'test']) {
        const other = await createKey(service.url, { account_id: account, mode });
        const response = await call(service.url, `/v1/index/jobs/${jobId}`, { key: other.key });
        expect(response.status, mode).to.equal(404);
      }
    });
  });

  describe('deleting', () => {
    it('removes documents by URL, and by domain with its subdomains, in the caller\'s mode only', async () => {
      const domain = `${randomUUID()}.example`;
      const indexed = await post([
        { url: `https://${domain}/one`, title: 'One', content: 'Rivers carry sediment to the sea over thousands of years.' },
        { url: `https://news.${domain}/two`, title: 'Two', content: 'Deltas form where rivers slow down and drop their load.' },
        { url: `https://${domain}/three`, title: 'Three', content: 'Estuaries mix fresh river water with salt water from the ocean.' },
        { url: `https://not${domain}/four`, title: 'Four', content: 'A lookalike domain that the domain deletion must leave alone.' },
      ]);
      expect(indexed.json.data.counts.indexed).to.equal(4);
      const remove = (body: unknown, key?: string) => call(service.url, '/v1/index/documents', { method: 'DELETE', body, ...(key ? { key } : {}) });

      const sandbox = await createKey(service.url, { account_id: await createAccount(service.url, 'pro'), mode: 'test' });
      expect((await remove({ domain }, sandbox.key)).json.data).to.deep.equal({ deleted: 0 });

      expect((await remove({ urls: [`https://${domain}/three`, `https://${domain}/never-indexed`] })).json.data).to.deep.equal({ deleted: 1 });
      expect((await remove({ domain })).json.data).to.deep.equal({ deleted: 2 });
      expect((await remove({ domain })).json.data).to.deep.equal({ deleted: 0 });
      expect((await remove({ domain: `not${domain}` })).json.data).to.deep.equal({ deleted: 1 });
    });
  });
});

describe('markdownToText', () => {
  it('strips headings, emphasis, quotes, lists and images; links keep their text, code its code', () => {
    const markdown = [
      '# Title', '', 'Some *emphasis*, __strong__ and ~~struck~~ words with a [link](https://x.example/a) and snake_case_name.',
      '', '![a chart](chart.png)', '', '> quoted **line**', '', '- one', '2. two', '- [x] done', '', '---', '',
      'Inline `a *b* c` code.', '', '```js', 'const x = a * b; // *not emphasis*', '```', '',
      '| a | b |', '| --- | --- |', '| 1 | 2 |', '', 'Setext', '======',
    ].join('\n');
    expect(markdownToText(markdown)).to.equal([
      'Title', '', 'Some emphasis, strong and struck words with a link and snake_case_name.', '', '', '', 'quoted line', '',
      'one', 'two', 'done', '', '', '', 'Inline a *b* c code.', '', 'const x = a * b; // *not emphasis*', '',
      'a  b', '', '1  2', '', 'Setext',
    ].join('\n').replace(/\n{3,}/g, '\n\n'));
  });
});
