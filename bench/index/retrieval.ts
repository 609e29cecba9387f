/**
 * Retrieval benchmark of the MySQL index (src/index/) on BEIR SciFact, through the index
 * directly (no HTTP):
 *   node dist/bench/index/retrieval.js                 SciFact only
 *   node dist/bench/index/retrieval.js --million       plus 1,000,000 synthetic passages
 *   node dist/bench/index/retrieval.js --synthetic N   plus N synthetic passages
 * Everything goes into the bench's own mode (BENCH_MODE, default "bench"), emptied at start;
 * --keep leaves it in place afterwards, and --reuse measures a kept index again without loading. Data: BENCH_DATA or ../shared/data.
 */
import { sql } from 'kysely';
import type { Mode } from '../../src/mode.js';
import { MysqlDocumentIndex } from '../../src/index/mysql-document-index.js';
import type { IndexDocumentInput } from '../../src/index/types.js';
import { createCpuPool } from '../../src/pool/pool.js';
import { openStorage, type Storage } from '../../src/storage/connection.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { indexDocument, loadCorpus, loadQrels, loadQueries, ndcgAt, recallAt, type SciFactDocument } from './scifact.js';
import { prng } from '../../test/helpers/prng.js';

const MODE = (process.env.BENCH_MODE ?? 'bench') as Mode;
const args = process.argv.slice(2);
const SYNTHETIC = args.includes('--million') ? 1_000_000 : Number(args[args.indexOf('--synthetic') + 1] ?? 0) * Number(args.includes('--synthetic'));
/** Documents handed to indexDocuments per call, and calls in flight (the pool has two threads here). */
const CALL_SIZE = 1000;
const CONCURRENCY = 2;

const storage = openStorage(process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test', 8);
const pool = createCpuPool({ threads: 2, taskTimeoutMs: 120_000 });
const index = new MysqlDocumentIndex(storage.db, pool);

await migrateToLatest(storage.db);
const REUSE = args.includes('--reuse');
if (!REUSE) await emptyMode(storage, MODE);

const corpus = loadCorpus();
const queries = loadQueries();
const qrels = loadQrels();

if (REUSE) {
  console.log(`kept index: ${await segmentSummary(storage, MODE)}, ${(await tableBytes(storage) / 2 ** 20).toFixed(0)} MiB`);
  await evaluate('kept index');
} else {
const scifactRate = await indexAll(corpus.map(indexDocument));
await index.settle(MODE);
console.log(`SciFact indexed: ${corpus.length} documents, ${scifactRate.passages} passages in ${scifactRate.seconds.toFixed(1)} s`
  + ` (${(corpus.length / scifactRate.seconds).toFixed(0)} documents/s, ${(scifactRate.passages / scifactRate.seconds).toFixed(0)} passages/s)`);
const base = await evaluate('SciFact alone');

if (SYNTHETIC > 0) {
  const rate = await indexSynthetic(corpus, SYNTHETIC);
  const settleStarted = performance.now();
  await index.settle(MODE);
  console.log(`merges settled ${((performance.now() - settleStarted) / 1000).toFixed(0)} s after the last write; ${await segmentSummary(storage, MODE)}`);
  console.log(`synthetic: ${rate.passages} passages (${rate.documents} documents) in ${rate.seconds.toFixed(0)} s (${(rate.passages / rate.seconds).toFixed(0)} passages/s)`);
  console.log(`MySQL size of the index tables: ${(await tableBytes(storage) / 2 ** 20).toFixed(0)} MiB`);
  const big = await evaluate(`SciFact + ${rate.passages} synthetic passages`);
  console.log(`nDCG@10 difference: ${(big.ndcg - base.ndcg).toFixed(4)}`);
}
}

if (!args.includes('--keep') && !REUSE) await emptyMode(storage, MODE);
await index.close();
await pool.close();
await storage.close();

async function indexAll(documents: IndexDocumentInput[]): Promise<{ passages: number; seconds: number }> {
  const started = performance.now();
  let passages = 0;
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < documents.length) {
      const batch = documents.slice(next, next += CALL_SIZE);
      for (const outcome of await index.indexDocuments(MODE, batch)) passages += outcome.passages;
    }
  }));
  return { passages, seconds: (performance.now() - started) / 1000 };
}

