import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { ARTICLE, html, startPageServer, type PageHandler, type PageServer } from './helpers/page-server.js';
import { eventually } from './helpers/wait.js';

// Issue 20, defect 5: a page of a million tiny elements ran the pool thread out of memory three
// times (the job retried, fetching the page each time) and answered 500 after 21.7 s. Pages
// beyond the DOM's limits are refused while the tree is built, as 422 EXTRACTION_FAILED naming
// the limit, once; a thread that runs out of memory anyway is the page's fault too, not retried.

/** About 8 MB, under FETCH_MAX_MB: a million elements of one letter each. */
const MILLION = `<!doctype html><html><head><title>Many</title></head><body>${'<i>x</i>'.repeat(1_000_000)}</body></html>`;
/** 100,000 elements each inside the previous one. */
const DEEP = `<!doctype html><html><head><title>Deep</title></head><body>${'<div>'.repeat(100_000)}Deep down there is a sentence.${'</div>'.repeat(100_000)}</body></html>`;
const TEA = `<!doctype html><html lang="en"><head><title>Green tea trial</title></head><body><article><h1>Green tea trial</h1>
<p>Regular green tea consumption lowered LDL cholesterol in adults, a randomised trial found.</p>
<p>The trial was published in a peer-reviewed journal and followed its participants for two years.</p></article></body></html>`;

/** Fast enough for "a few seconds" on a loaded two-core machine; the defect took 21.7 s. */
const PROMPT_MS = 10_000;

describe('pathological pages', function () {
  this.timeout(90_000);
  let pages: PageServer;
  const fetches = new Map<string, number>();
  const counted = (path: string, handler: PageHandler): PageHandler => (req, res) => {
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    handler(req, res);
  };

  before(async () => {
    pages = await startPageServer({
      '/million': counted('/million', html(MILLION)),
      '/deep': counted('/deep', html(DEEP)),
      '/article': html(ARTICLE),
      '/tea': html(TEA),
    });
  });
  after(() => pages.close());
  beforeEach(() => fetches.clear());

  async function extract(service: TestService, path: string): Promise<{ status: number; json: any; ms: number }> {
    const started = Date.now();
    const response = await call(service.url, '/v1/extract', { body: { url: `${pages.url}${path}`, format: 'text' } });
    return { ...response, ms: Date.now() - started };
  }

  describe('within the default limits', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService();
    });
    after(() => service.close());

    /** A page past a DOM limit is refused with the limit it broke, without a retry that would fetch it again. */
    async function expectRefused(path: string, reason: string): Promise<void> {
      const response = await extract(service, path);
      expect(response.status, JSON.stringify(response.json)).to.equal(422);
      expect(response.json.error.code).to.equal('EXTRACTION_FAILED');
      expect(response.json.error.details.reason).to.equal(reason);
      expect(response.ms).to.be.below(PROMPT_MS);
      expect(fetches.get(path)).to.equal(1);
    }

    it('refuses a page of a million elements with EXTRACTION_FAILED naming the node limit, promptly and fetched once', () =>
      expectRefused('/million', 'page too complex: more than 250000 elements and text nodes'));

    it('refuses a page nested 100,000 deep with EXTRACTION_FAILED naming the depth limit, promptly and fetched once', () =>
      expectRefused('/deep', 'page too complex: elements nested more than 1000 deep'));

    it('still extracts an ordinary page afterwards', async () => {
      const response = await extract(service, '/article');
      expect(response.status, JSON.stringify(response.json)).to.equal(200);
      expect(response.json.data.content).to.include('Every request travels through Koa');
    });

    it('lists such pages among a validation\'s failed sources and judges on the readable one', async () => {
      const response = await call(service.url, '/v1/validate', {
        body: {
          claim: 'Regular green tea consumption lowers LDL cholesterol in adults.',
          sources: [`${pages.url}/million`, `${pages.url}/deep`, `${pages.url}/tea`],
          options: { confidence_threshold: 0.5 },
        },
      });
      expect(response.status, JSON.stringify(response.json)).to.equal(200);
      expect(response.json.data.metadata.sources_failed).to.have.deep.members([
        { source: `${pages.url}/million`, code: 'EXTRACTION_FAILED', reason: 'page too complex: more than 250000 elements and text nodes' },
        { source: `${pages.url}/deep`, code: 'EXTRACTION_FAILED', reason: 'page too complex: elements nested more than 1000 deep' },
      ]);
      expect(response.json.data.evidence.supporting.map((e: { source: string }) => e.source)).to.deep.equal([`${pages.url}/tea`]);
    });

    it('reports such pages as failed pages of a crawl, each fetched once', async () => {
      const started = await call(service.url, '/v1/crawl', { body: { urls: [`${pages.url}/million`, `${pages.url}/deep`], max_depth: 0 } });
      expect(started.status, JSON.stringify(started.json)).to.equal(202);
      const report = await eventually(async () => {
        const response = await call(service.url, `/v1/crawl/${started.json.data.crawl_id}`);
        return response.json.data.state === 'completed' ? response.json.data : undefined;
      }, 60_000);
      expect(report.failures).to.have.deep.members([
        { url: `${pages.url}/million`, code: 'EXTRACTION_FAILED', reason: 'page too complex: more than 250000 elements and text nodes', http_status: 200 },
        { url: `${pages.url}/deep`, code: 'EXTRACTION_FAILED', reason: 'page too complex: elements nested more than 1000 deep', http_status: 200 },
      ]);
      expect(Object.fromEntries(fetches)).to.deep.equal({ '/million': 1, '/deep': 1 });
    });
  });

  describe('past the limits, a pool thread out of memory', () => {
    let service: TestService;
    before(async () => {
      // Limits no page reaches, and threads so small that the million elements fill one.
      service = await startTestService({ HTML_MAX_NODES: '5000000', HTML_MAX_DEPTH: '1000000', POOL_THREAD_HEAP_MB: '64' });
    });
    after(() => service.close());

    it('is the page\'s fault: EXTRACTION_FAILED naming the memory limit, fetched once, and the pool serves on', async () => {
      const response = await extract(service, '/million');
      expect(response.status, JSON.stringify(response.json)).to.equal(422);
      expect(response.json.error.code).to.equal('EXTRACTION_FAILED');
      expect(response.json.error.details.reason).to.equal('page too complex: processing memory limit reached');
      expect(fetches.get('/million')).to.equal(1);
      const ordinary = await extract(service, '/article');
      expect(ordinary.status, JSON.stringify(ordinary.json)).to.equal(200);
    });
  });
});
