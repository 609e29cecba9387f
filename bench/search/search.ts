/**
 * POST /v1/search on BEIR SciFact through the whole API (HTTP, auth, limits, audit, queue,
 * workers, pool), with API, workers and a 2-thread pool in one process. Not a test: it prints
 * figures and asserts nothing.
 *
 *   npm run build && node dist/bench/search/search.js            load SciFact through the API, then measure
 *   node dist/bench/search/search.js --reuse                      measure the SciFact index loaded by an earlier run
 *   node dist/bench/search/search.js --reuse --million URL        also latency over a kept million-passage index
 *
 * SciFact goes into its own database on the DATABASE_URL server (SEARCH_BENCH_DATABASE, default
 * sev_bench_search; emptied first unless --reuse), in the sandbox of a test-mode key, as
 * https://scifact.bench/<id>. Printed:
 *  - relevance: the 300 test queries with max_results 10: nDCG@10 and Recall@10 (document level;
 *    Anserini's BM25 reaches nDCG@10 0.679 on this set), and beside them plain BM25 on the same
 *    documents and queries (SQLite FTS5 with the Porter stemmer, fts5-baseline.ts; other
 *    collections, and the index mixed: collections.ts);
 *  - attribution: among queries with a relevant document in the sources, the share whose summary
 *    cites one of them; the share of all citations that point at a returned source; and, the
 *    same queries in format text, how many of the [n] an agent reads there do;
 *  - latency: uncached searches (enable_cache false), p50/p95/p99 at concurrency 1 and 16, each
 *    pass in a service started afresh and warmed by 300 of SciFact's train claims (see latency()),
 *    and CPU per search: this process (API, workers, pool and the bench's client), and the
 *    MariaDB and Redis servers when they run on this machine (their CPU counts every client's);
 *  - where one search's CPU goes: the 300 queries one at a time, this process's CPU read at the
 *    end of each stage the service announces (src/metrics/search-stages.ts), MariaDB's beside it.
 * --latency-only skips relevance and attribution (the profile of a change, not its quality).
 * SEARCH_POSTINGS_CACHE_MB and SEARCH_ANALYSIS_CACHE_MB are handed to the service (its defaults otherwise).
 * --million URL: a database holding SciFact plus a million synthetic passages in mode `test`
 * (`BENCH_MODE=test DATABASE_URL=URL node dist/bench/index/retrieval.js --million --keep`):
 * the same latency figures through the API over that index.
 * Data: BENCH_DATA or ../shared/data.
 */
import os from 'node:os';
import { Pool } from 'undici';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { startService, type RunningService } from '../../src/service.js';
import { removeKeys } from '../../test/helpers/redis-keys.js';
import { testEnv, TEST_KEY } from '../../test/helpers/service.js';
import { createDatabase, databaseUrl } from '../../test/helpers/database.js';
import { apiDocument, loadCorpus, loadQrels, loadQueries, loadTrainClaims, ndcgAt, recallAt, scifactId } from '../index/scifact.js';
import { unlimitedPlan } from '../unlimited-plan.js';
import { percentile } from '../percentile.js';
import { Fts5Bm25 } from './fts5-baseline.js';
import { cpuOf, processNamed } from '../process-cpu.js';
import { searchStages, type SearchStage } from '../../src/metrics/search-stages.js';

const args = process.argv.slice(2);
const REUSE = args.includes('--reuse');
const LATENCY_ONLY = args.includes('--latency-only');
const MILLION = args.includes('--million') ? args[args.indexOf('--million') + 1] : undefined;
const DATABASE_NAME = process.env.SEARCH_BENCH_DATABASE ?? 'sev_bench_search';
const BATCH = 50;
/** Train claims a service answers before a measured pass (see latency()). */
const WARM_UP_CLAIMS = 300;

const plan = unlimitedPlan();
const serverPids = { MariaDB: processNamed(/^(mariadbd|mysqld)$/), Redis: processNamed(/^redis-server$/) };

