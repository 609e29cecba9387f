/**
 * The sources a claim is judged on. Without `sources`, the index's best documents for the claim
 * (as search finds them); with them, each URL read live through the shared fetcher and cleaned
 * in the pool (at most SOURCES_PARALLEL at once), and each bare domain searched in the index
 * restricted to that domain. A source that cannot be read is reported, never fatal.
 */
import pLimit from 'p-limit';
import type { KeyMode } from '../auth/keys.repository.js';
import { indexCandidates } from '../search/index-candidates.js';
import { readPage, type DeepSearchDeps } from '../search/deep-search.js';
import type { DocumentIndex } from '../index/types.js';
import { hostOf } from '../index/domain.js';
import type { SourceCandidate } from '../../workers/pool/rank-sources.js';
import type { ValidateRequest } from './types.js';

export interface EvidenceDeps extends DeepSearchDeps {
  index: DocumentIndex;
}

/** Pages of one validation fetched at once. */
const SOURCES_PARALLEL = 5;

export interface Evidence {
  /** Readable sources, in the order found (index rank, or the request's order). */
  sources: SourceCandidate[];
  failed: { source: string; reason: string }[];
  /** How many of the failed ones were still being read when `signal` ended the gathering. */
  cut: number;
}

/** How many sources a validation sets out to check: the given ones up to max_sources, else (none given) max_sources from the index. */
export function sourcesToCheck(request: ValidateRequest): number {
  return request.sources?.length ? Math.min(request.sources.length, request.options.max_sources) : request.options.max_sources;
}

export async function gatherEvidence(deps: EvidenceDeps, mode: KeyMode, request: ValidateRequest, signal: AbortSignal): Promise<Evidence> {
  const limit = request.options.max_sources;
  // The subject (context.domain) joins the index query: documents about it rank higher.
  const query = request.context?.domain ? `${request.claim} ${request.context.domain}` : request.claim;
  if (!request.sources?.length) {
    return { sources: await indexCandidates(deps.index, mode, query, { documents: limit }), failed: [], cut: 0 };
  }
  const failed: Evidence['failed'] = [];
  let cut = 0;
  const parallel = pLimit(SOURCES_PARALLEL);
  const found = await Promise.all(request.sources.slice(0, limit).map((source) => parallel(async (): Promise<SourceCandidate[]> => {
    try {
      if (!isUrl(source)) {
        const domain = source.toLowerCase().replace(/\.$/, '');
        const candidates = await indexCandidates(deps.index, mode, query, { documents: limit, domains: { include: [domain] } });
        if (candidates.length === 0) failed.push({ source, reason: 'nothing about the claim in the index for this domain' });
        return candidates;
      }
      return [await readPage(deps, stub(source), signal)];
    } catch (error) {
      if (signal.aborted) cut++;
      failed.push({ source, reason: signal.aborted ? 'not read before the time limit' : reasonOf(error) });
      return [];
    }
  })));
  return { sources: found.flat().slice(0, limit), failed, cut };
}

function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/** A page known by its URL only, as readPage fills it in. */
function stub(url: string): SourceCandidate {
  return {
    url, title: '', domain: hostOf(url), publishedAt: null, fetchedAt: 0, country: null,
    authority: null, passages: [], length: null, origin: 'live',
  };
}

function reasonOf(error: unknown): string {
  const details = (error as { details?: { reason?: unknown } }).details;
  if (typeof details?.reason === 'string') return details.reason;
  return error instanceof Error ? error.message : String(error);
}
