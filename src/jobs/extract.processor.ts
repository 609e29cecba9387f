import type { Job } from 'bullmq';
import { extractPage, type ExtractDeps } from '../extract/extract-page.js';
import { MAP_JOB } from '../extract/extract-service.js';
import type { ExtractRequest, ExtractResult } from '../extract/types.js';
import { mapSite, type SiteMapRequest } from '../crawl/site-map.js';
import type { JobEnvelope } from '../queue/queues.js';

/** BullMQ processor of the extract queue: job data in, result out. Its `map` jobs map a site instead. */
export function createExtractProcessor(deps: ExtractDeps) {
  return (job: Job<JobEnvelope<ExtractRequest | SiteMapRequest>>): Promise<ExtractResult | string[]> => {
    if (job.name === MAP_JOB) return mapSite(deps, job.data.input as SiteMapRequest);
    return extractPage(deps, { requestId: job.data.request_id, mode: job.data.mode ?? 'live', jobId: job.id!, attemptsMade: job.attemptsMade }, job.data.input as ExtractRequest);
  };
}
