import { termWeight } from './bm25.js';

export interface ScorePassagesInput {
  /** idf of each query term, by its index in the query. */
  idf: number[];
  avgdl: number;
  /** Parallel arrays: one entry per (passage, query term) posting. */
  passage: number[];
  term: number[];
  tf: number[];
  length: number[];
}

export interface ScorePassagesOutput {
  /** Passages best first (ties: lower id first, for a stable order). */
  passages: number[];
  scores: number[];
}

/** Pool task: exact BM25 of every candidate passage from its postings for the query terms. */
export function scorePassages(input: ScorePassagesInput): ScorePassagesOutput {
  const totals = new Map<number, number>();
  for (let i = 0; i < input.passage.length; i++) {
    const weight = input.idf[input.term[i]!]! * termWeight(input.tf[i]!, input.length[i]!, input.avgdl);
    totals.set(input.passage[i]!, (totals.get(input.passage[i]!) ?? 0) + weight);
  }
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return { passages: ranked.map((r) => r[0]), scores: ranked.map((r) => r[1]) };
}
