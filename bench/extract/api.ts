/**
 * Pages per second through the whole API: POST /v1/extract for every article-benchmark page,
 * served by a local server, with API, workers and a pool using both cores in one process.
 * Prints throughput, latency percentiles and peak RSS. Not a test: nothing is asserted.
 *
 *   npm run build && node dist/bench/extract/api.js [passes=2] [concurrency=8]
 */
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { startService } from '../../src/service.js';
import { html, startPageServer } from '../../test/helpers/page-server.js';
import { removeKeys } from '../../test/helpers/redis-keys.js';
import { testEnv, TEST_KEY } from '../../test/helpers/service.js';
import { loadArticleBenchmark } from './data.js';
import { percentile } from '../percentile.js';

const passes = Number(process.argv[2] ?? 2);
const concurrency = Number(process.argv[3] ?? 8);
const pages = loadArticleBenchmark();
const site = await startPageServer(Object.fromEntries(pages.map((p) => [`/${p.id}`, html(p.html)])));
const config = loadConfig(testEnv({ POOL_SIZE: '2', WORKER_CONCURRENCY: String(concurrency), RATE_LIMIT_PER_MINUTE: '1000000', FETCH_PER_HOST_CONCURRENCY: String(concurrency) }));
const service = await startService(config, 'all', createLogger('silent', 'all'));

async function extract(id: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${service.url}/v1/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${site.url}/${id}`, format: 'markdown' }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${id}: status ${response.status}`);
  return performance.now() - started;
}

const queue = Array.from({ length: passes }, () => pages.map((p) => p.id)).flat();
await Promise.all(pages.slice(0, concurrency).map((p) => extract(p.id))); // warm-up
const latencies: number[] = [];
const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, async () => {
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) latencies.push(await extract(id));
}));
const seconds = (performance.now() - started) / 1000;

latencies.sort((a, b) => a - b);
const pct = (p: number): string => percentile(latencies, p).toFixed(0);
console.log(`POST /v1/extract over ${latencies.length} article-benchmark pages (${passes} passes), concurrency ${concurrency}, pool ${config.poolSize} threads, node ${process.version}`);
console.log(`throughput: ${(latencies.length / seconds).toFixed(1)} pages/s`);
console.log(`latency ms: p50 ${pct(50)}  p95 ${pct(95)}  p99 ${pct(99)}`);
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (API, workers, pool and page server in one process)`);
await service.close();
await site.close();
await removeKeys(config.redisUrl, config.queuePrefix);
