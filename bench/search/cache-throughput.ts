/**
 * Cached searches through the whole API against a bare Koa JSON handler, in one process and run:
 * the target is that the API answers at least 40 % of the bare handler's requests per second.
 * Not a test: nothing is asserted.
 *
 *   npm run bench:cache
 *   BENCH_CONCURRENCY=16 BENCH_SECONDS=4 BENCH_ROUNDS=3 BENCH_WARMUP_SECONDS=2 BENCH_CONTENT_BYTES=5000 BENCH_LOG_LEVEL=silent npm run bench:cache
 *
 * Scenarios, over the same undici Pool settings (one keep-alive connection per concurrent client):
 *  - bare:   a Koa app with one middleware that sets a JSON body, the same size as the cached
 *            answer (Koa serialises the object: what a minimal JSON handler does). It is sent
 *            exactly the request of the scenario it is compared with (method, path, headers,
 *            body; it reads none of them), so the client's work is the same on both sides and
 *            the difference is the service's: one bare twin per method measured.
 *  - search: POST /v1/search with options.enable_cache, after one warming request, when the
 *            service has that route: request id, metrics, access log, body parsing, audit row,
 *            authentication (SHA-256, cached key), per-minute rate limit, permission, daily and
 *            monthly quota (metered), AJV, one Redis script for the cache read, the stored JSON
 *            spliced into the envelope.
 *  - cache query: GET /v1/cache/query of a stored entry: the same path, metered and audited,
 *            without a body to parse (the stand-in while POST /v1/search did not exist).
 *
 *  - capture off: the same search on a second API service of the same deployment (same Redis
 *            prefix, database, key and cached answer) started with AUDIT_CAPTURE=off: the
 *            difference to the search scenario is what handing every request's audit entry to
 *            Redis costs (the target: at most 5 %). API processes only hand entries off; after
 *            the runs a worker process of the same deployment writes the backlog to MySQL, timed:
 *            the entries per second one writer keeps up with, and its CPU per entry.
 *
 * Limits stay out of the way without being switched off: the key's account is on a plan of
 * 10 000 000 requests a minute and no daily or monthly limit (temporary PLANS_FILE), so every
 * check still runs. The API role runs alone (workers and the pool would only compete for the two
 * cores); logs are silent, as in bench/auth.ts. Client, bare app and service share this process;
 * scenarios run in interleaved rounds so drift (JIT, GC, the audit table growing) spreads over all.
 */
import os from 'node:os';
import Koa from 'koa';
import { Pool } from 'undici';
import { Redis } from 'ioredis';
import { auditStreamKey } from '../../src/monitor/audit-stream.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { startService } from '../../src/service.js';
import { removeKeys } from '../../test/helpers/redis-keys.js';
import { testEnv, TEST_KEY } from '../../test/helpers/service.js';
import { closedLoop } from '../closed-loop.js';
import { unlimitedPlan } from '../unlimited-plan.js';
import { CACHED_DOCUMENTS, CACHED_QUERY } from './cached-corpus.js';
import { percentile } from '../percentile.js';

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const seconds = Number(process.env.BENCH_SECONDS ?? 4); // per scenario and round
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2); // per scenario
// About a ten-result search answer with snippets.
const contentBytes = Number(process.env.BENCH_CONTENT_BYTES ?? 5000);

const loadBefore = os.loadavg()[0]!;
const plan = unlimitedPlan();
const config = loadConfig(testEnv({
  ...plan.env,
  KEY_CACHE_TTL_S: '3600',
  // Longer than any run, so the warmed answer never expires under it.
  SEARCH_CACHE_TTL_S: '86400',
}));
// Silent by default, as in bench/auth.ts; BENCH_LOG_LEVEL=info adds the access log's cost (to stdout).
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'silent';
const service = await startService(config, 'api', createLogger(logLevel, 'api'));
const servicePool = new Pool(service.url, { connections: concurrency });
const uncaptured = await startService(loadConfig({ ...testEnv({ ...plan.env, KEY_CACHE_TTL_S: '3600', SEARCH_CACHE_TTL_S: '86400', AUDIT_CAPTURE: 'off' }), QUEUE_PREFIX: config.queuePrefix }),
  'api', createLogger(logLevel, 'api'));
