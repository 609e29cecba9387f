/**
 * Search relevance on several collections through the whole API, each beside plain BM25 on the
 * same documents and queries, alone and in one index holding them all. Not a test: it prints
 * figures and asserts nothing.
 *
 *   npm run bench:search:collections                        every collection alone, then all in one index
 *   node dist/bench/search/collections.js --reuse           the databases an earlier run loaded
 *   node dist/bench/search/collections.js --only computing  one configuration: a collection alone, or `mixed`
 *   node dist/bench/search/collections.js --ablate          also the ranking with one feature at a time left out (in process)
 *
 * Collections: SciFact (BENCH_DATA or ../shared/data; its 300 test queries) and every
 * development collection in bench/search/devset/ (see their READMEs). Each configuration goes
 * into a database of its own on the DATABASE_URL server (sev_bench_coll_<name>, emptied first
 * unless --reuse), loaded through POST /v1/index/documents with a sandbox key as
 * https://<collection>.bench/<id>; API, workers and a 2-thread pool in one process.
 *
 * For each collection in each configuration, on the same queries (max_results 10, every other
 * option at its default except enable_cache false, so a run never sees answers of another):
 *  - API: POST /v1/search; in the mixed index also with domain_filter.include = the
 *    collection's host ("filtered"), the way a site search would ask;
 *  - FTS5: plain BM25 (fts5-baseline.ts) over the same documents: all of the configuration's
 *    (filtered: the collection's, with the statistics of all, as the index keeps them);
 *  - index BM25: the index's own passage BM25 with no ranking features (documents in the order
 *    of their best passage, as search takes them from the index);
 * nDCG@10 (graded gains) and Recall@10, the API's paired difference from FTS5 with a 95 %
 * bootstrap interval, and both figures for long (≥ 20 words) and shorter queries.
 * --ablate: the ranking computed in process on the index's candidates (it must equal the
 * API's figure), then with each feature's weight set to 0, with the title and coverage
 * features off together, and without the per-domain cap.
 */
import os from 'node:os';
import { Pool } from 'undici';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import type { Mode } from '../../src/mode.js';
import { MysqlDocumentIndex } from '../../src/index/mysql-document-index.js';
import { createCpuPool, type CpuPool } from '../../src/pool/pool.js';
import {
  CALIBRATION, RANKING_WEIGHTS, candidateFeatures, rankSources, rankSourcesWith, type RankingWeights, type RankSourcesInput,
} from '../../src/ranking/rank-sources.js';
import { indexCandidates } from '../../src/search/index-candidates.js';
import { startService, type RunningService } from '../../src/service.js';
import { openStorage, type Storage } from '../../src/storage/connection.js';
import { createDatabase, databaseUrl } from '../../test/helpers/database.js';
import { removeKeys } from '../../test/helpers/redis-keys.js';
import { testEnv, TEST_KEY } from '../../test/helpers/service.js';
import { ndcgAt, recallAt } from '../index/scifact.js';
import { unlimitedPlan } from '../unlimited-plan.js';
import {
  LONG_QUERY_WORDS, devsetCollections, documentId, documentUrl, scifactCollection, wordCount, type BenchCollection,
} from './collections-data.js';
import { Fts5Bm25 } from './fts5-baseline.js';

const args = process.argv.slice(2);
const REUSE = args.includes('--reuse');
const ABLATE = args.includes('--ablate');
const ONLY = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const SERVER = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const MODE: Mode = 'test';
const BATCH = 50;
const K = 10;
/** As run-search.ts: index documents ranked per search, and the service's default per-domain cap. */
const CANDIDATE_DOCUMENTS = 30;
const MAX_PER_DOMAIN = 3;

const plan = unlimitedPlan();

interface Bench {
  service: RunningService;
  client: Pool;
  key: string;
  storage: Storage;
  pool: CpuPool;
  index: MysqlDocumentIndex;
  /** The service's Redis and key prefix, for removing its keys once it is closed. */
  redis: { url: string; prefix: string };
}

