/**
 * A small text resource (robots.txt, a sitemap) fetched through the address guard: its body as
 * UTF-8 text when it answers 200, undefined otherwise. Crawls and site maps read sitemaps with it.
 */
import type { LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import { guardedRequest, parseHttpUrl } from '../fetch/guarded-request.js';
import { discardBody, readBodyPrefix } from '../fetch/read-body.js';

export interface TextFetchDeps {
  config: Config;
  /** The process-wide cap on outbound requests (FETCH_CONCURRENCY). */
  fetchLimit: LimitFunction;
}

export interface TextFetchOptions {
  /** Aborts the fetch, which then rejects with its reason. */
  signal: AbortSignal;
  /** Runs before each hop (a robots.txt check). */
  beforeHop?: (target: URL) => Promise<void>;
}

/** @throws what the fetch throws (FetchError, the signal's reason): callers decide whether a missing sitemap matters. */
export async function fetchText(deps: TextFetchDeps, url: string, options: TextFetchOptions): Promise<string | undefined> {
  const target = parseHttpUrl(url);
  if (!target) return undefined;
  const fetch = deps.config.fetch;
  const { value } = await guardedRequest(target, url, {
    userAgent: fetch.userAgent,
    accept: 'application/xml,text/xml,text/plain;q=0.9,*/*;q=0.5',
    maxRedirects: fetch.maxRedirects,
    allowedCidrs: fetch.allowedCidrs,
    perHostConcurrency: fetch.perHostConcurrency,
    processSlots: deps.fetchLimit,
    signal: options.signal,
    ...(options.beforeHop ? { beforeHop: options.beforeHop } : {}),
  }, async (response) => {
    if (response.status !== 200) {
      discardBody(response.body);
      return undefined;
    }
    const body = await readBodyPrefix(response.body, response.headers['content-encoding'], fetch.maxBytes, options.signal);
    return body.toString('utf8');
  });
  return value;
}
