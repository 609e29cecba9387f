import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { call, startTestService, testEnv, type TestService } from './helpers/service.js';
import { startCrawlSite, type CrawlSite } from './helpers/crawl-site.js';
import { eventually } from './helpers/wait.js';
import { openStorage } from '../src/storage/connection.js';

/** The worker entry point of the same build as this test (dist/, or another output directory). */
const WORKER = fileURLToPath(new URL('../workers/main.js', import.meta.url));
const runWords = Array.from({ length: 12 }, () => randomUUID().slice(0, 8)).join(' ');

describe('crawl resumed after its worker process is killed', function () {
  this.timeout(180_000);
  const env = testEnv();
  let api: TestService;
  let site: CrawlSite;
  const workers: ChildProcess[] = [];

  const startWorker = () => {
    const child = spawn(process.execPath, [WORKER], { env: { ...process.env, ...env }, stdio: 'ignore' });
    workers.push(child);
    return child;
  };
  const report = async (id: string) => (await call(api.url, `/v1/crawl/${id}`)).json.data;

  before(async () => {
    api = await startTestService({ QUEUE_PREFIX: env.QUEUE_PREFIX! }, 'api');
    site = await startCrawlSite({ pages: 40, crawlDelay: 0.1, runWords });
  });
  after(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await api.close();
    await site.close();
  });

  it('is taken over by another worker and completes with every page indexed exactly once', async () => {
    const first = startWorker();
    const { crawl_id: id } = (await call(api.url, '/v1/crawl', { body: { urls: [`${site.url}/`], max_depth: 10 } })).json.data;
    await eventually(async () => ((await report(id)).pages.fetched >= 10 ? true : undefined), 60_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));

    // Nobody works on it now: the crawl stays running, and the site hears nothing more.
    const atKill = site.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stalled = await report(id);
    expect(stalled.state).to.equal('running');
    expect(stalled.pages.fetched).to.be.below(40);
    expect(site.requests.length).to.equal(atKill);

    startWorker();
    const done = await eventually(async () => {
      const view = await report(id);
      return view.state === 'running' ? undefined : view;
    }, 120_000);
    expect(done.state).to.equal('completed');
    expect(done.pages).to.deep.include({ discovered: 40, fetched: 40, indexed: 40, failed: 0, queued: 0, in_progress: 0 });

    const pages = site.requests.filter((r) => r.path !== '/robots.txt' && r.path !== '/sitemap.xml');
    expect(pages.filter((r) => r.path.startsWith('/private/'))).to.deep.equal([]);
    const times = new Map<string, number>();
    for (const r of pages) times.set(r.path, (times.get(r.path) ?? 0) + 1);
    expect([...times.keys()].sort()).to.deep.equal(site.publicPaths.sort());
    // Only pages in flight when the worker died may be requested twice: the one being fetched and
    // up to four fetched ones still being cleaned and indexed (a lane's pipeline, crawl-driver.ts).
    expect([...times.values()].filter((n) => n > 1).length).to.be.at.most(5);
    expect([...times.values()].every((n) => n <= 2)).to.equal(true);

    // One document per page in the index: deleting them all removes exactly 40.
    const urls = site.publicPaths.map((p) => `${site.url}${p}`);
    const deleted = await call(api.url, '/v1/index/documents', { method: 'DELETE', body: { urls } });
    expect(deleted.json.data.deleted).to.equal(40);
  });
});

describe('crawl handed over at a graceful shutdown', function () {
  this.timeout(120_000);

  it('is released at once when its process stops, and finished by the next one', async () => {
    const env = testEnv();
    // Each page takes 300 ms to answer; the process is stopped while a request is in flight,
    // which it finishes instead of cutting off for the next process to request again.
    const latencyMs = 300;
    const site = await startCrawlSite({ pages: 20, crawlDelay: 0.1, latencyMs, runWords });
    let service = await startTestService({ QUEUE_PREFIX: env.QUEUE_PREFIX! });
    try {
      const { crawl_id: id } = (await call(service.url, '/v1/crawl', { body: { urls: [`${site.url}/`], max_depth: 10 } })).json.data;
      await eventually(async () => ((await call(service.url, `/v1/crawl/${id}`)).json.data.pages.fetched >= 5 ? true : undefined), 30_000);
      await eventually(async () => (site.requests.some((r) => r.path.startsWith('/p/') && performance.now() - r.at < latencyMs / 2) ? true : undefined), 10_000);
      const stopping = Date.now();
      await service.close();
      expect(Date.now() - stopping, 'shutdown does not wait for the crawl').to.be.below(5000);

      service = await startTestService({ QUEUE_PREFIX: env.QUEUE_PREFIX! });
      const done = await eventually(async () => {
        const view = (await call(service.url, `/v1/crawl/${id}`)).json.data;
        return view.state === 'running' ? undefined : view;
      }, 60_000);
      expect(done.state).to.equal('completed');
      expect(done.pages).to.deep.include({ discovered: 20, fetched: 20, indexed: 20, failed: 0 });
      // The hand-over is counted apart, so that it does not use up the crawl's restarts.
      const storage = openStorage(service.config.databaseUrl, 1);
      try {
        const crawl = await storage.db.selectFrom('crawls').select(['lease_epoch', 'handbacks']).where('id', '=', id).executeTakeFirstOrThrow();
        // Every driver after the first took over from a hand-over (a process may hand over more
        // than once if the reconciler gives the crawl back to it while it stops): none counts as a restart.
        expect(crawl.handbacks).to.be.at.least(1);
        expect(crawl.handbacks).to.equal(crawl.lease_epoch);
      } finally {
        await storage.close();
      }
      const pages = site.requests.filter((r) => r.path.startsWith('/p/') || r.path === '/').map((r) => r.path);
      expect(new Set(pages).size, 'no page fetched twice').to.equal(pages.length);
      const deleted = await call(service.url, '/v1/index/documents', { method: 'DELETE', body: { urls: site.publicPaths.map((p) => `${site.url}${p}`) } });
      expect(deleted.json.data.deleted).to.equal(20);
    } finally {
      await service.close();
      await site.close();
    }
  });
});
