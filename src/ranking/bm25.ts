/**
 * BM25's constants and idf; the term weight, tf (k1 + 1) / (tf + k1 (1 - b + b length / avgdl)),
 * is computed inline by the scoring task (score-segments.ts). k1 = 0.9, b = 0.4 are Anserini's
 * defaults, the published SciFact baseline.
 */
export const K1 = 0.9;
export const B = 0.4;

export function idf(documentFrequency: number, passages: number): number {
  return Math.log(1 + (passages - documentFrequency + 0.5) / (documentFrequency + 0.5));
}
