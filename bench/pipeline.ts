/**
 * Throughput and latency of the whole extract pipeline: POST /v1/extract over HTTP → AJV →
 * BullMQ → worker → undici fetch from a local page server → Piscina cleaning → MySQL insert.
 * Prints requests per second, p50/p95/p99 latency and peak RSS. Not a test: nothing is asserted.
 *
 *   npm run build && node dist/bench/pipeline.js [requests=400] [concurrency=16]
 */
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log/logger.js';
import { startService } from '../src/service.js';
import { ARTICLE, html, startPageServer } from '../test/helpers/page-server.js';
import { removeKeys } from '../test/helpers/redis-keys.js';
import { testEnv, TEST_KEY } from '../test/helpers/service.js';
import { percentile } from './percentile.js';

const total = Number(process.argv[2] ?? 400);
const concurrency = Number(process.argv[3] ?? 16);

const page = ARTICLE.replace('</article>', `${'<p>A paragraph of benchmark text that repeats to give the cleaner real work. '.repeat(40)}</p></article>`);
const site = await startPageServer({ '/article': html(page) });
const config = loadConfig(testEnv({ WORKER_CONCURRENCY: String(concurrency), RATE_LIMIT_PER_MINUTE: '1000000' }));
const service = await startService(config, 'all', createLogger('silent', 'all'));

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

async function one(): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${service.url}/v1/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${site.url}/article`, format: 'markdown' }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return performance.now() - started;
}

// Warm-up: threads started, connections open, JIT warm.
await Promise.all(Array.from({ length: concurrency }, one));

const latencies: number[] = [];
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next++ < total) latencies.push(await one());
  }),
);
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);

latencies.sort((a, b) => a - b);
const pct = (p: number): string => percentile(latencies, p).toFixed(1);
console.log(`extract pipeline: ${total} requests, concurrency ${concurrency}, pool ${config.poolSize} threads`);
console.log(`throughput: ${(total / seconds).toFixed(1)} requests/s`);
console.log(`latency ms: p50 ${pct(50)}  p95 ${pct(95)}  p99 ${pct(99)}`);
console.log(`peak RSS: ${(peakRss / 1024 / 1024).toFixed(0)} MB (API, workers and pool in one process)`);

await service.close();
await site.close();
await removeKeys(config.redisUrl, config.queuePrefix);