const uncapturedPool = new Pool(uncaptured.url, { connections: concurrency });

interface Answer { status: number; text: string }

async function request(pool: Pool, method: string, url: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const response = await pool.request({ method: method as 'GET', path: url, headers, ...(body !== undefined ? { body } : {}) });
  return { status: response.statusCode, text: await response.body.text() };
}

async function setup(method: string, url: string, body: unknown, key = TEST_KEY): Promise<any> {
  const answer = await request(servicePool, method, url, { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, JSON.stringify(body));
  if (answer.status !== 200) throw new Error(`${method} ${url}: ${answer.status} ${answer.text}`);
  return JSON.parse(answer.text).data;
}

// A real account on the bench plan and a real standard key on it, made through the API.
const account = await setup('POST', '/v1/accounts', { name: 'bench-cache', plan: 'bench' });
const key = await setup('POST', '/v1/auth/keys', { name: 'bench-cache', account_id: account.id });
const secret: string = key.key;
const auth = { authorization: `Bearer ${secret}` };

/** Search-like content of about `bytes` characters: results with titles, URLs and snippets. */
function content(bytes: number): unknown {
  const results = [];
  for (let i = 0; JSON.stringify(results).length < bytes - 300; i++) {
    results.push({
      title: `Speed of light, part ${i}`,
      url: `https://physics.example.org/light/${i}`,
      snippet: 'The speed of light in vacuum is exactly 299,792,458 metres per second, a defined constant since 1983. '.repeat(2).trim(),
      score: 1 / (i + 1),
    });
  }
  return { query: 'speed of light', summary: 'About 299,792 km/s [1].', results };
}

await setup('POST', '/v1/cache/store', { query: CACHED_QUERY, content: content(contentBytes), ttl: 86_400 }, secret);

interface Scenario {
  name: string;
  pool: Pool;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  latencies: number[];
  seconds: number;
  /** CPU of this whole process (client, bare app and service) while the scenario ran. */
  cpuMicros: number;
  bytes: number;
  /** The bare twin a service scenario is compared with. */
  bare?: Scenario;
}

const scenario = (name: string, pool: Pool, method: string, url: string, headers: Record<string, string>, body?: string): Scenario =>
  ({ name, pool, method, path: url, headers, ...(body !== undefined ? { body } : {}), latencies: [], seconds: 0, cpuMicros: 0, bytes: 0 });

const cacheQuery = scenario('GET /v1/cache/query (hit)', servicePool, 'GET', `/v1/cache/query?q=${encodeURIComponent(CACHED_QUERY)}`, auth);

// POST /v1/search once it exists: a request without a key is 401 on a route, 404 off one.
const searchBody = JSON.stringify({ query: CACHED_QUERY, options: { enable_cache: true } });
const searchHeaders = { ...auth, 'content-type': 'application/json' };
const probe = await request(servicePool, 'POST', '/v1/search', { 'content-type': 'application/json' }, searchBody);
let search: Scenario | undefined;
if (probe.status !== 404) {
  // Indexing and the first (uncached) search run in workers: a worker process of its own for the
  // set-up only, closed before the runs so it takes no CPU from them.
  const workers = await startService(config, 'worker', createLogger(logLevel, 'worker'));
  await setup('POST', '/v1/index/documents', { documents: CACHED_DOCUMENTS }, secret);
  // The warming request stores the answer; every later one is served from the cache.
  const warm = await request(servicePool, 'POST', '/v1/search', searchHeaders, searchBody);
  await workers.close();
  if (warm.status === 200) search = scenario('POST /v1/search (cache hit)', servicePool, 'POST', '/v1/search', searchHeaders, searchBody);
  else console.error(`POST /v1/search could not be warmed (${warm.status} ${warm.text.slice(0, 300)}): measuring GET /v1/cache/query only`);
}
const main = search ?? cacheQuery;

// The bare handler answers exactly the cached answer's bytes, as an object Koa serialises.
const reference = await request(servicePool, main.method, main.path, main.headers, main.body);
if (reference.status !== 200) throw new Error(`${main.name}: ${reference.status} ${reference.text}`);
if (search && !reference.text.includes('"cache":{"hit":true')) throw new Error(`${main.name} was not answered from the cache: ${reference.text.slice(-200)}`);
const referenceBody: unknown = JSON.parse(reference.text);
const bareApp = new Koa();
bareApp.use(async (ctx) => {
  ctx.body = referenceBody;
});
const bareServer = bareApp.listen(0, '127.0.0.1');
await new Promise((resolve) => bareServer.once('listening', resolve));
const { port } = bareServer.address() as { port: number };
const barePool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency });
const measured = [main, ...(search ? [cacheQuery] : [])];
for (const s of measured) s.bare = scenario(`bare Koa JSON handler (same ${s.method})`, barePool, s.method, s.path, s.headers, s.body);
const withoutCapture = scenario(`${main.name}, capture off`, uncapturedPool, main.method, main.path, main.headers, main.body);
withoutCapture.bare = main.bare!;

