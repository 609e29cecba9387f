/**
 * The sources a claim is judged on. Without `sources`, the index's best documents for the claim
 * (as search finds them) and, when an upstream engine is configured, the engine's results, each
 * page read live; with them, each URL read live as deep search reads pages (fetched and cleaned
 * by the page reader, at most SOURCES_PARALLEL at once), and each bare domain searched in the
 * index restricted to that domain. A source that cannot be read is reported, never fatal.
 */
import pLimit from 'p-limit';
import type { Mode } from '../mode.js';
import { indexCandidates } from '../search/index-candidates.js';
import { readLiveCandidate, type DeepSearchDeps } from '../search/deep-search.js';
import type { DocumentIndex } from '../index/types.js';
import { hostOf } from '../index/domain.js';
import { upstreamCandidate } from '../search/upstream-candidates.js';
import type { SearxngClient, SearxngFailure } from '../search/upstream/searxng.js';
import type { SourceCandidate } from '../ranking/rank-sources.js';
import { readFailure } from '../page/read-failure.js';
import type { FailedSource, ValidateRequest } from './types.js';

export interface EvidenceDeps extends DeepSearchDeps {
  index: DocumentIndex;
  /** The upstream engine, when one is configured (SEARXNG_URL). */
  searxng?: SearxngClient | undefined;
}

/** Pages of one validation fetched at once. */
const SOURCES_PARALLEL = 5;

/**
 * Index documents ranked for a claim before the first max_sources are taken, as search ranks
 * them (run-search.ts: the ranking was tuned on this many candidates).
 */
const CANDIDATE_DOCUMENTS = 30;

export interface Evidence {
  /** Readable sources, in the order found (index rank, or the request's order). */
  sources: SourceCandidate[];
  /**
   * For each source, the ranking it comes from (judge-claim.ts, `rankings`): null for a page the
   * client named by URL, the index of the bare domain in the request for that domain's documents,
   * and 0 for all of a search without sources (the index's and the engine's, interleaved).
   */
  rankings: (number | null)[];
  failed: FailedSource[];
  /** How many of the failed ones were still being read when `signal` ended the gathering. */
  cut: number;
  /** How the upstream engine answered, when it was asked (a claim checked without `sources`). */
  upstream?: 'answered' | SearxngFailure;
}

/** How many sources a validation sets out to check: the given ones up to max_sources, else (none given) max_sources from the index. */
export function sourcesToCheck(request: ValidateRequest): number {
  return request.sources?.length ? Math.min(request.sources.length, request.options.max_sources) : request.options.max_sources;
}

export async function gatherEvidence(deps: EvidenceDeps, mode: Mode, request: ValidateRequest, signal: AbortSignal): Promise<Evidence> {
  const limit = request.options.max_sources;
  // The subject (context.domain) joins the index query: documents about it rank higher.
  const query = request.context?.domain ? `${request.claim} ${request.context.domain}` : request.claim;
  if (!request.sources?.length) return searchEvidence(deps, mode, query, limit, signal);
  const reads = sourceReads(signal);
  const found = await Promise.all(request.sources.slice(0, limit).map((source, k) => reads.read(source, async () => {
    if (isUrl(source)) return [{ candidate: await readLiveCandidate(deps, stub(source), signal), ranking: null }];
    const domain = source.toLowerCase().replace(/\.$/, '');
    const candidates = await rankedIndexCandidates(deps, mode, query, limit, { include: [domain] });
    if (candidates.length === 0) reads.failed.push({ source, code: 'NO_RESULTS_FOUND', reason: 'nothing about the claim in the index for this domain' });
    return candidates.map((candidate) => ({ candidate, ranking: k }));
  }, [] as { candidate: SourceCandidate; ranking: number | null }[])));
  const taken = found.flat().slice(0, limit);
  return { sources: taken.map((t) => t.candidate), rankings: taken.map((t) => t.ranking), failed: reads.failed, cut: reads.cut() };
}

/**
 * The index's documents and the engine's results for the claim, taken in turn (index first,
 * each in its own order, the engine's without those the index holds) up to `limit`. An engine
 * result is judged on its page, read live: its snippet alone is too little to judge a claim by.
 * The engine failing leaves the index's documents; it being cut off by the deadline with
 * nothing from the index is a time-out.
 */
