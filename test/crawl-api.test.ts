import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { startCrawlSite, type CrawlSite } from './helpers/crawl-site.js';
import { eventually } from './helpers/wait.js';

const runWords = Array.from({ length: 12 }, () => randomUUID().slice(0, 8)).join(' ');
const FINISHED = ['completed', 'cancelled', 'failed'];

describe('crawl API', function () {
  this.timeout(120_000);
  let service: TestService;
  const sites: CrawlSite[] = [];

  before(async () => {
    // Two unfinished crawls per account and mode, so the limit is reached quickly (the master key has none).
    service = await startTestService({ PLANS_FILE: writePlansFile(), CRAWL_MAX_UNFINISHED: '2' });
  });
  after(async () => {
    await service.close();
    await Promise.all(sites.map((site) => site.close()));
  });

  async function site(options: Partial<Parameters<typeof startCrawlSite>[0]> & { pages: number }): Promise<CrawlSite> {
    const started = await startCrawlSite({ runWords, crawlDelay: 0.01, ...options });
    sites.push(started);
    return started;
  }

  async function crawl(body: Record<string, unknown>, key?: string): Promise<any> {
    const started = await call(service.url, '/v1/crawl', { body, ...(key ? { key } : {}) });
    expect(started.status, JSON.stringify(started.json)).to.equal(202);
    return started.json.data;
  }

  async function finished(id: string, key?: string): Promise<any> {
    return eventually(async () => {
      const response = await call(service.url, `/v1/crawl/${id}`, key ? { key } : {});
      expect(response.status, JSON.stringify(response.json)).to.equal(200);
      return FINISHED.includes(response.json.data.state) ? response.json.data : undefined;
    }, 90_000);
  }

  /** Requests of pages (robots.txt and the sitemap aside), by path. */
  const pageRequests = (s: CrawlSite) => s.requests.filter((r) => r.path !== '/robots.txt' && r.path !== '/sitemap.xml');

  /** Removes the URLs from the index and says how many were there: each indexed document counts once. */
  async function deleteIndexed(urls: string[]): Promise<number> {
    const response = await call(service.url, '/v1/index/documents', { method: 'DELETE', body: { urls } });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    return response.json.data.deleted as number;
  }

  it('indexes every allowed page of a site once, never requests what robots.txt forbids, reads the sitemap and keeps the Crawl-delay', async () => {
    const s = await site({ pages: 15, crawlDelay: 0.15, sitemap: true });
    const started = await crawl({ urls: [`${s.url}/`], max_depth: 5 });
    expect(started).to.include({ state: 'queued' });
    expect(started.crawl_id).to.match(/^crawl_/);
    expect(started.options).to.deep.include({ max_pages: 100, max_depth: 5, same_domain: true, sitemaps: true, include: [], exclude: [] });

    const report = await finished(started.crawl_id);
    expect(report.state).to.equal('completed');
    // 15 tree pages and the orphan page only the sitemap names; /private/0..14 linked from the navigation.
    expect(report.pages).to.deep.equal({ discovered: 16, queued: 0, in_progress: 0, fetched: 16, indexed: 16, failed: 0, skipped_robots: 15 });
    expect(report.failures).to.deep.equal([]);
    expect(report.limit_reached).to.equal(false);
    expect(Date.parse(report.started_at)).to.be.at.least(Date.parse(report.created_at));
    expect(Date.parse(report.finished_at)).to.be.at.least(Date.parse(report.started_at));

    const requested = pageRequests(s).map((r) => r.path);
    expect(requested.filter((p) => p.startsWith('/private/'))).to.deep.equal([]);
    expect([...requested].sort()).to.deep.equal([...s.publicPaths].sort());
    expect(s.requests.filter((r) => r.path === '/sitemap.xml')).to.have.length(1);

    // Crawl-delay: 0.15 s from the end of one request to the start of the next (the sitemap is fetched politely too).
    const starts = s.requests.filter((r) => r.path !== '/robots.txt').map((r) => r.at);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!, `gap before request ${i}`).to.be.at.least(145);

    const urls = s.publicPaths.map((p) => `${s.url}${p}`);
    expect(await deleteIndexed([...urls, `${s.url}/private/0`, `${s.url}/private/3`])).to.equal(16);
  });

  it('stops at max_pages', async () => {
    const s = await site({ pages: 31 });
    const report = await finished((await crawl({ urls: [`${s.url}/`], max_pages: 5, max_depth: 10 })).crawl_id);
    expect(report.state).to.equal('completed');
    expect(report.pages).to.include({ discovered: 5, fetched: 5, indexed: 5, queued: 0 });
    expect(report.limit_reached).to.equal(true);
    expect(pageRequests(s)).to.have.length(5);
    await deleteIndexed(pageRequests(s).map((r) => `${s.url}${r.path}`));
  });

  it('follows links no deeper than max_depth, and reads no sitemap when told not to', async () => {
    const s = await site({ pages: 31, sitemap: true });
    const report = await finished((await crawl({ urls: [`${s.url}/`], max_depth: 2, sitemaps: false })).crawl_id);
    const requested = pageRequests(s).map((r) => r.path).sort();
    expect(requested).to.deep.equal(['/', '/p/1', '/p/2', '/p/3', '/p/4', '/p/5', '/p/6']);
    expect(report.pages).to.include({ fetched: 7, indexed: 7 });
    await deleteIndexed(requested.map((p) => `${s.url}${p}`));
  });

  it('takes only URLs the include patterns match and the exclude patterns do not', async () => {
    const s = await site({ pages: 31 });
    await finished((await crawl({ urls: [`${s.url}/`], max_depth: 3, include: ['/p/*'], exclude: ['/p/1', '*/p/5'] })).crawl_id);
    // /p/1 and /p/5 are left out, and so is what only they link to.
    expect(pageRequests(s).map((r) => r.path).sort()).to.deep.equal(['/', '/p/13', '/p/14', '/p/2', '/p/6']);

    const other = await site({ pages: 31 });
    await finished((await crawl({ urls: [`${other.url}/`], max_depth: 3, include: [`${other.url}/p/2`, '*/p/6'] })).crawl_id);
    expect(pageRequests(other).map((r) => r.path).sort()).to.deep.equal(['/', '/p/2', '/p/6']);
    await deleteIndexed([...pageRequests(s).map((r) => `${s.url}${r.path}`), ...pageRequests(other).map((r) => `${other.url}${r.path}`)]);
  });

  it('reports failed pages with their error code and reason', async () => {
    const s = await site({ pages: 3 });
    // A port nothing listens on: the site is out of reach, which is a failure, not a robots.txt refusal.
    const closed = await site({ pages: 1 });
    await closed.close();
    const report = await finished((await crawl({ urls: [`${s.url}/`, `${s.url}/missing`, `${closed.url}/`], max_depth: 1 })).crawl_id);
    expect(report.state).to.equal('completed');
    expect(report.pages).to.include({ fetched: 3, indexed: 3, failed: 2, skipped_robots: 1 });
    expect(report.failures).to.deep.include({ url: `${s.url}/missing`, code: 'URL_UNREACHABLE', reason: 'HTTP 404', http_status: 404 });
    expect(report.failures).to.deep.include({ url: `${closed.url}/`, code: 'URL_UNREACHABLE', reason: 'robots.txt: connection refused', http_status: null });
  });

  it('cancels a running crawl: no page is requested afterwards', async () => {
    const s = await site({ pages: 60, crawlDelay: 0.2 });
    const { crawl_id: id } = await crawl({ urls: [`${s.url}/`], max_depth: 10 });
    await eventually(async () => (pageRequests(s).length >= 3 ? true : undefined), 30_000);
    const cancelled = await call(service.url, `/v1/crawl/${id}`, { method: 'DELETE' });
    expect(cancelled.status).to.equal(200);
    expect(cancelled.json.data.state).to.equal('cancelled');
    expect(cancelled.json.data.finished_at).to.be.a('string');
    // The request in flight at the moment of cancellation may still arrive; nothing after it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const seen = pageRequests(s).length;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(pageRequests(s).length).to.equal(seen);
    expect(seen).to.be.below(60);
    const later = await call(service.url, `/v1/crawl/${id}`);
    expect(later.json.data.state).to.equal('cancelled');
    expect(later.json.data.pages.in_progress).to.equal(0);
    expect(later.json.data.pages.fetched).to.be.at.least(3);

    const again = await call(service.url, `/v1/crawl/${id}`, { method: 'DELETE' });
    expect(again.json.data.state).to.equal('cancelled');
  });

  it('ends by itself at max_duration, with the pages still queued left unfetched', async () => {
    const s = await site({ pages: 200, crawlDelay: 0.5 });
    const started = Date.now();
    const report = await finished((await crawl({ urls: [`${s.url}/`], max_depth: 10, max_duration: 10 })).crawl_id);
    expect(Date.now() - started).to.be.within(9_000, 20_000);
    expect(report).to.include({ state: 'completed', stopped_reason: 'max_duration' });
    expect(report.pages.queued).to.be.above(0);
    expect(report.pages.in_progress).to.equal(0);
    expect(report.pages.fetched).to.be.within(5, 25);
  });

  describe('validation', () => {
    const refuse = async (body: unknown, parameter: string) => {
      const response = await call(service.url, '/v1/crawl', { body });
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(response.json.error.code).to.equal('INVALID_PARAMETER');
      expect(response.json.error.details.parameter).to.equal(parameter);
    };

    it('refuses missing, malformed and too many seeds', async () => {
      await refuse({}, 'urls');
      await refuse({ urls: [] }, 'urls');
      await refuse({ urls: ['ftp://example.com/'] }, 'urls[0]');
      await refuse({ urls: Array.from({ length: 21 }, (_, i) => `https://example.com/${i}`) }, 'urls');
    });

    it('bounds max_pages, max_depth, max_duration and the patterns', async () => {
      const urls = ['https://example.com/'];
      await refuse({ urls, max_pages: 0 }, 'max_pages');
      await refuse({ urls, max_pages: 10_001 }, 'max_pages');
      await refuse({ urls, max_depth: 21 }, 'max_depth');
      await refuse({ urls, max_duration: 5 }, 'max_duration');
      await refuse({ urls, include: ['x'.repeat(201)] }, 'include[0]');
      await refuse({ urls, exclude: Array.from({ length: 21 }, () => '*.pdf') }, 'exclude');
      await refuse({ urls, follow: true }, 'follow');
    });
  });

  describe('unfinished crawls per account', () => {
    it('refuses a third at once with TOO_MANY_CRAWLS, counts live and sandbox apart, and frees a place when one ends', async () => {
      // One page a second keeps the crawls running while the test starts more.
      const s = await site({ pages: 30, crawlDelay: 1 });
      const body = { urls: [`${s.url}/`], max_depth: 10 };
      const account = await createAccount(service.url, 'pro');
      const live = await createKey(service.url, { account_id: account });
      const sandbox = await createKey(service.url, { account_id: account, mode: 'test' });
      // Started together: the account's starts take turns, so exactly two get a place.
      const started = await Promise.all([1, 2, 3].map(() => call(service.url, '/v1/crawl', { body, key: live.key })));
      expect(started.map((r) => r.status).sort()).to.deep.equal([202, 202, 429]);
      const refused = started.find((r) => r.status === 429)!;
      expect(refused.json.error).to.deep.include({ code: 'TOO_MANY_CRAWLS', details: { limit: 2, unfinished: 2 } });
      const running = started.filter((r) => r.status === 202).map((r) => r.json.data.crawl_id as string);

      const inSandbox = await crawl(body, sandbox.key);
      expect((await call(service.url, `/v1/crawl/${running[0]}`, { method: 'DELETE', key: live.key })).json.data.state).to.equal('cancelled');
      const next = await crawl(body, live.key);
      for (const [id, key] of [[running[1]!, live.key], [next.crawl_id, live.key], [inSandbox.crawl_id, sandbox.key]] as const) {
        await call(service.url, `/v1/crawl/${id}`, { method: 'DELETE', key });
      }
    });
  });

  describe('ownership', () => {
    it('shows a crawl to its own account and mode only', async () => {
      const s = await site({ pages: 1 });
      const { crawl_id: id } = await crawl({ urls: [`${s.url}/`], max_depth: 0 });
      const account = await createAccount(service.url, 'pro');
      const stranger = await createKey(service.url, { account_id: account });
      const sandbox = await createKey(service.url, { account_id: account, mode: 'test' });
      for (const key of [stranger.key, sandbox.key]) {
        for (const method of ['GET', 'DELETE']) {
          const response = await call(service.url, `/v1/crawl/${id}`, { method, key });
          expect(response.status, method).to.equal(404);
          expect(response.json.error.code).to.equal('NOT_FOUND');
          expect(response.json.error.details).to.deep.include({ resource: 'crawl', id });
        }
      }
      expect((await call(service.url, '/v1/crawl/crawl_nope')).status).to.equal(404);
      await finished(id);
    });

    it('needs the index scope', async () => {
      const account = await createAccount(service.url, 'pro');
      const scoped = await createKey(service.url, { account_id: account, type: 'scoped', permissions: ['search'] });
      const response = await call(service.url, '/v1/crawl', { body: { urls: ['https://example.com/'] }, key: scoped.key });
      expect(response.status).to.equal(403);
      expect(response.json.error.details).to.include({ required_permission: 'index:write' });
    });
  });
});