const scenarios = [...measured.flatMap((s) => [s.bare!, s]), withoutCapture];
/**
 * Capture's cost is a few per cent, less than this machine's drift between runs a minute apart:
 * capture on and off run back to back, their order flipped every round (on-off, off-on) so that
 * drift falls on both alike, and the cost is the median of the rounds' ratios.
 */
const roundOrder = (round: number): Scenario[] => {
  const rest = scenarios.filter((s) => s !== main && s !== withoutCapture);
  return round % 2 === 0 ? [main, withoutCapture, ...rest] : [...rest, withoutCapture, main];
};
const captureRatios: number[] = [];

async function one(s: Scenario): Promise<number> {
  const started = performance.now();
  const { statusCode, body } = await s.pool.request({ method: s.method as 'GET', path: s.path, headers: s.headers, ...(s.body !== undefined ? { body: s.body } : {}) });
  const text = await body.text();
  // Anything but a 200 means the scenario measures something else (a 429, a miss).
  if (statusCode !== 200) throw new Error(`${s.name}: status ${statusCode}: ${text.slice(0, 300)}`);
  s.bytes = Buffer.byteLength(text);
  return performance.now() - started;
}

/** Runs scenario `s` for `forSeconds`, recording it unless this is a warm-up. */
function run(s: Scenario, forSeconds: number, record: boolean): Promise<void> {
  return closedLoop(concurrency, forSeconds, () => one(s), record ? s : undefined);
}

for (const s of scenarios) await run(s, warmupSeconds, false);
for (let round = 0; round < rounds; round++) {
  const rate: Map<Scenario, number> = new Map();
  for (const s of roundOrder(round)) {
    const [count, elapsed] = [s.latencies.length, s.seconds];
    await run(s, seconds, true);
    rate.set(s, (s.latencies.length - count) / (s.seconds - elapsed));
  }
  captureRatios.push(rate.get(main)! / rate.get(withoutCapture)!);
}

const rps = (s: Scenario): number => s.latencies.length / s.seconds;
for (const s of scenarios) s.latencies.sort((a, b) => a - b);
const pct = (s: Scenario, p: number): number => percentile(s.latencies, p);

