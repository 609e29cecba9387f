/**
 * SciFact through the front door: every abstract sent to POST /v1/index/documents in batches of
 * 50 (answered inline) by a few concurrent clients, with API, workers and a 2-thread pool in one
 * process. Prints documents and passages per second. Not a test: nothing is asserted. The
 * documents go into the sandbox (a test-mode key) under https://scifact.bench/ and are deleted
 * at the start and the end.
 *
 *   npm run build && node dist/bench/index/ingest-http.js [concurrency=4]
 */
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { startService } from '../../src/service.js';
import { call, testEnv } from '../../test/helpers/service.js';
import { loadCorpus } from './scifact.js';

const concurrency = Number(process.argv[2] ?? 4);
const BATCH = 50;
const corpus = loadCorpus();
const config = loadConfig(testEnv({ POOL_SIZE: '2', WORKER_CONCURRENCY: String(concurrency), RATE_LIMIT_PER_MINUTE: '1000000' }));
const service = await startService(config, 'all', createLogger('silent', 'all'));
const key = (await call(service.url, '/v1/auth/keys', { body: { name: 'bench-ingest', mode: 'test' } })).json.data.key as string;
const cleanUp = () => call(service.url, '/v1/index/documents', { method: 'DELETE', body: { domain: 'scifact.bench' }, key });
await cleanUp();

const batches: Array<Array<Record<string, string>>> = [];
for (let start = 0; start < corpus.length; start += BATCH) {
  batches.push(corpus.slice(start, start + BATCH).map((doc) => ({
    url: `https://scifact.bench/${doc.id}`, title: doc.title || doc.id, content: doc.sentences.join(' '), language: 'en',
  })));
}

let documents = 0;
let passages = 0;
let rejected = 0;
const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, async () => {
  for (let batch = batches.shift(); batch !== undefined; batch = batches.shift()) {
    const res = await call(service.url, '/v1/index/documents', { body: { documents: batch }, key });
    if (res.status !== 200) throw new Error(`status ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
    const data = res.json.data as { results: Array<{ passages: number }>; counts: { rejected: number } };
    documents += data.results.length;
    passages += data.results.reduce((sum, r) => sum + r.passages, 0);
    rejected += data.counts.rejected;
  }
}));
const seconds = (performance.now() - started) / 1000;

console.log(`SciFact through POST /v1/index/documents: ${corpus.length} documents in batches of ${BATCH}, ${concurrency} clients, pool 2 threads, node ${process.version}`);
console.log(`indexed ${documents} documents (${rejected} rejected), ${passages} passages in ${seconds.toFixed(1)} s`);
console.log(`throughput: ${(documents / seconds).toFixed(0)} documents/s, ${(passages / seconds).toFixed(0)} passages/s`);
await cleanUp();
await service.close();
