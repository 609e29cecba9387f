import diagnostics_channel from 'node:diagnostics_channel';

/**
 * The stages of one uncached search, in the order a search passes them (src/search/run-search.ts,
 * src/index/retriever.ts): each is announced when it ends.
 */
export type SearchStage =
  | 'start'
  | 'weigh query'
  | 'read postings'
  | 'score postings'
  | 'filter and read passages'
  | 'rank sources'
  | 'summary'
  | 'answer';

/**
 * Where a search's time goes, for a profiler in the same process (bench/search/search.ts runs
 * searches one at a time and reads its CPU at every stage's end). A diagnostics channel costs
 * one property read per stage when nobody listens, so the service publishes always.
 */
export const searchStages = diagnostics_channel.channel('sev.search.stage');

export function searchStageDone(stage: SearchStage): void {
  if (searchStages.hasSubscribers) searchStages.publish(stage);
}
