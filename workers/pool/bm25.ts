/**
 * BM25 as the scoring task computes it. k1 = 0.9, b = 0.4 are Anserini's defaults, the
 * published SciFact baseline.
 */
export const K1 = 0.9;
export const B = 0.4;

/** The term-frequency component of BM25 (without idf). */
export function termWeight(tf: number, length: number, avgdl: number): number {
  return (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avgdl));
}

export function idf(documentFrequency: number, passages: number): number {
  return Math.log(1 + (passages - documentFrequency + 0.5) / (documentFrequency + 0.5));
}
