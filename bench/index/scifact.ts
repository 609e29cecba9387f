import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DATA_DIR } from '../extract/data.js';
import type { IndexDocumentInput } from '../../src/index/types.js';

/** BEIR SciFact from ../shared/data/retrieval/scifact (see its README). */
const DIR = path.join(DATA_DIR, 'retrieval', 'scifact');

export interface SciFactDocument {
  id: string;
  title: string;
  sentences: string[];
}

/** A SciFact abstract as the index takes it, under the URL `scifact:<id>`. */
export function indexDocument(doc: SciFactDocument): IndexDocumentInput {
  return {
    url: `scifact:${doc.id}`, title: doc.title, text: doc.sentences.join(' '), language: 'en', author: null,
    publishedAt: null, fetchedAt: new Date(), countryHint: null, authority: null,
  };
}

/**
 * A SciFact abstract as POST /v1/index/documents takes it, under https://scifact.bench/<id>:
 * bench/search and bench/validate load the same database, so they must write the same documents.
 */
export function apiDocument(doc: SciFactDocument): { url: string; title: string; content: string; language: string } {
  return { url: `https://scifact.bench/${doc.id}`, title: doc.title || doc.id, content: doc.sentences.join(' '), language: 'en' };
}

/** The SciFact id of a document URL (https://scifact.bench/<id>, or a page URL ending in the id). */
export function scifactId(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

export function loadCorpus(): SciFactDocument[] {
  return gunzipSync(fs.readFileSync(path.join(DIR, 'corpus.jsonl.gz'))).toString('utf8')
    .split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as SciFactDocument);
}

export function loadQueries(): { id: string; text: string }[] {
  return fs.readFileSync(path.join(DIR, 'queries.test.tsv'), 'utf8').split('\n').filter((l) => l.trim())
    .map((line) => {
      const tab = line.indexOf('\t');
      return { id: line.slice(0, tab), text: line.slice(tab + 1) };
    });
}

/** SciFact's train claims (claims/scifact): queries of the same field as the test queries, never the same ones. */
export function loadTrainClaims(): { id: string; text: string }[] {
  return fs.readFileSync(path.join(DATA_DIR, 'claims', 'scifact', 'claims.train.jsonl'), 'utf8').split('\n').filter((l) => l.trim())
    .map((line) => JSON.parse(line) as { id: number; claim: string })
    .map((c) => ({ id: String(c.id), text: c.claim }));
}

/** qid → relevant document id → relevance (TREC qrels: `qid 0 docid rel`). */
export function loadQrels(): Map<string, Map<string, number>> {
  const qrels = new Map<string, Map<string, number>>();
  for (const line of fs.readFileSync(path.join(DIR, 'qrels.test.txt'), 'utf8').split('\n')) {
    const [qid, , docid, rel] = line.trim().split(/\s+/);
    if (!qid || !docid || !rel || Number(rel) <= 0) continue;
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    qrels.get(qid)!.set(docid, Number(rel));
  }
  return qrels;
}

export function ndcgAt(ranked: readonly string[], relevant: Map<string, number>, k: number): number {
  const dcg = ranked.slice(0, k).reduce((sum, id, i) => sum + (relevant.get(id) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...relevant.values()].sort((a, b) => b - a).slice(0, k).reduce((sum, rel, i) => sum + rel / Math.log2(i + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

export function recallAt(ranked: readonly string[], relevant: Map<string, number>, k: number): number {
  const top = new Set(ranked.slice(0, k));
  return relevant.size > 0 ? [...relevant.keys()].filter((id) => top.has(id)).length / relevant.size : 0;
}
