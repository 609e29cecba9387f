/**
 * What each pool thread is started with (Piscina's workerData): pool.ts writes it,
 * workers/pool/tasks.ts reads it. A module of its own, so the tasks import no Piscina.
 */
export interface PoolThreadData {
  /** Analysed texts the thread remembers (SEARCH_ANALYSIS_CACHE_MB; src/text/analysed-texts.ts); its default when undefined. */
  analysisCacheBytes: number | undefined;
}
