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
import { TEST_KEY } from '../../test/helpers/service.js';
import { startValidateBench } from './bench-service.js';
import { createDatabase } from '../../test/helpers/database.js';
import { runOodBench } from './ood-claims.js';

const DATABASE_NAME = process.env.OOD_BENCH_DATABASE ?? 'sev_bench_ood';
const SERVER = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const CONCURRENCY = 4;

const bench = await startValidateBench(await createDatabase(SERVER, DATABASE_NAME), CONCURRENCY);
const post = bench.post;

try {
  const key: string = (await post('/v1/auth/keys', { name: 'bench-validate-ood', mode: 'live' }, TEST_KEY)).data.key;
  await runOodBench(post, key, CONCURRENCY);
} finally {
  await bench.close();
}
