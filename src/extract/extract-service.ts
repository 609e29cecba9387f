/**
 * POST /v1/extract: the extraction job (fetch, clean, store) on the extract queue, awaited within
 * the request's time-out. The queue also runs site maps (Firecrawl's map), which read pages alike.
 */
import type { Queue, QueueEvents } from 'bullmq';
import { ApiError } from '../errors/catalogue.js';
import { checkSelectors, SelectorError } from '../html/selectors.js';
import type { Caller } from '../auth/principal.js';
import { jobEnvelope } from '../queue/queues.js';
import { runJob } from '../queue/run-job.js';
import type { ExtractRequest, ExtractResult } from './types.js';
import type { SiteMapRequest } from '../crawl/site-map.js';

/** Name of the extract queue's jobs that map a site instead of extracting a page. */
export const MAP_JOB = 'map';

// Processing after the fetch (cleaning, storing) gets this much on top of the fetch time-out.
const PROCESSING_ALLOWANCE_S = 10;

export class ExtractService {
  constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    /** Aborted when the process shuts down: waits on jobs give up with SERVICE_UNAVAILABLE. */
    private readonly shutdownSignal: AbortSignal,
  ) {}

  /**
   * The page's content; EXTRACT_TIMEOUT when fetch and processing take longer than options.timeout
   * allows, counted from the request's arrival at `arrivedAt` (epoch ms).
   */
  async extract(caller: Caller, request: ExtractRequest, arrivedAt: number): Promise<ExtractResult> {
    checkRequestSelectors(request);
    const timeoutSeconds = request.options.timeout + PROCESSING_ALLOWANCE_S;
    return runJob<ExtractRequest, ExtractResult>(this.queue, this.events, jobEnvelope(caller, request), {
      deadline: arrivedAt + timeoutSeconds * 1000,
      onTimeout: () => new ApiError('EXTRACT_TIMEOUT', { timeout_seconds: timeoutSeconds }),
      signal: this.shutdownSignal,
    });
  }

  /**
   * A site's URLs from its sitemaps and the page's links (src/crawl/site-map.ts), read by a
   * worker like a page; EXTRACT_TIMEOUT past the request's time limit and the processing allowance.
   */
  async map(caller: Caller, request: SiteMapRequest, arrivedAt: number): Promise<string[]> {
    const timeoutSeconds = Math.ceil(request.timeoutMs / 1000) + PROCESSING_ALLOWANCE_S;
    return runJob<SiteMapRequest, string[]>(this.queue, this.events, jobEnvelope(caller, request), {
      deadline: arrivedAt + timeoutSeconds * 1000,
      onTimeout: () => new ApiError('EXTRACT_TIMEOUT', { timeout_seconds: timeoutSeconds }),
      signal: this.shutdownSignal,
      name: MAP_JOB,
    });
  }
}

/**
 * INVALID_PARAMETER naming the first selector of options.include_selectors or exclude_selectors
 * that is not CSS the selector engine reads: checked here, before the job is queued, so a bad
 * selector is the caller's 400 and never a worker's failure.
 */
function checkRequestSelectors(request: ExtractRequest): void {
  try {
    checkSelectors({ include: request.options.include_selectors ?? [], exclude: request.options.exclude_selectors ?? [] });
  } catch (error) {
    if (!(error instanceof SelectorError)) throw error;
    throw new ApiError('INVALID_PARAMETER', { parameter: error.parameter, reason: `is not a valid CSS selector (${error.reason})`, provided: error.selector }, error.message);
  }
}
