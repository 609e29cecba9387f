import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import { redisOptions } from '../src/redis/connection.js';
import { ARTICLE, html, startPageServer, type PageServer } from './helpers/page-server.js';
import { call, startTestService, type TestService } from './helpers/service.js';
import { databaseUrl } from './helpers/database.js';
import { TcpProxy } from './helpers/tcp-proxy.js';

/**
 * MySQL unreachable under a running service (a TCP relay to the shared MariaDB, cut by the test:
 * connections reset, new ones refused): a dependency outage is 503 SERVICE_UNAVAILABLE, and the
 * job's retries redo the write only, never the fetch.
 */
describe('MySQL outage', function () {
  this.timeout(60_000);
  let proxy: TcpProxy;
  let service: TestService;
  let site: PageServer;
  const fetches = new Map<string, number>();

  before(async () => {
    site = await startPageServer(Object.fromEntries(['/first', '/second'].map((path) => [path, (req, res) => {
      fetches.set(path, (fetches.get(path) ?? 0) + 1);
      html(ARTICLE)(req, res);
    }])));
    const started = await TcpProxy.start(3306);
    proxy = started.proxy;
    const name = new URL(process.env.DATABASE_URL!).pathname.slice(1);
    service = await startTestService({ DATABASE_URL: databaseUrl(`mysql://root@127.0.0.1:${started.port}`, name), SHUTDOWN_TIMEOUT_MS: '3000' });
  });
  after(async () => {
    proxy?.restore();
    await service?.close();
    await proxy?.close();
    await site?.close();
  });

  it('answers an extraction 503 SERVICE_UNAVAILABLE with estimated_recovery, having fetched the page once', async () => {
    proxy.cut();
    try {
      const started = Date.now();
      const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/first`, options: { timeout: 5 } } });
      expect(res.status, JSON.stringify(res.json)).to.equal(503);
      expect(res.json.error.code).to.equal('SERVICE_UNAVAILABLE');
      expect(res.json.error.details.estimated_recovery).to.be.a('string').and.not.equal('');
      expect(res.json.error.details.status_page).to.equal('/v1/health');
      expect(Date.now() - started, 'within the time limit (5 + 10 s)').to.be.below(15_000);
      expect(fetches.get('/first'), 'the retries did not fetch the page again').to.equal(1);

      // A read at the edge that needs MySQL says the same.
      const audit = await call(service.url, '/v1/audit');
      expect(audit.status).to.equal(503);
      expect(audit.json.error.code).to.equal('SERVICE_UNAVAILABLE');
    } finally {
      proxy.restore();
    }
  });

  it('stores what it read once MySQL is back in time for a retry, without fetching again', async () => {
    // The job's first write fails; MySQL returns during the back-off, so the retry's write succeeds.
    const requestId = `req_${randomUUID().replaceAll('-', '')}`;
    const events = new QueueEvents('extract', { connection: redisOptions(service.config.redisUrl), prefix: service.config.queuePrefix });
    try {
      await events.waitUntilReady();
      events.on('delayed', ({ jobId }) => {
        if (jobId === requestId) proxy.restore();
      });
      proxy.cut();
      const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/second` }, headers: { 'x-request-id': requestId } });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(res.json.data.cached).to.equal(false);
      expect(fetches.get('/second'), 'fetched once').to.equal(1);
    } finally {
      proxy.restore();
      await events.close();
    }
    // It was stored: the next request within max_age is answered from the store.
    const again = await call(service.url, '/v1/extract', { body: { url: `${site.url}/second`, options: { max_age: 3600 } } });
    expect(again.json.data.cached).to.equal(true);
    expect(fetches.get('/second')).to.equal(1);
  });
});
