/**
 * Calibrates search's relevance floor (RELEVANCE_FLOOR in src/ranking/rank-sources.ts) on
 * development data only: the SciFact TRAIN claims with evidence (the data the ranking and its
 * confidence were fitted on) and the development collection bench/search/devset/computing.
 *
 *   npm run build && node dist/bench/search/relevance-floor.js           load both collections, then measure
 *   node dist/bench/search/relevance-floor.js --reuse                    the indexes a previous run left
 *
 * Two indexes in one database (RELEVANCE_BENCH_DATABASE, default sev_bench_floor, on the
 * DATABASE_URL server): SciFact in mode live, the computing collection in mode test (modes
 * never mix). For each floor it prints:
 *  - in the index of their own collection (something relevant exists): the share of relevant
 *    documents of the top 10 that the floor removes, nDCG@10, and queries left with no answer;
 *  - against the other collection's index (nothing relevant exists: scientific claims over the
 *    history of computing, and the other way round): the share of queries answered
 *    NO_RESULTS_FOUND, and the share of returned sources removed.
 * The ranking is the service's (rankSourcesWith, its weights and calibration), in process.
 * Data: BENCH_DATA or ../shared/data.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Mode } from '../../src/mode.js';
import { MysqlDocumentIndex } from '../../src/index/mysql-document-index.js';
import { createCpuPool } from '../../src/pool/pool.js';
import { indexCandidates } from '../../src/search/index-candidates.js';
import { openStorage } from '../../src/storage/connection.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import {
  CALIBRATION, RANKING_WEIGHTS, RELEVANCE_FLOOR, candidateFeatures, rankSourcesWith, type RankSourcesInput,
} from '../../src/ranking/rank-sources.js';
import { createDatabase, databaseUrl } from '../../test/helpers/database.js';
import { DATA_DIR } from '../extract/data.js';
import { ndcgAt } from '../index/scifact.js';
import { DEVSET_DIR, devsetCollection, documentId, documentUrl, scifactCollection, type BenchCollection } from './collections-data.js';

const REUSE = process.argv.includes('--reuse');
const DATABASE_NAME = process.env.RELEVANCE_BENCH_DATABASE ?? 'sev_bench_floor';
const DOCUMENTS = 30;
const LIMIT = 10;
const FLOORS = [0, 0.1, 0.15, 0.2, 0.25, 0.26, 0.27, 0.28, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6];

interface Judged {
  collection: BenchCollection;
  mode: Mode;
  queries: { id: string; text: string; relevant: Map<string, number> }[];
}

/** One query's ranking without a floor: each result's document id (null: of another collection), and the floor's measure. */
interface Ranked {
  relevant: Map<string, number>;
  results: { id: string | null; absolute: number }[];
}

const server = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const url = REUSE ? databaseUrl(server, DATABASE_NAME) : await createDatabase(server, DATABASE_NAME);
const storage = openStorage(url, 8);
const pool = createCpuPool({ threads: 2, taskTimeoutMs: 120_000 });
const index = new MysqlDocumentIndex(storage.db, pool);
await migrateToLatest(storage.db);

const scifact = scifactCollection();
const computing = devsetCollection(path.join(DEVSET_DIR, 'computing'));
if (!REUSE) {
  for (const [collection, mode] of [[scifact, 'live'], [computing, 'test']] as const) {
    const started = performance.now();
    for (let i = 0; i < collection.documents.length; i += 1000) {
      await index.indexDocuments(mode, collection.documents.slice(i, i + 1000).map((d) => ({
        url: documentUrl(collection, d.id), title: d.title, text: d.text, language: 'en', author: null, publishedAt: null, fetchedAt: new Date(), countryHint: null, authority: null,
      })));
    }
    await index.settle(mode);
    console.log(`${collection.name}: ${collection.documents.length} documents indexed in ${((performance.now() - started) / 1000).toFixed(0)} s (mode ${mode})`);
  }
}

// Development queries only: SciFact's train claims (its 300 test queries are never looked at here) and the computing collection's.
const scifactTrain: Judged = { collection: scifact, mode: 'live', queries: trainClaims() };
const computingQueries: Judged = { collection: computing, mode: 'test', queries: computing.queries.map((q) => ({ ...q, relevant: computing.qrels.get(q.id)! })) };