interface Bench {
  service: RunningService;
  client: Pool;
  key: string;
  /** The service's Redis and key prefix, for removing its keys once it is closed. */
  redis: { url: string; prefix: string };
}

/** Stops the bench's client and service and removes the service's keys from Redis. */
async function close(bench: Bench): Promise<void> {
  await bench.client.close();
  await bench.service.close();
  await removeKeys(bench.redis.url, bench.redis.prefix);
}

async function open(databaseUrl: string): Promise<Bench> {
  const config = loadConfig(testEnv({
    DATABASE_URL: databaseUrl, ...plan.env,
    POOL_SIZE: '2', WORKER_CONCURRENCY: '16', KEY_CACHE_TTL_S: '3600',
    // The service's default unless the run sets it (0: every query's postings read from MySQL).
    ...(process.env.SEARCH_POSTINGS_CACHE_MB ? { SEARCH_POSTINGS_CACHE_MB: process.env.SEARCH_POSTINGS_CACHE_MB } : {}),
    // Likewise the analysed texts each pool thread remembers (1: only a search's own passages, what a cold service pays).
    ...(process.env.SEARCH_ANALYSIS_CACHE_MB ? { SEARCH_ANALYSIS_CACHE_MB: process.env.SEARCH_ANALYSIS_CACHE_MB } : {}),
  }));
  const service = await startService(config, 'all', createLogger('silent', 'all'));
  const client = new Pool(service.url, { connections: 16 });
  const bench = { service, client, key: TEST_KEY, redis: { url: config.redisUrl, prefix: config.queuePrefix } };
  const created = await post(bench, '/v1/auth/keys', { name: 'bench-search', mode: 'test' }, TEST_KEY);
  return { ...bench, key: created.data.key as string };
}

