/**
 * What authentication and rate limiting add to a request: the same service, process and run
 * serve a public request and authenticated ones over real HTTP, and the difference is printed.
 * Not a test: nothing is asserted.
 *
 *   npm run bench:auth
 *   BENCH_CONCURRENCY=16 BENCH_SECONDS=4 BENCH_ROUNDS=3 BENCH_WARMUP_SECONDS=2 npm run bench:auth
 *
 * The pair compared: two routes whose handlers do the same trivial work without I/O.
 *  - public:  GET /v1/plans without a key: routing, a handler that returns the plan list, and
 *             the X-RateLimit-* headers of the caller's address budget (one Redis round trip:
 *             every response carries rate-limit headers, section 8).
 *  - auth:    GET /v1/auth/whoami with a standard key: routing, then authenticate (SHA-256 and
 *             an in-process cache hit), rate limit (one Redis call), permission, usage
 *             (last_used_at buffered; whoami is not metered, so no quota call), and the audit
 *             row (buffered, inserted in batches every 250 ms after the response), then a
 *             handler that returns what the principal holds.
 * Extra rows: the same key as X-API-Key, and a malformed key (bad checksum: refused with 401
 * before any lookup, the failure still counted per address in Redis and audited). A metered
 * endpoint adds one more Redis call (the quota script), not measured here.
 *
 * Limits stay out of the way: the key's account is on a plan of 10 000 000 requests a minute
 * (temporary PLANS_FILE), address failures are allowed 1 000 000 a minute, and the key cache TTL
 * is an hour so every lookup after the first is a cache hit. Client and service share this process
 * and its cores, as in bench/pipeline.ts; scenarios run in interleaved rounds so drift (JIT, GC,
 * MySQL growing the audit table) spreads over all of them.
 */
import os from 'node:os';
import { Pool } from 'undici';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log/logger.js';
import { startService } from '../src/service.js';
import { removeKeys } from '../test/helpers/redis-keys.js';
import { testEnv, TEST_KEY } from '../test/helpers/service.js';
import { closedLoop } from './closed-loop.js';
import { unlimitedPlan } from './unlimited-plan.js';
import { percentile } from './percentile.js';

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const seconds = Number(process.env.BENCH_SECONDS ?? 4); // per scenario and round
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2); // per scenario

const loadBefore = os.loadavg()[0]!;
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const rssAtStart = process.memoryUsage().rss;

const plan = unlimitedPlan();
const config = loadConfig(testEnv({
  ...plan.env,
  AUTH_FAILURES_PER_MINUTE: '1000000',
  KEY_CACHE_TTL_S: '3600',
}));
// The API role alone: workers and the CPU pool would only compete for the cores.
const service = await startService(config, 'api', createLogger('silent', 'api'));
// One keep-alive connection per concurrent client; undici's request() costs the client less CPU than fetch.
const pool = new Pool(service.url, { connections: concurrency });

async function setup(method: string, url: string, body: unknown): Promise<any> {
  const response = await pool.request({
    method, path: url, body: JSON.stringify(body),
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
  });
  const json = (await response.body.json()) as any;
  if (response.statusCode !== 200) throw new Error(`${method} ${url}: ${response.statusCode} ${JSON.stringify(json)}`);
  return json.data;
}

// A real account on the bench plan and a real standard key on it, made through the API.
const account = await setup('POST', '/v1/accounts', { name: 'bench-auth', plan: 'bench' });
const key = await setup('POST', '/v1/auth/keys', { name: 'bench-auth', account_id: account.id });
const secret: string = key.key;
// Well formed but for its checksum (the last character changed).
const invalid = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');

interface Scenario {
  name: string;
  path: string;
  headers: Record<string, string>;
  status: number;
  latencies: number[];
  seconds: number;
  cpuMicros: number;
}

const scenario = (name: string, url: string, headers: Record<string, string>, status: number): Scenario =>
  ({ name, path: url, headers, status, latencies: [], seconds: 0, cpuMicros: 0 });
