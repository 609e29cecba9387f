/**
 * A site's URLs without crawling it (Firecrawl's map): the URLs its sitemaps list and the links
 * of the page asked about, within the site, in that order, each once. Runs in a worker, as the
 * body of a `map` job on the extract queue: one page and a few sitemap files are fetched.
 */
import { createFetchSignal } from '../fetch/fetch-signal.js';
import { measuredFetch, type PageFetchDeps } from '../page/page-fetch.js';
import { decodeBody } from '../page/decode-body.js';
import { pageLinks } from './page-links.js';
import { sitemapUrls } from './sitemaps.js';
import { fetchText, type TextFetchDeps } from './fetch-text.js';

export interface SiteMapRequest {
  url: string;
  /** include: sitemaps and the page's links; only: sitemaps alone; skip: the page's links alone. */
  sitemap: 'include' | 'only' | 'skip';
  /** Subdomains of the page's host count as the site. */
  includeSubdomains: boolean;
  /** Query strings dropped, so that URLs differing only in them are one. */
  ignoreQueryParameters: boolean;
  /** URLs containing any of these words (case-insensitive) first. */
  search?: string;
  limit: number;
  timeoutMs: number;
}

export type SiteMapDeps = PageFetchDeps & TextFetchDeps;

/** @throws ApiError when the page itself cannot be fetched (sitemaps are optional). */
export async function mapSite(deps: SiteMapDeps, request: SiteMapRequest): Promise<string[]> {
  const deadline = createFetchSignal(request.timeoutMs);
  try {
    let base = request.url;
    let links: string[] = [];
    if (request.sitemap !== 'only') {
      const page = await measuredFetch(deps, request.url, { timeoutMs: request.timeoutMs, respectRobots: false, signal: deadline.signal });
      base = page.finalUrl;
      if (page.kind === 'html') links = pageLinks(decodeBody(page.body, page.charset), page.finalUrl).links;
    }
    const site = siteHost(new URL(base).hostname);
    const within = (url: URL) => {
      const host = url.hostname.toLowerCase();
      return siteHost(host) === site || (request.includeSubdomains && host.endsWith(`.${site}`));
    };
    const listed = request.sitemap === 'skip'
      ? []
      : await sitemapUrls(new URL(base).origin, (url) => fetchText(deps, url, { signal: deadline.signal }).catch(() => undefined), request.limit, within);

    const seen = new Set<string>();
    const urls: string[] = [];
    for (const candidate of [...(request.sitemap === 'only' ? [] : [base]), ...listed, ...links]) {
      const url = normalised(candidate, request.ignoreQueryParameters);
      if (!url || !within(url) || seen.has(url.href)) continue;
      seen.add(url.href);
      urls.push(url.href);
    }
    return bySearch(urls, request.search).slice(0, request.limit);
  } finally {
    deadline.dispose();
  }
}

/** A host without its leading www., so that example.com and www.example.com are one site. */
function siteHost(host: string): string {
  return host.toLowerCase().replace(/^www\./, '');
}

function normalised(candidate: string, dropQuery: boolean): URL | undefined {
  try {
    const url = new URL(candidate);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    if (dropQuery) url.search = '';
    return url;
  } catch {
    return undefined;
  }
}

/** The URLs containing a word of the search first, each group in its order. */
function bySearch(urls: string[], search: string | undefined): string[] {
  const words = (search ?? '').toLowerCase().split(/\s+/).filter((w) => w.length > 0);
  if (words.length === 0) return urls;
  const matches = (url: string) => words.some((w) => url.toLowerCase().includes(w));
  return [...urls.filter(matches), ...urls.filter((url) => !matches(url))];
}
