/**
 * Results of an upstream engine in the one shape search merges with the index's results, read
 * defensively from SearXNG's JSON: the instance aggregates third-party engines, so any field
 * may be missing, null or of another type, and a result that cannot be used is dropped rather
 * than allowed to fail the search.
 */
import { parseHttpUrl } from '../../fetch/guarded-request.js';
import { hostOf } from '../../index/domain.js';
import { isRecord } from '../../json-record.js';

export interface UpstreamResult {
  readonly url: string;
  readonly title: string;
  /** Plain text, whitespace collapsed; empty when the engine gave none. */
  readonly snippet: string;
  readonly publishedDate: Date | null;
  /** The engines behind SearXNG that returned it. */
  readonly engines: readonly string[];
  /** SearXNG's merged score (higher is better), when it gave one. */
  readonly score: number | null;
  /** Host name as the index keeps it (src/index/domain.ts). */
  readonly domain: string;
  /** Language tag the engine declared for the result, if any. */
  readonly language: string | null;
}

/** The usable results of a SearXNG answer, in its order, duplicates merged into the first. */
export function normaliseResults(raw: readonly unknown[]): UpstreamResult[] {
  const byKey = new Map<string, UpstreamResult>();
  for (const item of raw) {
    const result = normaliseResult(item);
    if (!result) continue;
    const key = dedupeKey(new URL(result.url));
    const first = byKey.get(key);
    byKey.set(key, first ? mergeDuplicate(first, result) : result);
  }
  return [...byKey.values()];
}

function normaliseResult(item: unknown): UpstreamResult | undefined {
  if (!isRecord(item) || typeof item.url !== 'string' || typeof item.title !== 'string') return undefined;
  const url = parseHttpUrl(item.url.trim());
  const title = collapse(item.title);
  if (!url || !url.hostname || title === '') return undefined;
  return {
    url: url.href,
    title,
    snippet: typeof item.content === 'string' ? collapse(item.content) : '',
    publishedDate: dateOf(item.publishedDate),
    engines: enginesOf(item),
    score: typeof item.score === 'number' && Number.isFinite(item.score) ? item.score : null,
    domain: hostOf(url.href),
    language: typeof item.language === 'string' && item.language.trim() !== '' ? item.language.trim() : null,
  };
}

/**
 * The same page reached by http or https, with or without "www.", a trailing slash or tracking
 * parameters is one result: engines disagree on these details for one page.
 */
function dedupeKey(url: URL): string {
  const host = url.hostname.toLowerCase().replace(/\.$/, '').replace(/^www\./, '');
  const params = [...url.searchParams].filter(([name]) => !/^(utm_|fbclid$|gclid$)/i.test(name));
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  const port = url.port ? `:${url.port}` : '';
  return `${host}${port}${url.pathname.replace(/\/+$/, '')}${query}`;
}

function mergeDuplicate(first: UpstreamResult, other: UpstreamResult): UpstreamResult {
  return {
    ...first,
    snippet: first.snippet || other.snippet,
    publishedDate: first.publishedDate ?? other.publishedDate,
    engines: [...new Set([...first.engines, ...other.engines])],
    score: first.score === null || other.score === null ? first.score ?? other.score : Math.max(first.score, other.score),
    language: first.language ?? other.language,
  };
}

function enginesOf(item: Record<string, unknown>): string[] {
  const names: unknown[] = [item.engine, ...(Array.isArray(item.engines) ? item.engines : [])];
  return [...new Set(names.filter((name): name is string => typeof name === 'string' && name.trim() !== '').map((name) => name.trim()))];
}

/** SearXNG writes ISO 8601, often without a zone; anything unparseable is no date. */
function dateOf(value: unknown): Date | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
