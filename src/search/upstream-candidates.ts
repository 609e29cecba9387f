/**
 * The upstream engine's share of a search: its results, with the request's filters applied
 * again, as candidates ranked together with the index's. The engine is optional and fallible:
 * whatever it does, search goes on, and the outcome only says whether the deadline cut it off.
 */
import type { SearchRequest } from './types.js';
import type { SearxngClient } from './upstream/searxng.js';
import { applyResultFilters } from './upstream/result-filters.js';
import type { UpstreamResult } from './upstream/upstream-result.js';
import type { SourceCandidate } from '../ranking/rank-sources.js';

export interface UpstreamCandidates {
  candidates: SourceCandidate[];
  /** The search's deadline ended the call before the engine answered. */
  cut: boolean;
}

export async function upstreamCandidates(client: SearxngClient | undefined, request: SearchRequest, signal: AbortSignal, now: Date): Promise<UpstreamCandidates> {
  if (!client) return { candidates: [], cut: false };
  const outcome = await client.search({
    query: request.query,
    ...(request.language ? { language: request.language } : {}),
    ...(request.recency ? { timeRange: request.recency } : {}),
    signal,
  });
  if (!outcome.ok) return { candidates: [], cut: outcome.reason === 'aborted' };
  const kept = applyResultFilters(outcome.results, {
    includeDomains: request.domain_filter?.include,
    excludeDomains: request.domain_filter?.exclude,
    recency: request.recency,
    language: request.language,
  }, now);
  return {
    cut: false,
    candidates: kept.map((result) => upstreamCandidate(result, now)),
  };
}

/** An engine's result as a candidate: its snippet is the only passage until the page is read. */
export function upstreamCandidate(result: UpstreamResult, now: Date): SourceCandidate {
  return {
    url: result.url,
    title: result.title,
    domain: result.domain,
    publishedAt: result.publishedDate?.getTime() ?? null,
    // Found now: an undated result is judged by this moment, as recency promises.
    fetchedAt: now.getTime(),
    country: null,
    authority: null,
    passages: result.snippet ? [{ text: result.snippet, score: null, first: true }] : [],
    length: null,
    origin: 'upstream',
  };
}
