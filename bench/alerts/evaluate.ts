/**
 * How long one evaluation of every alert takes: 1,000 definitions (by default) made through the
 * API over 100 accounts, every metric and scope kind among them, over live figures made by real
 * requests; then the evaluator's interval is run back to back and timed, wall clock and this
 * process's CPU. Not a test: it prints the figures.
 *
 *   npm run bench:alerts
 *   BENCH_ALERTS=5000 BENCH_TICKS=30 npm run bench:alerts
 *
 * The first interval changes state for every alert whose condition holds (they fire at once:
 * no duration), so it writes their history and queues their deliveries; the following ones find
 * nothing new, as most intervals do. No worker runs: the deliveries stay queued, which is what an
 * evaluation costs (sending them is the notify workers' work).
 */
import os from 'node:os';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { startService } from '../../src/service.js';
import { openStorage } from '../../src/storage/connection.js';
import { loggedOutages, openRedis, redisOptions } from '../../src/redis/connection.js';
import { createQueues } from '../../src/queue/queues.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { systemClock } from '../../src/clock.js';
import { KeyService } from '../../src/auth/key-service.js';
import { QuotaReader } from '../../src/usage/quota-month.js';
import { AlertEvaluator } from '../../src/alerts/alert-evaluator.js';
import { NotificationDispatcher } from '../../src/notify/dispatcher.js';
import { createDatabase, dropDatabase } from '../../test/helpers/database.js';
import { testEnv, TEST_KEY } from '../../test/helpers/service.js';
import { percentile } from '../percentile.js';

const alertCount = Number(process.env.BENCH_ALERTS ?? 1000);
const ticks = Number(process.env.BENCH_TICKS ?? 20);
const accounts = 100;
const server = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const databaseName = `sev_bench_alerts_${Date.now().toString(36)}`;
const databaseUrl = await createDatabase(server, databaseName);
const env = testEnv({ DATABASE_URL: databaseUrl, ALERT_EVAL_INTERVAL_MS: '3600000' });
const config = loadConfig(env);
const logger = createLogger('silent', 'api');
// The API alone: nothing else evaluates or delivers while the evaluator is timed.
const service = await startService(config, 'api', logger);

async function api(path: string, body?: unknown, key = TEST_KEY): Promise<any> {
  const response = await fetch(`${service.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await response.json() as { success: boolean; data: any; error?: unknown };
  if (!json.success) throw new Error(`${path}: ${JSON.stringify(json.error)}`);
  return json.data;
}

// Conditions over every kind of figure and scope; about half hold on the traffic below.
const CONDITIONS = [
  ['error_rate > 0.2', {}], ['error_rate > 0.9', { endpoint: '/v1/search' }], ['success_rate < 0.5', {}],
  ['avg_response_time > 2', {}], ['p95_response_time > 1ms', {}], ['p99_response_time > 5s', { endpoint: '/v1/auth/whoami' }],
  ['requests_per_minute > 1', {}], ['errors_per_minute > 100', {}], ['usage_percentage > 0.001', {}], ['queue_depth > 1000', {}],
] as const;

const started = performance.now();
const keys: string[] = [];
for (let a = 0; a < accounts; a++) {
  const account = await api('/v1/accounts', { name: `bench ${a}`, plan: 'pro' });
  keys.push((await api('/v1/auth/keys', { name: 'bench', account_id: account.id })).key);
}
for (let i = 0; i < alertCount; i++) {
  const [condition, scope] = CONDITIONS[i % CONDITIONS.length]!;
  await api('/v1/alerts', { name: `bench ${i}`, condition, scope, channels: ['webhook'], webhook: { url: 'http://127.0.0.1:9/hook' } }, keys[i % accounts]);
}
// Traffic of every account: successes and failures, so rates, times and quotas have data.
for (const [a, key] of keys.entries()) {
  for (let i = 0; i < 6; i++) await fetch(`${service.url}/v1/auth/whoami`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.arrayBuffer());
  for (let i = 0; i < a % 4; i++) await fetch(`${service.url}/v1/search`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"query":"q","max_results":99}' }).then((r) => r.arrayBuffer());
}
// The live counts reach Redis within a second.
await new Promise((resolve) => setTimeout(resolve, 1500));
console.log(`${alertCount} alerts over ${accounts} accounts made through the API, and their traffic, in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const storage = openStorage(config.databaseUrl, config.databasePoolSize);
const redis = openRedis(config.redisUrl, loggedOutages(logger, 'bench'));
const queues = createQueues(redisOptions(config.redisUrl), config.queuePrefix);
const metrics = createMetrics('worker');
const quotas = new QuotaReader(new KeyService(storage.db, redis, config.queuePrefix, systemClock, config.plans), redis, storage.db, config.queuePrefix, systemClock);
const evaluator = new AlertEvaluator({
  db: storage.db, redis, prefix: config.queuePrefix, queues, clock: systemClock, logger, metrics,
  dispatcher: new NotificationDispatcher({ db: storage.db, queue: queues.notify, logger, config }),
  quota: (accountId, mode) => quotas.month(accountId, mode), intervalMs: config.alertIntervalMs,
});

const wall: number[] = [];
const cpu: number[] = [];
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
let first: { wall: number; cpu: number; transitions: number; deliveries: number } | undefined;
for (let tick = 1; tick <= ticks + 1; tick++) {
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  const outcome = await evaluator.runTick(tick);
  const elapsed = performance.now() - t0;
  const used = process.cpuUsage(cpuBefore);
  const cpuMs = (used.user + used.system) / 1000;
  if (!outcome) throw new Error(`interval ${tick} was not evaluated`);
  if (tick === 1) first = { wall: elapsed, cpu: cpuMs, transitions: outcome.transitions, deliveries: outcome.deliveries.length };
  else {
    wall.push(elapsed);
    cpu.push(cpuMs);
  }
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
console.log(`node ${process.version}, ${os.availableParallelism()} CPUs, load ${os.loadavg()[0]!.toFixed(2)}; MariaDB and Redis on the same cores`);
console.log(`first interval (${first!.transitions} alerts change state, ${first!.deliveries} deliveries queued): ${ms(first!.wall)} wall, ${ms(first!.cpu)} CPU of this process`);
console.log(`next ${ticks} intervals (no change): wall p50 ${ms(percentile(sorted(wall), 50))}, p95 ${ms(percentile(sorted(wall), 95))}, max ${ms(Math.max(...wall))}; CPU of this process p50 ${ms(percentile(sorted(cpu), 50))}, p95 ${ms(percentile(sorted(cpu), 95))}`);

await Promise.all(Object.values(queues).map((q) => q.close()));
redis.disconnect();
await storage.close();
await service.close();
await dropDatabase(server, databaseName);
