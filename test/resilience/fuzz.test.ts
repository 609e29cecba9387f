import { expect } from 'chai';
import type { PageServer } from '../helpers/page-server.js';
import { spawnService, type ServiceProcess } from '../helpers/service-process.js';
import { describeFailure, runFuzz, startFuzzSite } from './fuzz-run.js';

/**
 * The fast, deterministic slice of the fuzzing suite (`npm run test:soak` runs 100,000 cases):
 * a few thousand seeded cases over every operation of the OpenAPI document, against the service
 * as `npm start` runs it. No 5xx, no hang, no dropped connection, every error in the envelope
 * with a catalogued code, and the process's heap back near where it started.
 */
const CASES = Number(process.env.FUZZ_CASES ?? 3000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);

describe('resilience: fuzzing every operation', function () {
  this.timeout(600_000);
  let site: PageServer;
  let service: ServiceProcess;

  before(async () => {
    site = await startFuzzSite();
    // The near cache bounded small, so that what stays in the heap after the run is not a cache filling up to its size.
    service = await spawnService({ RATE_LIMIT_PER_MINUTE: '1000000', AUTH_FAILURES_PER_MINUTE: '1000000', CRAWL_MAX_UNFINISHED: '3', CACHE_NEAR_MAX_MB: '1' });
  });
  after(async () => {
    await service?.stop();
    await site?.close();
  });

  it(`answers ${CASES} fuzzed requests (seed ${SEED}) without a 5xx, a hang or a dropped connection, every error catalogued`, async () => {
    // The warm-up sends the very cases measured after it: modules loaded on first use (the browser
    // driver for options.render, the MCP SDK, 20 MB of source and code between them) and the JIT's
    // code are then in the baseline, and the growth measured is what requests leave behind.
    const warm = await runFuzz({ url: service.url, cases: CASES, seed: SEED, concurrency: 8, hangMs: 30_000 }, site);
    const before = await service.memory();
    const report = await runFuzz({ url: service.url, cases: CASES, seed: SEED, concurrency: 8, hangMs: 30_000 }, site);
    const failures = [...warm.failures, ...report.failures];
    console.log(`      ${report.cases} cases in ${report.seconds.toFixed(1)} s (${report.unsent} unsendable), slowest ${report.slowestMs.toFixed(0)} ms; statuses ${JSON.stringify(report.byStatus)}`);
    // One example of each kind of failure: a defect shows up in many cases.
    const kinds = new Map<string, string>();
    for (const f of failures) kinds.set(`${f.kind} ${f.status ?? ''} ${f.case.operation} ${f.case.mutations.map((m) => m.split(':').slice(0, 2).join(':')).join(',')}`, describeFailure(f));
    for (const example of [...kinds.values()].slice(0, 40)) console.log(`      ${example}`);
    expect(failures.map(describeFailure), `${failures.length} failures`).to.deep.equal([]);
    const unreached = Object.entries(report.succeeded).filter(([, n]) => n === 0).map(([op]) => op);
    console.log(`      operations never answered with success: ${unreached.join(', ') || 'none'}`);
    const after = await service.memory();
    console.log(`      live heap ${(before.heapUsed / 2 ** 20).toFixed(0)} → ${(after.heapUsed / 2 ** 20).toFixed(0)} MB, rss ${(before.rss / 2 ** 20).toFixed(0)} → ${(after.rss / 2 ** 20).toFixed(0)} MB`);
    // Back near its baseline: what stays is bounded state (key and near caches, metrics series),
    // not a per-request leak, which 100,000 cases (npm run test:soak) would turn into hundreds of MB.
    expect(after.heapUsed - before.heapUsed, 'live heap growth, bytes').to.be.below(32 * 2 ** 20);
  });
});