async function post(bench: Pick<Bench, 'client' | 'key'>, url: string, body: unknown, key = bench.key, method = 'POST'): Promise<any> {
  const response = await bench.client.request({
    method, path: url, body: JSON.stringify(body), headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  const json = (await response.body.json()) as any;
  if (response.statusCode !== 200 && response.statusCode !== 422) throw new Error(`${method} ${url}: ${response.statusCode} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

async function load(bench: Bench): Promise<void> {
  const corpus = loadCorpus();
  const started = performance.now();
  const batches: Record<string, string>[][] = [];
  for (let i = 0; i < corpus.length; i += BATCH) {
    batches.push(corpus.slice(i, i + BATCH).map(apiDocument));
  }
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) await post(bench, '/v1/index/documents', { documents: batch });
  }));
  console.log(`SciFact loaded through POST /v1/index/documents: ${corpus.length} documents in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}


async function quality(bench: Bench): Promise<void> {
  const queries = loadQueries();
  const qrels = loadQrels();
  let ndcg = 0;
  let recall = 0;
  let judged = 0;
  let withRelevant = 0;
  let citingRelevant = 0;
  let citations = 0;
  let citationsOfReturned = 0;
  let textCitations = 0;
  let textCitationsOfReturned = 0;
  let failures = 0;
  // Plain BM25 on the same documents and queries (fts5-baseline.ts), printed beside the API's figure.
  const fts5 = new Fts5Bm25(loadCorpus().map((d) => ({ key: d.id, group: 'scifact', title: d.title || d.id, text: d.sentences.join(' ') })));
  let baselineNdcg = 0;
  let baselineRecall = 0;
  for (const query of queries) {
    const relevant = qrels.get(query.id);
    if (!relevant) continue;
    judged++;
    const baseline = fts5.search(query.text, 10);
    baselineNdcg += ndcgAt(baseline, relevant, 10);
    baselineRecall += recallAt(baseline, relevant, 10);
    const answer = await post(bench, '/v1/search', { query: query.text, max_results: 10, format: 'json', options: { enable_cache: false } });
    if (!answer.success) {
      failures++;
      continue;
    }
    const ranked = (answer.data.sources as { url: string }[]).map((s) => scifactId(s.url));
    ndcg += ndcgAt(ranked, relevant, 10);
    recall += recallAt(ranked, relevant, 10);
    const cited = (answer.data.summary.sentences as { citations: number[] }[]).flatMap((s) => s.citations);
    citations += cited.length;
    citationsOfReturned += cited.filter((n) => n >= 1 && n <= ranked.length).length;
    // What an agent reads: every [n] of the text summary, the sources' own brackets included.
    const text = await post(bench, '/v1/search', { query: query.text, max_results: 10, format: 'text', options: { enable_cache: false } });
    const inText = [...(text.data.summary as string).matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    textCitations += inText.length;
    const outside = inText.filter((n) => n < 1 || n > text.data.sources.length);
    textCitationsOfReturned += inText.length - outside.length;
    if (outside.length > 0) console.log(`query ${query.id}: the text summary cites ${outside.map((n) => `[${n}]`).join('')} of ${text.data.sources.length} sources`);
    if (ranked.some((id) => relevant.has(id))) {
      withRelevant++;
      if (cited.some((n) => relevant.has(ranked[n - 1] ?? ''))) citingRelevant++;
    }
  }
  console.log(`relevance (${judged} queries, max_results 10): nDCG@10 ${(ndcg / judged).toFixed(4)}, Recall@10 ${(recall / judged).toFixed(4)}`
    + ` (Anserini BM25: nDCG@10 0.6789); ${failures} queries answered with an error`);
  console.log(`plain BM25 on the same documents and queries (SQLite FTS5, porter unicode61): nDCG@10 ${(baselineNdcg / judged).toFixed(4)}, Recall@10 ${(baselineRecall / judged).toFixed(4)}`);
  fts5.close();
  console.log(`attribution: ${withRelevant} queries with a relevant source; ${(citingRelevant / withRelevant * 100).toFixed(1)} % of them cite one in the summary;`
    + ` ${citations} citations, ${(citationsOfReturned / citations * 100).toFixed(1)} % point at a returned source;`
    + ` in the text summaries ${textCitationsOfReturned} of ${textCitations} [n] point at a returned source`);
}

/**
 * Uncached searches at concurrency 1 and 16, then where one search's CPU goes, each pass in a
 * service started afresh and warmed by WARM_UP_CLAIMS of SciFact's train claims: what a service
 * holds after answering other queries of the field (JIT, the analysis' remembered words, the
 * postings of common terms, src/index/postings-cache.ts; the candidate passages those claims
 * brought, src/text/analysed-texts.ts), never what the same 300 queries of an earlier pass left
 * behind.
 */
async function latency(url: string, label: string): Promise<void> {
  for (const pass of [1, 16, 'stages'] as const) {
    const bench = await open(url);
    const warmUp = loadTrainClaims().slice(0, WARM_UP_CLAIMS);
    await Promise.all(Array.from({ length: 16 }, async () => {
      for (let claim = warmUp.shift(); claim; claim = warmUp.shift()) await post(bench, '/v1/search', { query: claim.text, max_results: 10, options: { enable_cache: false } });
    }));
    if (pass === 'stages') await stages(bench, label);
    else await measure(bench, label, pass);
    await close(bench);
  }
}

async function measure(bench: Bench, label: string, concurrency: number): Promise<void> {
  const times: number[] = [];
  const todo = [...loadQueries()];
  const cpu = cpuNow();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let query = todo.shift(); query; query = todo.shift()) {
      const t = performance.now();
      await post(bench, '/v1/search', { query: query.text, max_results: 10, options: { enable_cache: false } });
      times.push(performance.now() - t);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const used = cpuSince(cpu);
  times.sort((a, b) => a - b);
  const at = (p: number) => percentile(times, p).toFixed(0);
  const perSearch = (micros: number) => `${(micros / 1000 / times.length).toFixed(1)} ms`;
  console.log(`latency ${label}, concurrency ${concurrency}: p50 ${at(50)} ms, p95 ${at(95)} ms, p99 ${at(99)} ms; ${(times.length / seconds).toFixed(1)} searches/s;`
    + ` CPU per search: this process ${perSearch(used.process)}`
    + Object.entries(used.servers).map(([name, micros]) => `, ${name} ${perSearch(micros)}`).join(''));
}

/**
 * One search at a time through the API, this process's CPU (and MariaDB's) read at the end of
 * every stage the service announces: "before start" is the client, HTTP, authentication, limits
 * and the queue up to the worker; "after answer" the job's completion, the result's way back
 * through the queue, the envelope, audit and the client reading it.
 */
async function stages(bench: Bench, label: string): Promise<void> {
  const queries = loadQueries();
  const spent = new Map<string, { process: number; mariadb: number }>();
  let last = cpuNow();
  const mark = (stage: string) => {
    const now = cpuNow();
    const entry = spent.get(stage) ?? { process: 0, mariadb: 0 };
    entry.process += now.process - last.process;
    entry.mariadb += (now.servers.MariaDB ?? 0) - (last.servers.MariaDB ?? 0);
    spent.set(stage, entry);
    last = now;
  };
  const onStage = (stage: unknown) => mark(stage === 'start' ? 'before start' : stage as SearchStage);
  searchStages.subscribe(onStage);
  for (const query of queries) {
    last = cpuNow();
    await post(bench, '/v1/search', { query: query.text, max_results: 10, options: { enable_cache: false } });
    mark('after answer');
  }
  searchStages.unsubscribe(onStage);
  const total = [...spent.values()].reduce((sum, e) => sum + e.process, 0);
  const totalServer = [...spent.values()].reduce((sum, e) => sum + e.mariadb, 0);
  const ms = (micros: number) => (micros / 1000 / queries.length).toFixed(2).padStart(6);
  console.log(`CPU per search by stage, ${label}, ${queries.length} searches one at a time (ms; this process = API, workers, pool and client; MariaDB${serverPids.MariaDB === undefined ? ' not found' : ''}):`);
  for (const [stage, e] of spent) console.log(`  ${stage.padEnd(26)} ${ms(e.process)}  MariaDB ${ms(e.mariadb)}`);
  console.log(`  ${'total'.padEnd(26)} ${ms(total)}  MariaDB ${ms(totalServer)}`);
}

/** CPU so far in µs: this process's (every thread) and each local server's. */
function cpuNow(): { process: number; servers: Record<string, number> } {
  const own = process.cpuUsage();
  const servers: Record<string, number> = {};
  for (const [name, pid] of Object.entries(serverPids)) if (pid !== undefined) servers[name] = cpuOf(pid);
  return { process: own.user + own.system, servers };
}

function cpuSince(before: ReturnType<typeof cpuNow>): { process: number; servers: Record<string, number> } {
  const now = cpuNow();
  return { process: now.process - before.process, servers: Object.fromEntries(Object.entries(now.servers).map(([name, v]) => [name, v - (before.servers[name] ?? 0)])) };
}

console.log(`node ${process.version}, ${os.cpus().length} cores, pool 2 threads`);
const server = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const scifactUrl = REUSE ? databaseUrl(server, DATABASE_NAME) : await createDatabase(server, DATABASE_NAME);
const scifact = await open(scifactUrl);
if (!REUSE) await load(scifact);
if (!LATENCY_ONLY) {
  // One search of each kind first: JIT, connections and the pool's threads warm.
  await post(scifact, '/v1/search', { query: 'warm up', options: { enable_cache: false } });
  await quality(scifact);
}
await close(scifact);
await latency(scifactUrl, 'SciFact index');
if (MILLION) await latency(MILLION, 'SciFact + 1M synthetic passages');
plan.remove();