/**
 * Distractor documents made by recombining SciFact sentences with a seeded generator: real
 * scientific vocabulary and length statistics, no real document, the same every run. Sentences
 * of documents judged relevant to a query are left out: a distractor repeating one would be
 * relevant text the judgments do not know about, and would count as a ranking error when it
 * rightly ranks high (with them in, the million-passage run lost 0.014 nDCG@10 that way).
 */
async function indexSynthetic(source: SciFactDocument[], target: number): Promise<{ passages: number; documents: number; seconds: number }> {
  const judged = new Set([...qrels.values()].flatMap((relevant) => [...relevant.keys()]));
  const sentences = source.filter((d) => !judged.has(d.id)).flatMap((d) => d.sentences);
  const random = prng(20261121);
  const started = performance.now();
  let passages = 0;
  let documents = 0;
  let reported = 0;
  while (passages < target) {
    const batch = Array.from({ length: CALL_SIZE * CONCURRENCY }, () => {
      const picked = Array.from({ length: 3 + Math.floor(random() * 10) }, () => sentences[Math.floor(random() * sentences.length)]!);
      return { ...indexDocument({ id: '', title: '', sentences: picked }), url: `synthetic:${documents++}`, title: null };
    });
    passages += (await indexAll(batch)).passages;
    if (passages - reported >= 100_000) {
      reported = passages;
      console.log(`  ${passages} synthetic passages, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  }
  return { passages, documents, seconds: (performance.now() - started) / 1000 };
}

async function evaluate(label: string): Promise<{ ndcg: number }> {
  // Latency of the retrieval stage as search uses it: top 10 passages.
  const latencies: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await index.retrieve(MODE, query.text, { limit: 10 });
    latencies.push(performance.now() - started);
  }
  // Quality at document level: a document scores its best passage; 300 passages cover about 100 documents (2.3 passages each).
  let ndcg = 0;
  let recall = 0;
  for (const query of queries) {
    const relevant = qrels.get(query.id) ?? new Map<string, number>();
    const ranked: string[] = [];
    for (const hit of await index.retrieve(MODE, query.text, { limit: 300 })) {
      const id = hit.url.slice('scifact:'.length);
      if (hit.url.startsWith('scifact:') && !ranked.includes(id)) ranked.push(id);
    }
    ndcg += ndcgAt(ranked, relevant, 10);
    recall += recallAt(ranked, relevant, 100);
  }
  ndcg /= queries.length;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
  console.log(`${label}: nDCG@10 ${ndcg.toFixed(4)}, Recall@100 ${(recall / queries.length).toFixed(4)}; top-10 retrieval p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms`);
  return { ndcg };
}

/** Removes everything of a mode in bulk (faster than per-document deletion, and df goes with the terms). */
async function emptyMode(store: Storage, mode: Mode): Promise<void> {
  await index.settle(mode);
  await sql`DELETE sp FROM index_segment_postings sp JOIN index_segments s ON s.id = sp.segment_id WHERE s.mode = ${mode}`.execute(store.db);
  await sql`DELETE p FROM index_passages p JOIN index_documents d ON d.id = p.document_id WHERE d.mode = ${mode}`.execute(store.db);
  for (const table of ['index_documents', 'index_terms', 'index_stats', 'index_segments'] as const) await store.db.deleteFrom(table).where('mode', '=', mode).execute();
}

async function segmentSummary(store: Storage, mode: Mode): Promise<string> {
  const rows = await store.db.selectFrom('index_segments').select(['level', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.sum<number>('postings').as('postings')])
    .where('mode', '=', mode).where('state', '=', 'active').groupBy('level').orderBy('level').execute();
  return `segments by level: ${rows.map((r) => `L${r.level}×${r.n}`).join(' ')}, ${rows.reduce((sum, r) => sum + Number(r.postings), 0)} postings`;
}

async function tableBytes(store: Storage): Promise<number> {
  const result = await sql<{ bytes: string }>`SELECT SUM(data_length + index_length) AS bytes FROM information_schema.tables
    WHERE table_schema = DATABASE() AND table_name LIKE 'index\\_%'`.execute(store.db);
  return Number(result.rows[0]?.bytes ?? 0);
}

