/**
 * BM25 pieces shared by the index writer (quantised impacts stored in the postings) and the
 * scoring task. k1 = 0.9, b = 0.4 are Anserini's defaults, the published SciFact baseline.
 */
export const K1 = 0.9;
export const B = 0.4;
/** Impacts are stored as integers: ceil(weight × IMPACT_SCALE), so a stored impact never under-states a weight. */
export const IMPACT_SCALE = 10_000;

/** The term-frequency component of BM25 (without idf). */
export function termWeight(tf: number, length: number, avgdl: number): number {
  return (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avgdl));
}

export function idf(documentFrequency: number, passages: number): number {
  return Math.log(1 + (passages - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

export function quantisedImpact(tf: number, length: number, referenceAvgdl: number): number {
  return Math.min(65_535, Math.ceil(termWeight(tf, length, referenceAvgdl) * IMPACT_SCALE));
}

/**
 * Impacts were computed with the mode's reference avgdl; scores use the current one. With the
 * current avgdl larger, every weight may grow by at most current/reference (the length
 * normaliser shrinks by at most that factor), so bounds read from impacts are scaled by this.
 */
export function impactSlack(currentAvgdl: number, referenceAvgdl: number): number {
  return Math.max(1, currentAvgdl / referenceAvgdl);
}
