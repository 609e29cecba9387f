/**
 * Test collections for the search benches, each under a host of its own so that one index can
 * hold several and a result's URL says where it came from: SciFact from BENCH_DATA (its 300
 * test queries with judgments), and the development collections of bench/search/devset/<name>
 * (corpus.jsonl, queries.tsv, qrels.txt; see each one's README).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { loadCorpus, loadQrels, loadQueries } from '../index/scifact.js';

export interface BenchCollection {
  name: string;
  /** Documents are https://<host>/<id>. */
  host: string;
  documents: { id: string; title: string; text: string }[];
  /** Only queries with at least one relevant document. */
  queries: { id: string; text: string }[];
  /** qid → document id → grade (> 0). */
  qrels: Map<string, Map<string, number>>;
}

export const DEVSET_DIR = path.join(PROJECT_ROOT, 'bench', 'search', 'devset');

export function scifactCollection(): BenchCollection {
  const qrels = loadQrels();
  return {
    name: 'scifact', host: 'scifact.bench',
    // As bench/index/scifact.ts's apiDocument writes them (a SciFact document without a title is titled by its id).
    documents: loadCorpus().map((d) => ({ id: d.id, title: d.title || d.id, text: d.sentences.join(' ') })),
    queries: loadQueries().filter((q) => qrels.has(q.id)), qrels,
  };
}

/** bench/search/devset/<name>, or any directory with the same three files. */
export function devsetCollection(dir: string): BenchCollection {
  const name = path.basename(dir);
  const documents = fs.readFileSync(path.join(dir, 'corpus.jsonl'), 'utf8').split('\n').filter((l) => l.trim())
    .map((line) => JSON.parse(line) as { id: string; title: string; text: string });
  const qrels = new Map<string, Map<string, number>>();
  for (const line of fs.readFileSync(path.join(dir, 'qrels.txt'), 'utf8').split('\n')) {
    const [qid, , docid, grade] = line.trim().split(/\s+/);
    if (!qid || !docid || !grade || Number(grade) <= 0) continue;
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    qrels.get(qid)!.set(docid, Number(grade));
  }
  const queries = fs.readFileSync(path.join(dir, 'queries.tsv'), 'utf8').split('\n').filter((l) => l.trim())
    .map((line) => ({ id: line.slice(0, line.indexOf('\t')), text: line.slice(line.indexOf('\t') + 1).trim() }))
    .filter((q) => qrels.has(q.id));
  return { name, host: `${name}.bench`, documents, queries, qrels };
}

export function devsetCollections(): BenchCollection[] {
  return fs.readdirSync(DEVSET_DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()
    .map((name) => devsetCollection(path.join(DEVSET_DIR, name)));
}

export function documentUrl(collection: Pick<BenchCollection, 'host'>, id: string): string {
  return `https://${collection.host}/${id}`;
}

/** The collection's document id of a result URL, or null for a document of another collection. */
export function documentId(collection: Pick<BenchCollection, 'host'>, url: string): string | null {
  const prefix = `https://${collection.host}/`;
  return url.startsWith(prefix) ? url.slice(prefix.length) : null;
}

/** Long queries: natural-language requests (CISI style) rather than keywords or one-sentence claims. */
export const LONG_QUERY_WORDS = 20;

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
