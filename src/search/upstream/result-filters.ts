/**
 * The search request's filters applied again to an upstream engine's results: SearXNG passes
 * language and time range on to engines that may ignore them, and has no domain filter at all,
 * so its results must not be trusted to obey the request.
 */
import { withinDomain } from '../../index/domain.js';
import type { UpstreamResult } from './upstream-result.js';

export type Recency = 'day' | 'week' | 'month' | 'year';

export interface ResultFilters {
  /** Keep only these domains and their subdomains (none given: every domain). */
  readonly includeDomains?: readonly string[];
  /** Drop these domains and their subdomains. */
  readonly excludeDomains?: readonly string[];
  readonly recency?: Recency;
  /** A language code such as "en"; compared with the result's primary language subtag. */
  readonly language?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * The longest a period can be (a 31-day month, a leap year): the re-check only removes what an
 * engine plainly should not have returned, never what its own calendar counts as inside.
 */
export const RECENCY_MS: Readonly<Record<Recency, number>> = { day: DAY_MS, week: 7 * DAY_MS, month: 31 * DAY_MS, year: 366 * DAY_MS };

/**
 * The results that pass every filter, in their order. A result without a published date passes
 * recency (it was found now, and search judges undated pages by their fetch date), and one
 * without a declared language passes the language filter: only evidence against a result drops it.
 */
export function applyResultFilters<T extends UpstreamResult>(results: readonly T[], filters: ResultFilters, now: Date): T[] {
  const include = filters.includeDomains ?? [];
  const exclude = filters.excludeDomains ?? [];
  const oldest = filters.recency === undefined ? undefined : now.getTime() - RECENCY_MS[filters.recency];
  const language = filters.language === undefined ? undefined : primarySubtag(filters.language);
  return results.filter((result) => {
    if (include.length > 0 && !include.some((domain) => withinDomain(result.domain, domain))) return false;
    if (exclude.some((domain) => withinDomain(result.domain, domain))) return false;
    if (oldest !== undefined && result.publishedDate !== null && result.publishedDate.getTime() < oldest) return false;
    if (language !== undefined && result.language !== null && primarySubtag(result.language) !== language) return false;
    return true;
  });
}

/** "en-US", "en_GB", "EN" → "en". */
function primarySubtag(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/)[0]!;
}
