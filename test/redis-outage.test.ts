import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { call, startTestService, type TestService } from './helpers/service.js';
import { eventually, until } from './helpers/wait.js';
import { startPrivateRedis, type PrivateServer } from './helpers/private-servers.js';
import { TcpProxy } from './helpers/tcp-proxy.js';
import { startJsonServer, type JsonServer } from './helpers/json-server.js';
import { ARTICLE, html, startPageServer, type PageServer } from './helpers/page-server.js';

describe('Redis outage', function () {
  this.timeout(60_000);
  let redis: PrivateServer;
  let service: TestService;
  let site: PageServer;
  let asked = 0;
  const held: ServerResponse[] = [];

  before(async () => {
    // The first ask of the page is held (the job at work when Redis goes), later ones answered.
    site = await startPageServer({
      '/held-once': (req, res) => {
        if (asked++ === 0) held.push(res);
        else html(ARTICLE)(req, res);
      },
    });
    redis = await startPrivateRedis({ persistent: false });
    service = await startTestService({ REDIS_URL: redis.url, SHUTDOWN_TIMEOUT_MS: '3000' });
  });
  after(async () => {
    for (const res of held) res.destroy();
    await service?.close();
    await redis?.remove();
    await site?.close();
  });

  it('refuses metered requests with 503 SERVICE_UNAVAILABLE while Redis is down, and serves again when it is back', async () => {
    expect((await call(service.url, '/v1/auth/whoami')).status).to.equal(200);

    await redis.kill();
    const started = Date.now();
    const refused = await call(service.url, '/v1/auth/whoami');
    expect(Date.now() - started, 'answered promptly, not after a hang').to.be.below(10_000);
    expect(refused.status).to.equal(503);
    expect(refused.json.error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(refused.json.error.details).to.have.property('status_page', '/v1/health');

    await redis.start();
    await until(async () => (await call(service.url, '/v1/auth/whoami')).status === 200, 20_000);
  });

  it('adds again the job of a waiting request that Redis lost, restarting without its data, and answers it', async () => {
    const answer = call(service.url, '/v1/extract', { body: { url: `${site.url}/held-once`, options: { timeout: 10 } } });
    await eventually(async () => (asked === 1 ? true : undefined), 10_000);
    await redis.kill();
    await redis.start();
    const res = await answer;
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    expect(res.json.data.content).to.include('Piscina thread');
    expect(asked, 'the page read again by the job added again').to.equal(2);
  });

  it('still shuts down within its deadline after the outage', async () => {
    // BullMQ workers may never finish closing once their blocking connection lost Redis; the shutdown must not wait for them.
    const started = Date.now();
    await service.close();
    expect(Date.now() - started).to.be.below(3000 + 2000);
  });
});

/**
 * Redis unreachable while requests wait on their jobs (a TCP relay to a Redis of the test's own,
 * cut: connections reset, new ones refused): every request is answered within its time limit,
 * counted from its arrival, and the queue path works again soon after Redis does.
 */
describe('Redis outage under requests waiting on jobs', function () {
  this.timeout(90_000);
  let redis: PrivateServer;
  let proxy: TcpProxy;
  let service: TestService;
  let engine: JsonServer;
  let site: PageServer;
  let slowAsked = false;

  before(async () => {
    redis = await startPrivateRedis({ persistent: false });
    const relay = await TcpProxy.start(redis.port);
    proxy = relay.proxy;
    // A search for "slow …" waits on the engine for as long as it may; any other is answered at once, with nothing found.
    engine = await startJsonServer((request) => ({ body: { results: [] }, delayMs: request.url.searchParams.get('q')?.startsWith('slow') ? 30_000 : 0 }));
    site = await startPageServer({
      '/slow': (req, res) => {
        slowAsked = true;
        setTimeout(() => html(ARTICLE)(req, res), 2000).unref();
      },
    });
    service = await startTestService({ REDIS_URL: `redis://127.0.0.1:${relay.port}`, SEARXNG_URL: engine.url, SHUTDOWN_TIMEOUT_MS: '3000' });
  });
  after(async () => {
    proxy?.restore();
    await service?.close();
    await proxy?.close();
    await engine?.close();
    await site?.close();
    await redis?.remove();
  });

  /** The request's status, error code and seconds from sending to answer. */
  async function timed(path: string, body: unknown): Promise<{ status: number; code: string | undefined; seconds: number }> {
    const started = Date.now();
    const res = await call(service.url, path, { body });
    return { status: res.status, code: res.json.error?.code, seconds: (Date.now() - started) / 1000 };
  }

  it('answers within each time limit during the outage, and the queue path recovers within seconds', async () => {
    const search = timed('/v1/search', { query: 'slow search in flight', options: { timeout: 3, enable_cache: false } });
    const extract = timed('/v1/extract', { url: `${site.url}/slow`, options: { timeout: 1 } });
    // Both jobs are at work: the search waits on the engine, the extraction on its page.
    await eventually(async () => (slowAsked && engine.requests.some((r) => r.url.searchParams.get('q')?.startsWith('slow')) ? true : undefined), 10_000);
    proxy.cut();
    const cutAt = Date.now();

    const duringSearch = await search;
    expect(duringSearch.seconds, `search limit 3 s: ${JSON.stringify(duringSearch)}`).to.be.below(3 + 1);
    expect([duringSearch.status, duringSearch.code]).to.deep.equal([503, 'SERVICE_UNAVAILABLE']);
    // One that arrives during the outage is refused at once.
    const arriving = await timed('/v1/search', { query: 'arriving during the outage', options: { timeout: 2 } });
    expect(arriving.seconds).to.be.below(2 + 1);
    expect(arriving.status).to.equal(503);
    const duringExtract = await extract;
    expect(duringExtract.seconds, `extract limit 1 + 10 s: ${JSON.stringify(duringExtract)}`).to.be.below(11 + 1);
    expect([duringExtract.status, duringExtract.code]).to.deep.equal([503, 'SERVICE_UNAVAILABLE']);

    // A long outage: BullMQ's own reconnection back-off reaches 20 s after about 18 s of failed tries.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, cutAt + 14_000 - Date.now())));
    proxy.restore();
    const restoredAt = Date.now();
    let answered: { status: number; code: string | undefined; seconds: number } | undefined;
    for (let i = 0; Date.now() - restoredAt < 15_000; i++) {
      const res = await timed('/v1/search', { query: `after the outage ${i}`, options: { timeout: 2, enable_cache: false } });
      expect(res.seconds, JSON.stringify(res)).to.be.below(2 + 1);
      if (res.status === 200 || res.code === 'NO_RESULTS_FOUND') {
        answered = res;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const recovery = (Date.now() - restoredAt) / 1000;
    expect(answered, 'a search is answered again').to.not.equal(undefined);
    expect(recovery, 'seconds from Redis back to searches answered').to.be.below(4);
  });
});
