/**
 * Tunes and measures the ranking stage of search (src/ranking/rank-sources.ts) on BEIR SciFact:
 *   node dist/bench/search/tune-ranking.js            load SciFact into the bench's mode, then tune and measure
 *   node dist/bench/search/tune-ranking.js --reuse    the index a previous run left (it is kept)
 *   --from-zero                                       start the ascent from the best passage alone, not from the weights in the code
 *                                                     (`further` stays at 0 either way: see TUNED)
 *   --grid                                            first choose the whole-document BM25 constants (k1, b) on train
 * Database: DATABASE_URL (default mysql://root@127.0.0.1:3306/sev_rank, created if missing);
 * mode BENCH_MODE (default "bench"). Data: BENCH_DATA or ../shared/data.
 *
 * Relevance for tuning is the SciFact TRAIN claims' evidence documents (claims with evidence
 * only): the weights (coordinate ascent on train nDCG@10) and the confidence calibration
 * (logistic regression on the train top 10) are fitted on them alone. The 300 test queries
 * are only measured.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createConnection } from 'mysql2/promise';
import { sql } from 'kysely';
import type { Mode } from '../../src/mode.js';
import { MysqlDocumentIndex } from '../../src/index/mysql-document-index.js';
import { createCpuPool } from '../../src/pool/pool.js';
import { indexCandidates } from '../../src/search/index-candidates.js';
import { openStorage } from '../../src/storage/connection.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import {
  CALIBRATION, DOCUMENT_BM25, RANKING_WEIGHTS, candidateFeatures, rankSources, rankSourcesWith,
  type CandidateFeatures, type Calibration, type ConfidenceFeatures, type RankingWeights, type RankSourcesInput,
} from '../../src/ranking/rank-sources.js';
import { DATA_DIR } from '../extract/data.js';
import { percentile } from '../percentile.js';
import { indexDocument, loadCorpus, loadQrels, loadQueries, ndcgAt, recallAt } from '../index/scifact.js';

const MODE = (process.env.BENCH_MODE ?? 'bench') as Mode;
const DATABASE_URL = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/sev_rank';
const REUSE = process.argv.includes('--reuse');
/** Documents the service takes from the index per search, and results it returns (max_results 10). */
const DOCUMENTS = 30;
const LIMIT = 10;
/** The service's per-domain cap; SciFact is one domain, so the fill-up keeps the ranking. */
const MAX_PER_DOMAIN = 2;
/** Weight values coordinate ascent tries for each text feature, in turn, until a round improves nothing. */
const GRID = [0, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.6, 0.8, 1.2];
/**
 * `further` is not tuned: it stays at 0. It adds a document's further passages without
 * normalising for length, so it favours long documents; SciFact's abstracts are of one length,
 * so its train claims cannot see that cost (the ascent is indifferent to it), while collections
 * of mixed lengths pay it (docs/search.md#ranking). The whole-document BM25 carries the same
 * evidence with its length normalised.
 */
const TUNED: (keyof RankingWeights)[] = ['document', 'title', 'coverage', 'proximity'];

interface Query {
  id: string;
  text: string;
  relevant: Map<string, number>;
  input: RankSourcesInput;
  /** The candidates' features, computed once: tuning only reweighs them. */
  features: CandidateFeatures[];
}

const url = new URL(DATABASE_URL);
const admin = await createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) });
await admin.query(`CREATE DATABASE IF NOT EXISTS \`${url.pathname.slice(1)}\``);
await admin.end();

const storage = openStorage(DATABASE_URL, 8);
const pool = createCpuPool({ threads: 2, taskTimeoutMs: 120_000 });
const index = new MysqlDocumentIndex(storage.db, pool);
await migrateToLatest(storage.db);