/** Per query, in the collection's query order: the ranked document ids of one system. */
type Rankings = string[][];

async function open(url: string): Promise<Bench> {
  const config = loadConfig(testEnv({ DATABASE_URL: url, ...plan.env, POOL_SIZE: '2', WORKER_CONCURRENCY: '16', KEY_CACHE_TTL_S: '3600' }));
  const service = await startService(config, 'all', createLogger('silent', 'all'));
  const client = new Pool(service.url, { connections: 8 });
  const created = await post({ client, key: TEST_KEY }, '/v1/auth/keys', { name: 'bench-collections', mode: 'test' });
  // The in-process side (index BM25, ablation) reads the same index with a pool of its own.
  const storage = openStorage(url, 4);
  const pool = createCpuPool({ threads: 1, taskTimeoutMs: 120_000 });
  return {
    service, client, key: created.data.key as string, storage, pool, index: new MysqlDocumentIndex(storage.db, pool),
    redis: { url: config.redisUrl, prefix: config.queuePrefix },
  };
}

async function close(bench: Bench): Promise<void> {
  await bench.client.close();
  await bench.service.close();
  await bench.index.close();
  await bench.pool.close();
  await bench.storage.close();
  await removeKeys(bench.redis.url, bench.redis.prefix);
}

async function post(bench: Pick<Bench, 'client' | 'key'>, url: string, body: unknown): Promise<any> {
  const response = await bench.client.request({
    method: 'POST', path: url, body: JSON.stringify(body), headers: { authorization: `Bearer ${bench.key}`, 'content-type': 'application/json' },
  });
  const json = (await response.body.json()) as any;
  if (response.statusCode !== 200 && response.statusCode !== 422) throw new Error(`POST ${url}: ${response.statusCode} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

async function load(bench: Bench, collections: BenchCollection[]): Promise<void> {
  const started = performance.now();
  const batches: unknown[][] = [];
  for (const c of collections) {
    const documents = c.documents.map((d) => ({ url: documentUrl(c, d.id), title: d.title || d.id, content: d.text, language: 'en' }));
    for (let i = 0; i < documents.length; i += BATCH) batches.push(documents.slice(i, i + BATCH));
  }
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      const answer = await post(bench, '/v1/index/documents', { documents: batch });
      if (answer.data?.state !== 'completed') throw new Error(`indexing answered ${JSON.stringify(answer).slice(0, 300)}`);
    }
  }));
  const total = collections.reduce((n, c) => n + c.documents.length, 0);
  console.log(`  loaded through POST /v1/index/documents: ${total} documents in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

async function apiRankings(bench: Bench, c: BenchCollection, filtered: boolean): Promise<Rankings> {
  const out: Rankings = [];
  for (const q of c.queries) {
    const answer = await post(bench, '/v1/search', {
      query: q.text, max_results: K, options: { enable_cache: false }, ...(filtered ? { domain_filter: { include: [c.host] } } : {}),
    });
    out.push(answer.success ? (answer.data.sources as { url: string }[]).map((s) => documentId(c, s.url) ?? `other:${s.url}`) : []);
  }
  return out;
}

/** The ranking stage's input for a query as run-search.ts builds it (index candidates only: no upstream engine). */
async function rankInput(bench: Bench, c: BenchCollection, query: string, filtered: boolean): Promise<RankSourcesInput> {
  const domains = filtered ? { domains: { include: [c.host] } } : {};
  const { weights, candidates } = await indexCandidates(bench.index, MODE, query, { documents: CANDIDATE_DOCUMENTS, ...domains });
  return { query, ...weights, candidates, now: Date.now(), recency: null, country: null, authority: [], maxPerDomain: MAX_PER_DOMAIN, limit: K };
}

function evaluate(c: BenchCollection, rankings: Rankings, only?: (q: { text: string }) => boolean): { ndcg: number; recall: number; n: number; perQuery: number[] } {
  let ndcg = 0;
  let recall = 0;
  let n = 0;
  const perQuery: number[] = [];
  c.queries.forEach((q, i) => {
    const relevant = c.qrels.get(q.id)!;
    const value = ndcgAt(rankings[i]!, relevant, K);
    perQuery.push(value);
    if (only && !only(q)) return;
    ndcg += value;
    recall += recallAt(rankings[i]!, relevant, K);
    n++;
  });
  return { ndcg: n ? ndcg / n : 0, recall: n ? recall / n : 0, n, perQuery };
}

/** Mean of a − b over queries with a 95 % percentile bootstrap interval (seeded, 2,000 resamples). */
function pairedDifference(a: number[], b: number[]): string {
  const d = a.map((x, i) => x - b[i]!);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  let seed = 12345;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const means = Array.from({ length: 2000 }, () => mean(d.map(() => d[Math.floor(random() * d.length)]!))).sort((x, y) => x - y);
  const sign = (x: number) => (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(3);
  const wins = d.filter((x) => x > 1e-9).length;
  const losses = d.filter((x) => x < -1e-9).length;
  return `${sign(mean(d))} [${sign(means[50]!)}, ${sign(means[1949]!)}] (${wins} better, ${losses} worse)`;
}

async function measure(bench: Bench, label: string, c: BenchCollection, fts5: Fts5Bm25, filtered: boolean): Promise<void> {
  const api = await apiRankings(bench, c, filtered);
  const baseline = c.queries.map((q) => fts5.search(q.text, K, filtered ? c.name : undefined).map((key) => documentId(c, key) ?? `other:${key}`));
  const inputs: RankSourcesInput[] = [];
  for (const q of c.queries) inputs.push(await rankInput(bench, c, q.text, filtered));
  const byId = (input: RankSourcesInput, i: number) => documentId(c, input.candidates[i]!.url) ?? `other:${input.candidates[i]!.url}`;
  const indexBm25 = inputs.map((input) => input.candidates.slice(0, K).map((_c, i) => byId(input, i)));

  const a = evaluate(c, api);
  const f = evaluate(c, baseline);
  const x = evaluate(c, indexBm25);
  const isLong = (q: { text: string }) => wordCount(q.text) >= LONG_QUERY_WORDS;
  const split = (r: Rankings, long: boolean) => evaluate(c, r, (q) => isLong(q) === long);
  const longCount = c.queries.filter(isLong).length;
  console.log(`  ${label.padEnd(34)} ${String(c.queries.length).padStart(4)}   ${a.ndcg.toFixed(4)}  ${a.recall.toFixed(4)}   ${f.ndcg.toFixed(4)}  ${f.recall.toFixed(4)}   ${x.ndcg.toFixed(4)}   API − FTS5 ${pairedDifference(a.perQuery, f.perQuery)}`);
  if (longCount > 0 && longCount < c.queries.length) {
    console.log(`  ${''.padEnd(34)}   long (${longCount}): API ${split(api, true).ndcg.toFixed(4)}, FTS5 ${split(baseline, true).ndcg.toFixed(4)}, index BM25 ${split(indexBm25, true).ndcg.toFixed(4)};`
      + ` shorter (${c.queries.length - longCount}): API ${split(api, false).ndcg.toFixed(4)}, FTS5 ${split(baseline, false).ndcg.toFixed(4)}, index BM25 ${split(indexBm25, false).ndcg.toFixed(4)}`);
  }
  if (ABLATE) ablate(c, inputs, byId, a.ndcg);
}

function ablate(c: BenchCollection, inputs: RankSourcesInput[], byId: (input: RankSourcesInput, i: number) => string, apiNdcg: number): void {
  const features = inputs.map((input) => candidateFeatures(input));
  const ranked = (w: RankingWeights, cap = MAX_PER_DOMAIN): Rankings =>
    inputs.map((input, q) => rankSourcesWith({ ...input, maxPerDomain: cap }, w, CALIBRATION, features[q], false).map((r) => byId(input, r.candidate)));
  const text: (keyof RankingWeights)[] = ['further', 'document', 'title', 'coverage', 'proximity'];
  const variants: [string, Rankings][] = [
    ['rankSources() in process', inputs.map((input) => rankSources(input).map((r) => byId(input, r.candidate)))],
    ...text.filter((f) => RANKING_WEIGHTS[f] > 0).map((f): [string, Rankings] => [`without ${f} (${RANKING_WEIGHTS[f]} → 0)`, ranked({ ...RANKING_WEIGHTS, [f]: 0 })]),
    ['best passage only', ranked({ ...RANKING_WEIGHTS, further: 0, document: 0, title: 0, coverage: 0, proximity: 0 })],
    ['whole-document BM25 only', ranked({ ...RANKING_WEIGHTS, best: 0, further: 0, document: 1, title: 0, coverage: 0, proximity: 0 })],
    ['without the per-domain cap', ranked(RANKING_WEIGHTS, 0)],
  ];
  const isLong = (q: { text: string }) => wordCount(q.text) >= LONG_QUERY_WORDS;
  const mixed = c.queries.some(isLong) && !c.queries.every(isLong);
  for (const [label, rankings] of variants) {
    const all = evaluate(c, rankings);
    const parts = mixed ? `   long ${evaluate(c, rankings, isLong).ndcg.toFixed(4)}, shorter ${evaluate(c, rankings, (q) => !isLong(q)).ndcg.toFixed(4)}` : '';
    console.log(`      ablation: ${label.padEnd(30)} nDCG@10 ${all.ndcg.toFixed(4)} (${all.ndcg - apiNdcg >= 0 ? '+' : '−'}${Math.abs(all.ndcg - apiNdcg).toFixed(4)} against the API)${parts}`);
  }
}

async function configuration(name: string, collections: BenchCollection[]): Promise<void> {
  const db = `sev_bench_coll_${name}`;
  const total = collections.reduce((n, c) => n + c.documents.length, 0);
  console.log(`\n${name}: ${collections.map((c) => `${c.name} (${c.documents.length})`).join(' + ')}, ${total} documents, database ${db}`);
  const bench = await open(REUSE ? databaseUrl(SERVER, db) : await createDatabase(SERVER, db));
  try {
    if (!REUSE) await load(bench, collections);
    await post(bench, '/v1/search', { query: 'warm up', options: { enable_cache: false } });
    const fts5 = new Fts5Bm25(collections.flatMap((c) => c.documents.map((d) => ({ key: documentUrl(c, d.id), group: c.name, title: d.title || d.id, text: d.text }))));
    console.log(`  ${'collection'.padEnd(34)} queries  API nDCG@10  R@10  FTS5 nDCG@10  R@10  index BM25 nDCG@10`);
    for (const c of collections) {
      await measure(bench, c.name, c, fts5, false);
      if (collections.length > 1) await measure(bench, `${c.name}, filtered to its host`, c, fts5, true);
    }
    fts5.close();
  } finally {
    await close(bench);
  }
}

console.log(`node ${process.version}, ${os.cpus().length} cores; nDCG@10 and Recall@10, max_results ${K}; FTS5 = SQLite FTS5 bm25(), tokenize='porter unicode61'`);
const collections = [scifactCollection(), ...devsetCollections()];
const configurations: [string, BenchCollection[]][] = [...collections.map((c): [string, BenchCollection[]] => [c.name, [c]]), ['mixed', collections]];
const chosen = configurations.filter(([name]) => !ONLY || name === ONLY);
if (chosen.length === 0) throw new Error(`no configuration named ${ONLY}: ${configurations.map(([name]) => name).join(', ')}`);
for (const [name, members] of chosen) await configuration(name, members);
plan.remove();
