import type { Job } from 'bullmq';
import { runSearch, type SearchDeps } from '../search/run-search.js';
import type { SearchJob, SearchResult } from '../search/types.js';
import type { JobEnvelope } from '../queue/queues.js';

/** BullMQ processor of the search queue: one job may answer several identical requests (single flight). */
export function createSearchProcessor(deps: SearchDeps) {
  return (job: Job<JobEnvelope<SearchJob>>): Promise<SearchResult> => runSearch(deps, job.data.mode, job.data.input);
}