const WHOAMI = '/v1/auth/whoami';
const scenarios = [
  scenario('public GET /v1/plans', '/v1/plans', {}, 200),
  scenario('auth Bearer (cached key)', WHOAMI, { authorization: `Bearer ${secret}` }, 200),
  scenario('auth X-API-Key (cached key)', WHOAMI, { 'x-api-key': secret }, 200),
  scenario('invalid key (bad checksum)', WHOAMI, { authorization: `Bearer ${invalid}` }, 401),
];
const [publicRow, bearerRow] = scenarios as [Scenario, Scenario];

async function one(s: Scenario): Promise<number> {
  const started = performance.now();
  const { statusCode, body } = await pool.request({ method: 'GET', path: s.path, headers: s.headers });
  await body.dump();
  // A wrong status means the scenario measures something else (a 429 would be the rate limit).
  if (statusCode !== s.status) throw new Error(`${s.name}: status ${statusCode}, expected ${s.status}`);
  return performance.now() - started;
}

/** Runs scenario `s` for `forSeconds`, recording it unless this is a warm-up. */
function run(s: Scenario, forSeconds: number, record: boolean): Promise<void> {
  return closedLoop(concurrency, forSeconds, () => one(s), record ? s : undefined);
}

// Warm-up: connections open, JIT warm, the key in the cache, every code path taken once.
for (const s of scenarios) await run(s, warmupSeconds, false);
const rssBefore = process.memoryUsage().rss;
for (let round = 0; round < rounds; round++) {
  for (const s of scenarios) await run(s, seconds, true);
}
const rssAfter = process.memoryUsage().rss;

const rps = (s: Scenario): number => s.latencies.length / s.seconds;
for (const s of scenarios) s.latencies.sort((a, b) => a - b);
const pct = (s: Scenario, p: number): number => percentile(s.latencies, p);

console.log(`node ${process.version}, ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), API role only, client in the same process`);
console.log(`config: concurrency ${concurrency}, ${rounds} rounds x ${seconds} s per scenario, warm-up ${warmupSeconds} s per scenario, keep-alive undici Pool`);
console.log(`1-minute load average: ${loadBefore.toFixed(2)} before, ${os.loadavg()[0]!.toFixed(2)} after (other processes share the cores)`);
console.log(`RSS: ${mb(rssAtStart)} at start, ${mb(rssBefore)} after start-up and warm-up, ${mb(rssAfter)} after the runs`);
console.log('');
// CPU of this process (service and client) per request: what Redis and MariaDB do is not in it.
const columns = ['scenario', 'status', 'requests', 'concurrency', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'CPU µs/req'];
const rows = scenarios.map((s) => [
  s.name, String(s.status), String(s.latencies.length), String(concurrency), rps(s).toFixed(0),
  pct(s, 50).toFixed(2), pct(s, 95).toFixed(2), pct(s, 99).toFixed(2), (s.cpuMicros / s.latencies.length).toFixed(0),
]);
const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
console.log(line(columns));
for (const row of rows) console.log(line(row));
console.log('');

// At concurrency > 1 latency includes queueing; 1/throughput is the time each request takes of capacity.
const capacityMs = (1000 / rps(bearerRow) - 1000 / rps(publicRow)).toFixed(3);
const cpu = (s: Scenario): number => s.cpuMicros / s.latencies.length;
console.log(`authentication + rate limit + usage + audit cost: ${(pct(bearerRow, 50) - pct(publicRow, 50)).toFixed(2)} ms per request at p50, `
  + `${((1 - rps(bearerRow) / rps(publicRow)) * 100).toFixed(1)}% of throughput, ${capacityMs} ms of capacity (1000 / req/s), `
  + `${(cpu(bearerRow) - cpu(publicRow)).toFixed(0)} µs more CPU of this process`);

// The bench key is revoked so no live key is left behind in the database.
await setup('POST', `/v1/auth/keys/${key.id}/revoke`, {});
await pool.close();
await service.close();
await removeKeys(config.redisUrl, config.queuePrefix);
plan.remove();
