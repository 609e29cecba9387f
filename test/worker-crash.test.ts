import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { ARTICLE, html, startPageServer, type PageServer } from './helpers/page-server.js';
import { call, startTestService, testEnv, type CallResult, type TestService } from './helpers/service.js';
import { spawnService, type ServiceProcess } from './helpers/service-process.js';
import { eventually } from './helpers/wait.js';

const JOBS = 4;

describe('jobs of a worker process killed with SIGKILL', function () {
  this.timeout(90_000);
  // Every job's page at once: the pages share one host.
  const env = { QUEUE_PREFIX: testEnv().QUEUE_PREFIX!, FETCH_PER_HOST_CONCURRENCY: String(JOBS) };
  let api: TestService;
  let survivor: TestService | undefined;
  let doomed: ServiceProcess | undefined;
  let site: PageServer;
  /** When each page was asked for, in order; the first ask of each is held open (the doomed worker's). */
  const asks = new Map<string, number[]>();
  const held: ServerResponse[] = [];

  before(async () => {
    site = await startPageServer(Object.fromEntries(Array.from({ length: JOBS }, (_, i) => [`/page-${i}`, (req, res) => {
      const path = req.url!;
      const times = asks.get(path) ?? [];
      times.push(Date.now());
      asks.set(path, times);
      if (times.length === 1) held.push(res);
      else html(ARTICLE)(req, res);
    }])));
    api = await startTestService({ QUEUE_PREFIX: env.QUEUE_PREFIX }, 'api');
  });
  after(async () => {
    await doomed?.kill();
    for (const res of held) res.destroy();
    await survivor?.close();
    await api?.close();
    await site?.close();
  });

  it('are run by another worker within 10 s of the kill, and their requests answered', async () => {
    const worker = doomed = await spawnService(env, 'worker');

    const answers: Array<Promise<CallResult>> = Array.from({ length: JOBS }, (_, i) =>
      call(api.url, '/v1/extract', { body: { url: `${site.url}/page-${i}`, options: { timeout: 30 } } }));
    // Every job is running on the doomed worker, which waits for its page.
    await eventually(async () => (asks.size === JOBS ? true : undefined), 20_000);
    survivor = await startTestService(env, 'worker');

    await worker.kill();
    const killedAt = Date.now();
    await eventually(async () => ([...asks.values()].every((times) => times.length >= 2) ? true : undefined), 15_000).catch(() => {
      throw new Error(`pages asked for again after the kill: ${[...asks.values()].filter((times) => times.length >= 2).length} of ${JOBS} within 15 s`);
    });
    const resumed = [...asks.values()].map((times) => (times[1]! - killedAt) / 1000);
    expect(Math.max(...resumed), `seconds from the kill to each job running again: ${resumed.join(', ')}`).to.be.below(10);

    for (const res of await Promise.all(answers)) {
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(res.json.data.content).to.include('Piscina thread');
    }
    expect([...asks.values()].map((times) => times.length), 'each page read once more, by the survivor').to.deep.equal(Array(JOBS).fill(2));
  });
});
