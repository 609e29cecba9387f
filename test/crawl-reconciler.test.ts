import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { redisOptions } from '../src/redis/connection.js';
import { createLogger } from '../src/log/logger.js';
import { admit, findCrawl, insertCrawl, purgeFinishedCrawls } from '../src/crawl/crawl.repository.js';
import { sha256Hex } from '../src/storage/hash.js';
import { crawlJobId } from '../src/crawl/crawl-jobs.js';
import { MAX_EPOCHS, reconcileCrawls, RETENTION_MS } from '../src/crawl/crawl-reconciler.js';
import { call, startTestService, testEnv, TEST_KEY, type TestService } from './helpers/service.js';
import { startCrawlSite, type CrawlSite } from './helpers/crawl-site.js';
import { eventually } from './helpers/wait.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('crawl reconciler', function () {
  this.timeout(60_000);
  const env = testEnv();
  let service: TestService;
  let storage: Storage;
  let queue: Queue;
  let site: CrawlSite;

  before(async () => {
    service = await startTestService({ QUEUE_PREFIX: env.QUEUE_PREFIX! });
    storage = openStorage(DATABASE_URL, 2);
    queue = new Queue('crawl', { connection: redisOptions(REDIS_URL), prefix: env.QUEUE_PREFIX! });
    site = await startCrawlSite({ pages: 3, crawlDelay: 0.01, runWords: randomUUID() });
  });
  after(async () => {
    await queue.close();
    await storage.close();
    await service.close();
    await site.close();
  });

  const newCrawl = async (overrides: { epoch?: number; handbacks?: number } = {}) => {
    const id = `crawl_${randomUUID()}`;
    const options = { urls: [`${site.url}/`], max_pages: 10, max_depth: 2, include: [], exclude: [], same_domain: true, sitemaps: false, max_duration: 60 };
    await insertCrawl(storage.db, {
      id, accountId: null, principalId: 'master', mode: 'live', requestId: `req_${randomUUID()}`, options: JSON.stringify(options), maxPages: 10, createdAt: new Date(),
    });
    if (overrides.epoch !== undefined) await storage.db.updateTable('crawls').set({ lease_epoch: overrides.epoch, handbacks: overrides.handbacks ?? 0 }).where('id', '=', id).execute();
    return id;
  };

  it('starts a crawl whose job was never queued (the API died in between)', async () => {
    const id = await newCrawl();
    expect(await queue.getJob(crawlJobId(id, 0))).to.equal(undefined);
    const done = await eventually(async () => {
      const view = (await call(service.url, `/v1/crawl/${id}`, { key: TEST_KEY })).json.data;
      return view.state === 'completed' ? view : undefined;
    }, 30_000);
    expect(done.pages).to.include({ indexed: 3, failed: 0 });
    expect((await findCrawl(storage.db, id))!.lease_epoch).to.equal(1);
  });

  it('fails a crawl that has been restarted too often instead of restarting it forever', async () => {
    const id = await newCrawl({ epoch: MAX_EPOCHS });
    await reconcileCrawls({ db: storage.db, queue, logger: createLogger('silent', 'worker') });
    const view = (await call(service.url, `/v1/crawl/${id}`)).json.data;
    expect(view.state).to.equal('failed');
    expect(view.failure.code).to.equal('INTERNAL_SERVER_ERROR');
    expect(view.finished_at).to.be.a('string');
  });

  it('does not count graceful hand-overs of stopping workers as restarts', async () => {
    // Sixty drivers so far, twenty of them handed the crawl over at a shutdown: forty restarts.
    const id = await newCrawl({ epoch: MAX_EPOCHS + 10, handbacks: 20 });
    expect(await reconcileCrawls({ db: storage.db, queue, logger: createLogger('silent', 'worker') })).to.include(id);
    const done = await eventually(async () => {
      const view = (await call(service.url, `/v1/crawl/${id}`)).json.data;
      return view.state === 'running' || view.state === 'queued' ? undefined : view;
    }, 30_000);
    expect(done.state).to.equal('completed');
  });

  it('gives a page up once its fetch was started three times without finishing', async () => {
    const id = `crawl_${randomUUID()}`;
    const options = { urls: [`${site.url}/`], max_pages: 10, max_depth: 0, include: [], exclude: [], same_domain: true, sitemaps: false, max_duration: 60 };
    // Held by a driver that is about to lapse, so that the page can be prepared first.
    await storage.db.insertInto('crawls').values({
      id, account_id: null, principal_id: 'master', mode: 'live', request_id: `req_${randomUUID()}`, state: 'running', options: JSON.stringify(options), max_pages: 10,
      lease_owner: 'gone', lease_until: new Date(Date.now() + 1000), stopped_reason: null, failure_code: null, failure_message: null,
      created_at: new Date(), started_at: new Date(), finished_at: null, updated_at: new Date(),
    }).execute();
    const seed = `${site.url}/`;
    await admit(storage.db, id, [{ url: seed, urlHash: sha256Hex(seed), host: new URL(seed).host, depth: 0 }], []);
    await storage.db.updateTable('crawl_pages').set({ state: 'fetching', lease_owner: 'gone', attempts: 3 }).where('crawl_id', '=', id).execute();

    const done = await eventually(async () => {
      const view = (await call(service.url, `/v1/crawl/${id}`)).json.data;
      return view.state === 'running' ? undefined : view;
    }, 30_000);
    expect(done.state).to.equal('completed');
    expect(done.pages).to.include({ failed: 1, fetched: 0 });
    expect(done.failures[0]).to.deep.include({ url: seed, code: 'EXTRACTION_FAILED' });
    expect(done.failures[0].reason).to.match(/^gave up after 3 attempts/);
  });

  it('deletes crawls finished longer ago than the retention, with their pages', async () => {
    // Inserted finished, so that no driver ever takes them.
    const finishedCrawl = async (ago: number) => {
      const id = `crawl_${randomUUID()}`;
      const finishedAt = new Date(Date.now() - ago);
      await storage.db.insertInto('crawls').values({
        id, account_id: null, principal_id: 'master', mode: 'live', request_id: `req_${randomUUID()}`, state: 'completed', options: '{}', max_pages: 10,
        lease_owner: null, lease_until: null, stopped_reason: null, failure_code: null, failure_message: null,
        created_at: finishedAt, started_at: finishedAt, finished_at: finishedAt, updated_at: finishedAt,
      }).execute();
      const pages = Array.from({ length: 5 }, (_, i) => {
        const url = `https://retention.example/${i}`;
        return { url, urlHash: sha256Hex(url), host: 'retention.example', depth: 1 };
      });
      await admit(storage.db, id, pages, []);
      return id;
    };
    const old = await finishedCrawl(RETENTION_MS + 60_000);
    const recent = await finishedCrawl(RETENTION_MS - 60_000);
    // Small chunks, so deleting the pages takes several statements.
    while ((await purgeFinishedCrawls(storage.db, new Date(Date.now() - RETENTION_MS), 10, 2)) > 0);
    expect(await findCrawl(storage.db, old)).to.equal(undefined);
    expect(await storage.db.selectFrom('crawl_pages').select('id').where('crawl_id', '=', old).execute()).to.deep.equal([]);
    expect(await findCrawl(storage.db, recent)).to.not.equal(undefined);
    expect(await storage.db.selectFrom('crawl_pages').select('id').where('crawl_id', '=', recent).execute()).to.have.length(5);
  });
});
