import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { html, startPageServer, type PageServer } from '../helpers/page-server.js';
import { spawnService, type ServiceProcess } from '../helpers/service-process.js';
import { TEST_KEY } from '../helpers/service.js';
import { describeOutage, expectOutageHeld, reconcile, runOutage, usageCounts } from './fault-checks.js';
import { FaultLoad } from './fault-load.js';
import { faultAccount, PAGES, startFaultWorld, type FaultWorld } from './fault-world.js';

/**
 * The long part of the fault suite (`npm run test:soak`; the fast part is faults.test.ts): the
 * service as a scaled-out deployment (an API process and two workers), longer outages of each
 * dependency, stopped and killed, under twice the clients; workers killed one after another
 * while a stream of extractions runs; an API process killed three times over.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('resilience: faults (soak)', function () {
  this.timeout(0);
  let world: FaultWorld;

  before(async () => {
    world = await startFaultWorld();
  });
  after(async () => {
    await world?.close();
  });

  describe('Redis and MySQL away for 20 s, stopped and killed, under a scaled-out deployment', () => {
    let processes: ServiceProcess[] = [];

    before(async () => {
      const env = { ...world.env, QUEUE_PREFIX: `faults-${randomUUID()}` };
      processes = await Promise.all([spawnService(env, 'api'), spawnService(env, 'worker'), spawnService(env, 'worker')]);
    });
    after(async () => {
      await Promise.all(processes.map((p) => p.stop()));
    });

    for (const dependency of ['Redis', 'MySQL'] as const) {
      for (const how of ['stop', 'kill'] as const) {
        // 20 s: past the 18 s after which BullMQ's own reconnection back-off reached 20 s between tries.
        it(`${dependency} ${how === 'stop' ? 'stopped (SIGTERM)' : 'killed (SIGKILL)'} for 20 s: 503 within each time limit, whole again within 10 s, nothing lost`, async () => {
          const api = processes[0]!;
          const account = await faultAccount(api);
          const run = await runOutage(world, api.url, account, { dependency, how, clients: 16, leadMs: 5000, outageMs: 20_000, afterMs: 15_000 });
          for (const line of describeOutage(`${dependency} ${how}, 20 s`, run)) console.log(`      ${line}`);
          expectOutageHeld(run);
        });
      }
    }
  });

  /**
   * Workers killed while they work, not while they wait: a job may be cut at any point, its page
   * read, cleaned or stored. None may be lost (every request answered with its page); a page is
   * read again only when the worker that read it was killed before the job's end, by the worker
   * that took the job over.
   */
  describe('workers killed with SIGKILL one after another while 4,000 extractions run', () => {
    const JOBS = 4000;
    const KILLS = 6;
    let api: ServiceProcess | undefined;
    const workers = new Map<string, ServiceProcess>();
    let site: PageServer;
    let env: Record<string, string>;
    /** Which worker (by User-Agent) asked for each page, and when. */
    const asks = new Map<string, Array<{ by: string; at: number }>>();

    before(async () => {
      const page = (req: IncomingMessage, res: ServerResponse) => {
        const list = asks.get(req.url!) ?? [];
        list.push({ by: String(req.headers['user-agent']), at: Date.now() });
        asks.set(req.url!, list);
        // A page takes a little while, so that each worker holds several jobs at any moment.
        setTimeout(() => html(`<html><head><title>${req.url}</title></head><body><article><h1>Job page</h1><p>The page of job ${req.url!.split('/').pop()}, `
          + 'whichever worker read it. It has a paragraph long enough to be the main content of the page, which the cleaning keeps.</p></article></body></html>')(req, res), 100);
      };
      site = await startPageServer(Object.fromEntries(Array.from({ length: JOBS }, (_, i) => [`/job/${i}`, page])));
      env = { ...world.env, QUEUE_PREFIX: `faults-${randomUUID()}`, WORKER_CONCURRENCY: '16' };
      api = await spawnService(env, 'api');
      for (const name of ['worker-0', 'worker-1', 'worker-2']) workers.set(name, await spawnService({ ...env, FETCH_USER_AGENT: name }, 'worker'));
    });
    after(async () => {
      await Promise.all([...workers.values()].map((w) => w.stop()));
      await api?.stop();
      await site?.close();
    });

    it(`loses none across ${KILLS} kills; stalled jobs run again within 10 s of each`, async () => {
      let next = 0;
      const results: Array<{ i: number; status: number | null; content?: string; failure?: string }> = [];
      const client = async () => {
        for (let i = next++; i < JOBS; i = next++) {
          const res = await fetch(`${api!.url}/v1/extract`, {
            method: 'POST', signal: AbortSignal.timeout(120_000),
            headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ url: `${site.url}/job/${i}`, options: { timeout: 30 } }),
          }).catch((error: Error) => error);
          if (res instanceof Error) results.push({ i, status: null, failure: String(res.cause ?? res) });
          else results.push({ i, status: res.status, content: ((await res.json()) as any).data?.content });
        }
      };
      const clients = Array.from({ length: 48 }, client);
      const kills: Array<{ name: string; at: number }> = [];
      for (let k = 0; k < KILLS && next < JOBS; k++) {
        await sleep(8000);
        const name = [...workers.keys()][0]!;
        await workers.get(name)!.kill();
        kills.push({ name, at: Date.now() });
        workers.delete(name);
        workers.set(`worker-${3 + k}`, await spawnService({ ...env, FETCH_USER_AGENT: `worker-${3 + k}` }, 'worker'));
      }
      await Promise.all(clients);

      // A stalled job: a page the killed worker asked for and had not finished, asked for again by another.
      const resumed: number[] = [];
      let readTwice = 0;
      for (const [, list] of asks) {
        if (list.length > 1) readTwice++;
        for (const kill of kills) {
          const cut = list.find((a) => a.by === kill.name && a.at <= kill.at);
          const again = cut && list.find((a) => a.by !== kill.name && a.at > kill.at);
          if (again) resumed.push(again.at - kill.at);
        }
      }
      resumed.sort((a, b) => a - b);
      console.log(`      ${JOBS} extractions, ${kills.length} workers killed; ${resumed.length} stalled jobs run again ${(resumed[0]! / 1000).toFixed(1)} to `
        + `${(resumed.at(-1)! / 1000).toFixed(1)} s after their worker's kill; ${readTwice} pages read twice`);
      const wrong = results.filter((r) => r.status !== 200 || !r.content?.includes(`The page of job ${r.i},`));
      expect(wrong.slice(0, 10).map((r) => JSON.stringify(r)), `${wrong.length} of ${results.length} requests not answered with their page`).to.deep.equal([]);
      expect(results).to.have.length(JOBS);
      expect(resumed.at(-1)!, 'ms from a kill to the last of its stalled jobs running again').to.be.below(10_000);
      // A job runs again only when its worker died before its end: at most the killed workers' slots.
      expect(readTwice).to.be.at.most(kills.length * 16);
    });
  });

  describe('an API process killed with SIGKILL under load, three times', () => {
    let api: ServiceProcess | undefined;
    let worker: ServiceProcess | undefined;
    let env: Record<string, string>;

    before(async () => {
      env = { ...world.env, QUEUE_PREFIX: `faults-${randomUUID()}`, AUDIT_HANDOFF_TIMEOUT_MS: '10000' };
      [api, worker] = await Promise.all([spawnService(env, 'api'), spawnService(env, 'worker')]);
    });
    after(async () => {
      await Promise.all([api?.kill(), worker?.stop()]);
    });

    it('has every request answered in the audit log once, and every count in Redis and MySQL', async () => {
      const account = await faultAccount(api!);
      const before = await usageCounts(world.storage, api!.url, account);
      const load = new FaultLoad(api!.url, account.key, world.site.url, PAGES);
      for (let round = 0; round < 3; round++) {
        load.start(16);
        await sleep(10_000);
        await api!.kill();
        await load.stop();
        api = await spawnService(env, 'api');
        load.retarget(api.url);
      }
      await load.sendOne('cache-query');
      const unanswered = load.outcomes.filter((o) => o.status === null).length;
      const books = await reconcile(load.outcomes, world.storage, api!.url, account, before, 60_000);
      console.log(`      ${books.answered} requests answered, ${unanswered} left unanswered by the kills; ${books.audited} of the answered in the audit log once, `
        + `${books.auditedTwice} twice; ${books.usageTotal} in GET /v1/usage; ${books.counted} counted by their answers, `
        + `the month grew ${books.growth.month} (MySQL ${books.growth.durableMonth}), the key's day ${books.growth.day} (MySQL ${books.growth.durableDay})`);
      expect(books.audited, `answered requests with their audit row, of ${books.answered}`).to.equal(books.answered);
      expect(books.auditedTwice).to.equal(0);
      expect(books.usageTotal).to.be.within(books.answered, books.answered + unanswered);
      expect(books.growth.month).to.be.within(books.counted, books.counted + unanswered);
      expect(books.growth.durableMonth).to.equal(books.growth.month);
      expect(books.growth.durableDay).to.equal(books.growth.day);
    });
  });
});