console.log(`node ${process.version}, ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), API role only, bare app and client in the same process`);
console.log(`config: concurrency ${concurrency}, ${rounds} rounds x ${seconds} s per scenario, warm-up ${warmupSeconds} s per scenario, keep-alive undici Pool, cached content ~${contentBytes} B`);
console.log(`1-minute load average: ${loadBefore.toFixed(2)} before, ${os.loadavg()[0]!.toFixed(2)} after (other processes share the cores)`);
console.log('');
// CPU per request is steadier than req/s on a machine whose cores other processes share.
const cpuPerRequest = (s: Scenario): number => s.cpuMicros / s.latencies.length;
const columns = ['scenario', 'body B', 'requests', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'CPU µs/req', 'of bare'];
const rows = scenarios.map((s) => [
  s.name, String(s.bytes), String(s.latencies.length), rps(s).toFixed(0),
  pct(s, 50).toFixed(2), pct(s, 95).toFixed(2), pct(s, 99).toFixed(2), cpuPerRequest(s).toFixed(0), s.bare ? `${((rps(s) / rps(s.bare)) * 100).toFixed(1)} %` : '',
]);
const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
console.log(line(columns));
for (const row of rows) console.log(line(row));
console.log('');
const bare = main.bare!;
console.log(`${main.name}: ${((rps(main) / rps(bare)) * 100).toFixed(1)} % of the bare handler's requests per second (target: at least 40 %); `
  + `by CPU per request in this process, ${((cpuPerRequest(bare) / cpuPerRequest(main)) * 100).toFixed(1)} %`);
const costs = captureRatios.map((r) => (1 - r) * 100);
const sortedCosts = [...costs].sort((a, b) => a - b);
const medianCost = (sortedCosts[Math.floor((rounds - 1) / 2)]! + sortedCosts[Math.ceil((rounds - 1) / 2)]!) / 2;
console.log(`audit capture costs ${medianCost.toFixed(1)} % of ${main.name}'s requests per second, `
  + `median of ${rounds} paired rounds (each: ${costs.map((c) => c.toFixed(1)).join(', ')} %; over all rounds ${rps(main).toFixed(0)} with, `
  + `${rps(withoutCapture).toFixed(0)} without; target: at most 5 %); `
  + `CPU per request ${cpuPerRequest(main).toFixed(0)} µs with, ${cpuPerRequest(withoutCapture).toFixed(0)} µs without`);

// What the runs captured, written by a worker as a deployment would: how fast one writer drains it.
const streamKey = auditStreamKey(config.queuePrefix);
const redis = new Redis(config.redisUrl);
const written = async (): Promise<number> => {
  const metrics = await (await fetch(`${writer.url}/metrics`)).text();
  return Number(/^sev_audit_entries_total\{outcome="written"[^}]*\} (\d+)/m.exec(metrics)?.[1] ?? 0);
};
const records = await redis.xlen(streamKey);
const drainStarted = performance.now();
const drainCpu = process.cpuUsage();
const writer = await startService(config, 'worker', createLogger(logLevel, 'worker'));
while ((await redis.xlen(streamKey)) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
const drainSeconds = (performance.now() - drainStarted) / 1000;
const drainMicros = process.cpuUsage(drainCpu);
const entries = await written();
console.log(`the worker wrote ${entries} captured entries (${records} stream records) to MySQL in ${drainSeconds.toFixed(1)} s: `
  + `${(entries / drainSeconds).toFixed(0)} entries/s, ${((drainMicros.user + drainMicros.system) / entries).toFixed(1)} µs of this process' CPU per entry (MySQL's own CPU not included)`);
await writer.close();
redis.disconnect();

// The bench key is revoked so no live key is left behind in the database.
await setup('POST', `/v1/auth/keys/${key.id}/revoke`, {});
await Promise.all([servicePool.close(), barePool.close(), uncapturedPool.close()]);
bareServer.close();
await Promise.all([service.close(), uncaptured.close()]);
// Both services share one prefix.
await removeKeys(config.redisUrl, config.queuePrefix);
plan.remove();