const own = [
  { label: 'SciFact train claims, SciFact index', runs: await rank(scifactTrain, scifactTrain) },
  { label: 'computing queries, computing index', runs: await rank(computingQueries, computingQueries) },
];
const foreign = [
  { label: 'computing queries, SciFact index', runs: await rank(computingQueries, scifactTrain) },
  { label: 'SciFact train claims, computing index', runs: await rank(scifactTrain, computingQueries) },
];
console.log(`queries: ${scifactTrain.queries.length} SciFact train claims with evidence, ${computingQueries.queries.length} computing queries; floor in rank-sources.ts: ${RELEVANCE_FLOOR}\n`);
console.log('floor | relevant of the top 10 removed; nDCG@10; queries left without an answer (own index) | NO_RESULTS_FOUND; sources removed (other index)');
for (const floor of FLOORS) {
  const ownCells = own.map(({ runs }) => {
    let relevant = 0;
    let removed = 0;
    let ndcg = 0;
    let empty = 0;
    for (const run of runs) {
      const kept = run.results.filter((r) => r.absolute >= floor);
      for (const r of run.results) {
        if (r.id !== null && run.relevant.has(r.id)) {
          relevant++;
          if (r.absolute < floor) removed++;
        }
      }
      ndcg += ndcgAt(kept.map((r) => r.id ?? ''), run.relevant, LIMIT);
      if (kept.length === 0) empty++;
    }
    return `${pct(removed, relevant)} of ${relevant}; ${(ndcg / runs.length).toFixed(4)}; ${pct(empty, runs.length)}`;
  });
  const foreignCells = foreign.map(({ runs }) => {
    const refused = runs.filter((run) => run.results.every((r) => r.absolute < floor)).length;
    const total = runs.reduce((sum, run) => sum + run.results.length, 0);
    const removed = runs.reduce((sum, run) => sum + run.results.filter((r) => r.absolute < floor).length, 0);
    return `${pct(refused, runs.length)}; ${pct(removed, total)}`;
  });
  console.log(`${floor.toFixed(2).padStart(5)} | ${ownCells.join(' | ')} | ${foreignCells.join(' | ')}`);
}
console.log(`\ncolumns: ${[...own, ...foreign].map((c) => c.label).join(' | ')}`);

await index.close();
await pool.close();
await storage.close();

/** The service's ranking of `queries` over the index of `target` (their own collection's, or another's), without a floor. */
async function rank(queries: Judged, target: Judged): Promise<Ranked[]> {
  const out: Ranked[] = [];
  for (const q of queries.queries) {
    const { weights, candidates } = await indexCandidates(index, target.mode, q.text, { documents: DOCUMENTS });
    const input: RankSourcesInput = {
      query: q.text, ...weights, candidates, now: Date.now(), recency: null, country: null, authority: [], maxPerDomain: 3, limit: LIMIT,
    };
    const features = candidateFeatures(input);
    const ranked = rankSourcesWith(input, RANKING_WEIGHTS, CALIBRATION, features, false, 0);
    out.push({
      relevant: q.relevant,
      results: ranked.map((r) => ({
        id: documentId(queries.collection, input.candidates[r.candidate]!.url),
        absolute: features[r.candidate]!.anchor,
      })),
    });
  }
  return out;
}

function trainClaims(): Judged['queries'] {
  return fs.readFileSync(path.join(DATA_DIR, 'claims', 'scifact', 'claims.train.jsonl'), 'utf8').split('\n').filter((l) => l.trim())
    .map((line) => JSON.parse(line) as { id: number; claim: string; evidence: Record<string, unknown> })
    .filter((c) => Object.keys(c.evidence).length > 0)
    .map((c) => ({ id: String(c.id), text: c.claim, relevant: new Map(Object.keys(c.evidence).map((d) => [d, 1])) }));
}

function pct(part: number, whole: number): string {
  return `${whole === 0 ? '0.0' : (part / whole * 100).toFixed(1)} %`;
}