async function searchEvidence(deps: EvidenceDeps, mode: Mode, query: string, limit: number, signal: AbortSignal): Promise<Evidence> {
  const [indexed, outcome] = await Promise.all([
    rankedIndexCandidates(deps, mode, query, limit),
    deps.searxng?.search({ query, signal }),
  ]);
  if (!outcome) return { sources: indexed, rankings: indexed.map(() => 0), failed: [], cut: 0 };
  if (!outcome.ok) {
    const cut = outcome.reason === 'aborted' && indexed.length === 0 ? limit : 0;
    return { sources: indexed, rankings: indexed.map(() => 0), failed: [], cut, upstream: outcome.reason };
  }
  const known = new Set(indexed.map((c) => c.url));
  const now = new Date();
  const found = outcome.results.filter((r) => !known.has(r.url)).map((r) => upstreamCandidate(r, now));
  const order: SourceCandidate[] = [];
  for (let i = 0; order.length < limit && (i < indexed.length || i < found.length); i++) {
    if (i < indexed.length) order.push(indexed[i]!);
    if (i < found.length && order.length < limit) order.push(found[i]!);
  }
  const reads = sourceReads(signal);
  const sources = await Promise.all(order.map((candidate) => (candidate.origin === 'upstream'
    ? reads.read(candidate.url, () => readLiveCandidate(deps, candidate, signal), undefined)
    : candidate)));
  const read = sources.filter((s) => s !== undefined);
  return { sources: read, rankings: read.map(() => 0), failed: reads.failed, cut: reads.cut(), upstream: 'answered' };
}

/**
 * The index's documents for a claim as search ranks them (rank-sources.ts: the whole document,
 * its title and its best passage, not the best passage alone as the index orders them), the
 * first `limit`, each copy right after the document it copies (judge-claim.ts counts copies
 * once and names them). No relevance floor: what the index holds closest to the claim is
 * judged, and the stance model says whether it speaks of it.
 */
async function rankedIndexCandidates(deps: EvidenceDeps, mode: Mode, query: string, limit: number, domains?: { include: string[] }): Promise<SourceCandidate[]> {
  const { weights, candidates } = await indexCandidates(deps.index, mode, query, { documents: Math.max(limit, CANDIDATE_DOCUMENTS), ...(domains ? { domains } : {}) });
  if (candidates.length === 0) return [];
  const ranked = await deps.pool.run('rankSources', {
    query,
    language: weights.language,
    termWeights: weights.termWeights,
    avgPassageLength: weights.avgPassageLength,
    avgDocumentLength: weights.avgDocumentLength,
    candidates,
    now: Date.now(),
    recency: null,
    country: null,
    authority: [...deps.config.search.authority],
    maxPerDomain: deps.config.search.maxPerDomain,
    limit,
    floor: 0,
  });
  return ranked.flatMap((r) => [r.candidate, ...r.duplicates]).slice(0, limit).map((i) => candidates[i]!);
}

/**
 * The reads of one validation's sources, at most SOURCES_PARALLEL at once. A read that fails
 * is recorded with why, and counted as cut when the deadline stopped it; it answers `none`.
 */
function sourceReads(signal: AbortSignal) {
  const failed: Evidence['failed'] = [];
  const parallel = pLimit(SOURCES_PARALLEL);
  let cut = 0;
  return {
    failed,
    cut: () => cut,
    read<T>(source: string, work: () => Promise<T>, none: T): Promise<T> {
      return parallel(async () => {
        try {
          return await work();
        } catch (error) {
          if (signal.aborted) cut++;
          failed.push(signal.aborted ? { source, code: 'VALIDATION_TIMEOUT', reason: 'not read before the time limit' } : readFailure(source, error));
          return none;
        }
      });
    },
  };
}

function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/** A page known by its URL only, as readLiveCandidate fills it in. */
function stub(url: string): SourceCandidate {
  return {
    url, title: '', domain: hostOf(url), publishedAt: null, fetchedAt: 0, country: null,
    authority: null, passages: [], length: null, origin: 'live',
  };
}
