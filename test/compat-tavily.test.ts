import { expect } from 'chai';
import { tavily } from '@tavily/core';
import { TavilyExtract, TavilySearch } from '@langchain/tavily';
import { call } from './helpers/service.js';
import { auditEntries, startCompatSite, type CompatSite } from './helpers/compat-site.js';

/**
 * The Tavily-compatible endpoints driven by Tavily's own clients, @tavily/core and
 * @langchain/tavily, pointed at the service's /compat/tavily: a local site whose articles the
 * test loads into the index, searched and extracted through them. docs/compat.md has the mapping.
 */
describe('compat: Tavily clients', function () {
  this.timeout(60_000);
  let s: CompatSite;
  let base: string;

  before(async () => {
    s = await startCompatSite();
    base = `${s.service.url}/compat/tavily`;
  });
  after(() => s?.close());

  describe('@tavily/core', () => {
    it('searches: the loaded pages as results, the summary as the answer, the indexed text as raw content', async () => {
      const client = tavily({ apiKey: s.key, apiBaseURL: base });
      const answer = await client.search(`green tea water ${s.marker}`, { includeAnswer: true, includeRawContent: 'text', maxResults: 3, timeRange: 'year' });
      expect(answer.results.map((r) => r.url)).to.include(s.url('/tea'));
      const tea = answer.results.find((r) => r.url === s.url('/tea'))!;
      expect(tea.title).to.equal('Brewing green tea');
      expect(tea.content).to.include(s.marker);
      expect(tea.score).to.be.within(0, 1);
      expect(tea.rawContent).to.include('Boiling water scorches the leaves');
      expect(answer.answer).to.be.a('string').and.match(/\[1\]/);
      expect(answer.images).to.deep.equal([]);
      expect(answer.responseTime).to.be.a('number');
      expect(answer.requestId).to.match(/^req_/);
    });

    it('filters by domain and leaves raw content out unless asked', async () => {
      const client = tavily({ apiKey: s.key, apiBaseURL: base });
      const none = await client.search(`coffee roast ${s.marker}`, { excludeDomains: ['127.0.0.1'] });
      expect(none.results.map((r) => r.url)).not.to.include(s.url('/coffee'));
      const some = await client.search(`coffee roast ${s.marker}`, { includeDomains: ['127.0.0.1'], maxResults: 1 });
      expect(some.results).to.have.length(1);
      expect(some.results[0]!.url).to.equal(s.url('/coffee'));
      expect(some.results[0]!.rawContent).to.equal(null);
      expect(some.answer).to.equal(null);
    });

    it('extracts pages through the extraction pipeline, a missing page among the failed results', async () => {
      const client = tavily({ apiKey: s.key, apiBaseURL: base });
      const extracted = await client.extract([s.url('/tea'), s.url('/missing')], { format: 'markdown' });
      expect(extracted.results, JSON.stringify(extracted).slice(0, 600)).to.have.length(1);
      expect(extracted.results[0]!.url).to.equal(s.url('/tea'));
      expect(extracted.results[0]!.title).to.equal('Brewing green tea');
      expect(extracted.results[0]!.rawContent).to.include('Boiling water scorches').and.include('second infusion');
      expect(extracted.failedResults).to.have.length(1);
      expect(extracted.failedResults[0]!.url).to.equal(s.url('/missing'));
      expect(extracted.failedResults[0]!.error).to.match(/^URL_UNREACHABLE: /);
    });

    it('surfaces errors as the client\'s own Error with the service\'s message', async () => {
      const refused = tavily({ apiKey: s.monitorKey, apiBaseURL: base });
      const error = await refused.search('green tea').then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message).to.match(/^INSUFFICIENT_PERMISSIONS: /);
      const invalid = await tavily({ apiKey: s.key, apiBaseURL: base }).search('green tea', { maxResults: 50 }).then(() => undefined, (e: unknown) => e);
      expect((invalid as Error).message).to.match(/^INVALID_MAX_RESULTS: /);
      const extractRefused = await refused.extract([s.url('/tea')]).then(() => undefined, (e: unknown) => e);
      expect((extractRefused as Error).message).to.match(/^INSUFFICIENT_PERMISSIONS: /);
    });
  });

  describe('@langchain/tavily', () => {
    it('TavilySearch and TavilyExtract parse the answers', async () => {
      const search = new TavilySearch({ tavilyApiKey: s.key, apiBaseUrl: base, maxResults: 2, includeAnswer: true });
      const found = await search.invoke({ query: `coffee beans first crack ${s.marker}` });
      expect(found.results.map((r: { url: string }) => r.url)).to.include(s.url('/coffee'));
      expect(found.answer).to.be.a('string');
      const extract = new TavilyExtract({ tavilyApiKey: s.key, apiBaseUrl: base });
      const page = await extract.invoke({ urls: [s.url('/coffee')] });
      expect(page.results[0].raw_content).to.include('first crack');
    });

    it('reports a refused key as the tool\'s error', async () => {
      const search = new TavilySearch({ tavilyApiKey: s.monitorKey, apiBaseUrl: base });
      // The tool logs the failed response itself (console.log); the test keeps its output clean.
      const log = console.log;
      console.log = () => undefined;
      const found = await search.invoke({ query: 'coffee' }).finally(() => { console.log = log; });
      expect(found.error).to.match(/^Error 403: INSUFFICIENT_PERMISSIONS: /);
    });
  });

  describe('the wire', () => {
    it('takes the key from the body as older clients send it, and refuses in Tavily\'s error format', async () => {
      const inBody = await call(base, '/search', { key: null, body: { api_key: s.key, query: `green tea ${s.marker}` } });
      expect(inBody.status, JSON.stringify(inBody.json)).to.equal(200);
      expect(inBody.json.results.length).to.be.above(0);

      const refused = await call(base, '/search', { key: s.monitorKey, body: { query: 'green tea' } });
      expect(refused.status).to.equal(403);
      expect(refused.headers.get('x-error-code')).to.equal('INSUFFICIENT_PERMISSIONS');
      expect(refused.json).to.have.all.keys('detail');
      expect(refused.json.detail.error).to.match(/^INSUFFICIENT_PERMISSIONS: /);

      const missing = await call(base, '/search', { key: null, body: { query: 'green tea' } });
      expect(missing.status).to.equal(401);
      expect(missing.json.detail.error).to.match(/^MISSING_API_KEY: /);
    });

    it('names what it accepted and ignored, and refuses what it cannot honour', async () => {
      const warned = await call(base, '/search', { key: s.key, body: { query: `green tea ${s.marker}`, include_images: true, topic: 'news', days: 3 } });
      expect(warned.status).to.equal(200);
      const warnings = warned.headers.get('x-compat-warning');
      expect(warnings).to.include('include_images ignored').and.include('topic ignored').and.include('days 3 widened to 7');

      // chunks_per_source maps onto the native one: content is the best passages.
      const chunked = await call(base, '/search', { key: s.key, body: { query: `green tea ${s.marker}`, chunks_per_source: 2 } });
      expect(chunked.status).to.equal(200);
      expect(chunked.headers.get('x-compat-warning')).to.equal(null);
      expect(chunked.json.results.find((r: { url: string }) => r.url === s.url('/tea')).content).to.include(s.marker);

      const refused = await call(base, '/search', { key: s.key, body: { query: 'green tea', start_date: '2025-01-01' } });
      expect(refused.status).to.equal(400);
      expect(refused.headers.get('x-error-code')).to.equal('INVALID_PARAMETER');
      expect(refused.json.detail.error).to.include('start_date is not supported');

      const country = await call(base, '/search', { key: s.key, body: { query: `green tea ${s.marker}`, country: 'united kingdom' } });
      expect(country.status, JSON.stringify(country.json)).to.equal(200);
      const unknown = await call(base, '/search', { key: s.key, body: { query: 'green tea', country: 'atlantis' } });
      expect(unknown.status).to.equal(400);
      expect(unknown.headers.get('x-error-code')).to.equal('INVALID_COUNTRY');
    });

    it('audits requests under the compat path with their codes', async () => {
      const refused = await call(base, '/extract', { key: s.monitorKey, body: { urls: [s.url('/tea')] } });
      const id = refused.headers.get('x-request-id');
      const [entry] = await auditEntries(s.service, `request_id=${id}`, 1);
      expect(entry).to.include({ endpoint: '/compat/tavily/extract', status: 403, error_code: 'INSUFFICIENT_PERMISSIONS' });
      const searches = await auditEntries(s.service, 'endpoint=/compat/tavily/search&status=success', 1);
      expect(searches[0].endpoint).to.equal('/compat/tavily/search');
    });
  });
});
