/**
 * POST /v1/validate on the out-of-domain stance set (bench/validate/ood/README.md) through the
 * whole API (HTTP, auth, limits, audit, queue, workers, pool), with API, workers and a 2-thread
 * pool in one process. Not a test: it prints figures and asserts nothing.
 *
 *   npm run bench:validate:ood        or: npm run build && node dist/bench/validate/ood.js
 *
 * Every passage of an item is a source of its own, a page served from 127.0.0.1 (allowed by
 * FETCH_ALLOW_PRIVATE as the tests allow it); run once with default options and once with
 * `confidence_threshold` 0; answers map to the three labels as for SciFact (scifact-claims.ts,
 * answerLabel). The service runs on a database of its own (OOD_BENCH_DATABASE, default
 * sev_bench_ood, dropped and created anew) with an empty index, as a fresh deployment judges
 * claims against the sources it is given. `npm run bench:validate` prints the same report after
 * SciFact's, with a live key, whose index is empty there too.
 * Data: VALIDATE_OOD_DATA (default bench/validate/ood/claims.jsonl).
 */
import { Pool } from 'undici';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { startService } from '../../src/service.js';
import { testEnv, TEST_KEY } from '../../test/helpers/service.js';
import { createDatabase } from '../../test/helpers/database.js';
import { unlimitedPlan } from '../unlimited-plan.js';
import { runOodBench } from './ood-claims.js';

const DATABASE_NAME = process.env.OOD_BENCH_DATABASE ?? 'sev_bench_ood';
const SERVER = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const CONCURRENCY = 4;

const plan = unlimitedPlan();
const databaseUrl = await createDatabase(SERVER, DATABASE_NAME);
const config = loadConfig(testEnv({ DATABASE_URL: databaseUrl, ...plan.env, POOL_SIZE: '2', WORKER_CONCURRENCY: '8', KEY_CACHE_TTL_S: '3600' }));
const service = await startService(config, 'all', createLogger('silent', 'all'));
const client = new Pool(service.url, { connections: CONCURRENCY + 2 });

async function post(url: string, body: unknown, key: string): Promise<any> {
  const response = await client.request({ method: 'POST', path: url, body: JSON.stringify(body), headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
  const json = (await response.body.json()) as any;
  if (response.statusCode !== 200 && response.statusCode !== 422) throw new Error(`POST ${url}: ${response.statusCode} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

try {
  const key: string = (await post('/v1/auth/keys', { name: 'bench-validate-ood', mode: 'live' }, TEST_KEY)).data.key;
  await runOodBench(post, key, CONCURRENCY);
} finally {
  await client.close();
  await service.close();
  plan.remove();
}