if (!REUSE) {
  await index.settle(MODE);
  await sql`DELETE sp FROM index_segment_postings sp JOIN index_segments s ON s.id = sp.segment_id WHERE s.mode = ${MODE}`.execute(storage.db);
  await sql`DELETE p FROM index_passages p JOIN index_documents d ON d.id = p.document_id WHERE d.mode = ${MODE}`.execute(storage.db);
  for (const table of ['index_documents', 'index_terms', 'index_stats', 'index_segments'] as const) await storage.db.deleteFrom(table).where('mode', '=', MODE).execute();
  const corpus = loadCorpus();
  const started = performance.now();
  for (let i = 0; i < corpus.length; i += 1000) await index.indexDocuments(MODE, corpus.slice(i, i + 1000).map(indexDocument));
  await index.settle(MODE);
  console.log(`SciFact indexed: ${corpus.length} documents in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const train = await build(loadTrainClaims());
const testQrels = loadQrels();
const test = await build(loadQueries().map((q) => ({ ...q, relevant: testQrels.get(q.id) ?? new Map<string, number>() })));
console.log(`queries: ${train.length} train claims with evidence, ${test.length} test queries; ${DOCUMENTS} index documents per query, top ${LIMIT}`);

if (process.argv.includes('--grid')) {
  // The whole-document feature's BM25 constants: for each pair, features anew and weights by
  // ascent from the best passage alone; the pair is chosen by train nDCG@10 (test is printed only).
  let chosen = { k1: 0, b: 0, ndcg: -1 };
  for (const k1 of [0.9, 1.2, 1.6, 2.0]) {
    for (const b of [0.4, 0.5, 0.6, 0.75]) {
      for (const q of [...train, ...test]) q.features = candidateFeatures(q.input, { k1, b });
      const w = ascend(train, { ...RANKING_WEIGHTS, further: 0, document: 0, title: 0, coverage: 0, proximity: 0 }, () => undefined);
      const a = evaluate(train, (q) => ranked(q, w));
      const t = evaluate(test, (q) => ranked(q, w));
      console.log(`document k1 ${k1}, b ${b}: train nDCG@10 ${a.ndcg.toFixed(4)}, test ${t.ndcg.toFixed(4)}; ${TUNED.map((f) => `${f} ${w[f]}`).join(', ')}`);
      if (a.ndcg > chosen.ndcg) chosen = { k1, b, ndcg: a.ndcg };
    }
  }
  console.log(`best on train: k1 ${chosen.k1}, b ${chosen.b}; in rank-sources.ts: k1 ${DOCUMENT_BM25.k1}, b ${DOCUMENT_BM25.b}`);
  for (const q of [...train, ...test]) q.features = candidateFeatures(q.input);
}

// Coordinate ascent on train nDCG@10, from the weights in rank-sources.ts (--from-zero: from the
// best passage alone); ascent finds a local optimum, so a feature added later starts from the
// optimum found without it.
const weights: RankingWeights = process.argv.includes('--from-zero')
  ? { ...RANKING_WEIGHTS, further: 0, document: 0, title: 0, coverage: 0, proximity: 0 }
  : { ...RANKING_WEIGHTS, further: 0 };
ascend(train, weights, console.log);
console.log(`weights found: ${JSON.stringify(weights)}`);
console.log(`weights in rank-sources.ts: ${JSON.stringify(RANKING_WEIGHTS)}`);

console.log('\n                               train nDCG@10  R@10   test nDCG@10  R@10');
const row = (label: string, rank: (q: Query) => string[]): void => {
  const a = evaluate(train, rank);
  const b = evaluate(test, rank);
  console.log(`${label.padEnd(30)} ${a.ndcg.toFixed(4)}        ${a.recall.toFixed(4)}  ${b.ndcg.toFixed(4)}        ${b.recall.toFixed(4)}`);
};
row('(a) best passage BM25', (q) => q.input.candidates.map((c) => docId(c.url)));
row('(c) whole-document BM25 alone', (q) => ranked(q, { ...weights, best: 0, further: 0, title: 0, coverage: 0, proximity: 0, document: 1 }));
row('(b) ranking, weights found', (q) => ranked(q, weights));
row('(b) ranking, rankSources()', (q) => rankSources(q.input).map((r) => docId(q.input.candidates[r.candidate]!.url)));

// Confidence: logistic regression on the train top 10 of the weights found.
const fitted = fitCalibration(train.flatMap((q) => labelled(q, weights, CALIBRATION)));
console.log(`\ncalibration fitted on train: ${JSON.stringify(fitted)}`);
console.log(`calibration in rank-sources.ts: ${JSON.stringify(CALIBRATION)}`);
reliability('train, fitted', train.flatMap((q) => labelled(q, weights, fitted)));
reliability('test, fitted', test.flatMap((q) => labelled(q, weights, fitted)));
reliability('test, rankSources() (constants in code)', test.flatMap((q) => labelled(q, RANKING_WEIGHTS, CALIBRATION)));

// Speed: one rankSources call per test query, as the service makes it.
const times: number[] = [];
for (let repeat = 0; repeat < 3; repeat++) {
  for (const q of test) {
    const started = performance.now();
    rankSources(q.input);
    times.push(performance.now() - started);
  }
}
times.sort((a, b) => a - b);
const candidates = test.reduce((sum, q) => sum + q.input.candidates.length, 0) / test.length;
console.log(`\nrankSources: ${candidates.toFixed(1)} candidates a call; mean ${(times.reduce((s, t) => s + t, 0) / times.length).toFixed(2)} ms, `
  + `p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms`);
const doubled = test.map((q) => ({ ...q.input, candidates: [...q.input.candidates, ...q.input.candidates.map((c) => ({ ...c, url: `${c.url}/copy`, domain: 'other.example' }))] }));
const started = performance.now();
for (const input of doubled) rankSources(input);
console.log(`rankSources with ${(2 * candidates).toFixed(0)} candidates (each twice, as copies to merge): mean ${((performance.now() - started) / doubled.length).toFixed(2)} ms`);

await index.close();
await pool.close();
await storage.close();

function docId(candidateUrl: string): string {
  return candidateUrl.slice('scifact:'.length);
}

function loadTrainClaims(): { id: string; text: string; relevant: Map<string, number> }[] {
  return fs.readFileSync(path.join(DATA_DIR, 'claims', 'scifact', 'claims.train.jsonl'), 'utf8').split('\n').filter((l) => l.trim())
    .map((line) => JSON.parse(line) as { id: number; claim: string; evidence: Record<string, unknown> })
    .filter((c) => Object.keys(c.evidence).length > 0)
    .map((c) => ({ id: String(c.id), text: c.claim, relevant: new Map(Object.keys(c.evidence).map((d) => [d, 1])) }));
}

async function build(queries: { id: string; text: string; relevant: Map<string, number> }[]): Promise<Query[]> {
  const out: Query[] = [];
  for (const q of queries) {
    const { weights: weightsOfQuery, candidates } = await indexCandidates(index, MODE, q.text, { documents: DOCUMENTS });
    const input: RankSourcesInput = {
      query: q.text, ...weightsOfQuery, candidates, now: Date.now(), recency: null, country: null, authority: [],
      maxPerDomain: MAX_PER_DOMAIN, limit: LIMIT,
    };
    out.push({ ...q, input, features: candidateFeatures(input) });
  }
  return out;
}

function ranked(q: Query, w: RankingWeights): string[] {
  return rankSourcesWith(q.input, w, CALIBRATION, q.features, false).map((r) => docId(q.input.candidates[r.candidate]!.url));
}

function evaluate(queries: Query[], rank: (q: Query) => string[]): { ndcg: number; recall: number } {
  let ndcg = 0;
  let recall = 0;
  for (const q of queries) {
    const list = rank(q);
    ndcg += ndcgAt(list, q.relevant, 10);
    recall += recallAt(list, q.relevant, 10);
  }
  return { ndcg: ndcg / queries.length, recall: recall / queries.length };
}

/** Coordinate ascent on train nDCG@10 over the text weights, in place. */
function ascend(queries: Query[], weights: RankingWeights, log: (line: string) => void): RankingWeights {
  let best = evaluate(queries, (q) => ranked(q, weights)).ndcg;
  log(`coordinate ascent (train nDCG@10), start ${best.toFixed(4)}`);
  for (let round = 1, improved = true; improved && round <= 3; round++) {
    improved = false;
    for (const feature of TUNED) {
      for (const value of GRID) {
        const trial = { ...weights, [feature]: value };
        const ndcg = evaluate(queries, (q) => ranked(q, trial)).ndcg;
        if (ndcg > best + 1e-6) {
          best = ndcg;
          weights[feature] = value;
          improved = true;
        }
      }
    }
    log(`  round ${round}: ${TUNED.map((f) => `${f} ${weights[f]}`).join(', ')}: ${best.toFixed(4)}`);
  }
  return weights;
}

interface Example {
  features: ConfidenceFeatures;
  confidence: number;
  relevant: number;
}

function labelled(q: Query, w: RankingWeights, calibration: Calibration): Example[] {
  return rankSourcesWith(q.input, w, calibration, q.features, false).map((r) => ({
    features: r.features, confidence: r.confidence, relevant: q.relevant.has(docId(q.input.candidates[r.candidate]!.url)) ? 1 : 0,
  }));
}

/** Logistic regression by Newton's method (a tiny L2 term keeps the Hessian invertible). */
function fitCalibration(examples: Example[]): Calibration {
  const x = examples.map((e) => [1, e.features.best, e.features.coverage, e.features.margin]);
  const y = examples.map((e) => e.relevant);
  let beta = [0, 0, 0, 0];
  for (let iteration = 0; iteration < 50; iteration++) {
    const gradient = [0, 0, 0, 0];
    const hessian = Array.from({ length: 4 }, (_r, i) => Array.from({ length: 4 }, (_c, j) => (i === j ? 1e-6 : 0)));
    x.forEach((xi, n) => {
      const p = 1 / (1 + Math.exp(-xi.reduce((s, v, k) => s + v * beta[k]!, 0)));
      for (let i = 0; i < 4; i++) {
        gradient[i]! += (y[n]! - p) * xi[i]!;
        for (let j = 0; j < 4; j++) hessian[i]![j]! += p * (1 - p) * xi[i]! * xi[j]!;
      }
    });
    const step = solve(hessian, gradient);
    beta = beta.map((b, i) => b + step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return { bias: round(beta[0]!), best: round(beta[1]!), coverage: round(beta[2]!), margin: round(beta[3]!) };
}

/** Gaussian elimination with partial pivoting. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((r, i) => [...r, b[i]!]);
  for (let c = 0; c < n; c++) {
    const pivot = m.reduce((p, r, i) => (i >= c && Math.abs(r[c]!) > Math.abs(m[p]![c]!) ? i : p), c);
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((r, i) => r[n]! / r[i]!);
}

/** Expected calibration error and a 5-bin reliability table (equal-width confidence bins). */
function reliability(label: string, examples: Example[]): void {
  const bins = Array.from({ length: 5 }, () => ({ n: 0, confidence: 0, relevant: 0 }));
  for (const e of examples) {
    const bin = bins[Math.min(4, Math.floor(e.confidence * 5))]!;
    bin.n++;
    bin.confidence += e.confidence;
    bin.relevant += e.relevant;
  }
  const ece = bins.reduce((sum, b) => sum + (b.n > 0 ? Math.abs(b.confidence - b.relevant) : 0), 0) / examples.length;
  console.log(`reliability, ${label}: ${examples.length} results, ECE ${ece.toFixed(4)}`);
  console.log('  confidence   results  mean confidence  share relevant');
  bins.forEach((b, i) => {
    const range = `${(i / 5).toFixed(1)}–${((i + 1) / 5).toFixed(1)}`;
    console.log(`  ${range.padEnd(12)} ${String(b.n).padStart(7)}  ${(b.n ? b.confidence / b.n : 0).toFixed(3).padStart(15)}  ${(b.n ? b.relevant / b.n : 0).toFixed(3).padStart(14)}`);
  });
}
