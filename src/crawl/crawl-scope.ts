/**
 * Which discovered URLs a crawl takes: http(s) only, within the seeds' domains unless
 * same_domain is off, within max_depth, and through the include and exclude patterns. Seeds are
 * taken as given (their patterns would otherwise have to match the start page too).
 */
import { sha256Hex } from '../storage/hash.js';
import { parseHttpUrl } from '../fetch/guarded-request.js';
import type { CrawlRequest } from './crawl-options.js';
import { compilePattern, matchesAny, type UrlPattern } from './url-pattern.js';

/** URLs longer than this are not crawled: they would not fit the frontier's column. */
const MAX_URL_LENGTH = 2048;

export interface Candidate {
  url: string;
  urlHash: string;
  /** host[:port]: politeness and the driver's lanes go by it. */
  host: string;
  depth: number;
}

export class CrawlScope {
  private readonly domains: readonly string[];
  private readonly include: readonly UrlPattern[];
  private readonly exclude: readonly UrlPattern[];

  constructor(private readonly request: CrawlRequest) {
    // www.example.com and example.com name one site: the scope is the name without "www." and
    // every name under it.
    this.domains = [...new Set(request.urls.map((url) => new URL(url).hostname.replace(/^www\./, '')))];
    this.include = request.include.map(compilePattern);
    this.exclude = request.exclude.map(compilePattern);
  }

  /** A seed as a frontier entry; undefined when it is no crawlable URL. */
  seed(url: string): Candidate | undefined {
    const parsed = parseHttpUrl(url);
    return parsed ? candidate(parsed, 0) : undefined;
  }

  /** A discovered URL (a link, a sitemap entry) as a frontier entry, or undefined when the crawl does not take it. */
  admit(href: string, depth: number, base?: URL): Candidate | undefined {
    if (depth > this.request.max_depth) return undefined;
    const url = parseHttpUrl(href, base);
    if (!url || !this.inScope(url)) return undefined;
    return candidate(url, depth);
  }

  /** Whether a URL a fetch was redirected to still belongs to the crawl (patterns aside: the link that led there passed them). */
  inDomain(url: URL): boolean {
    if (!this.request.same_domain) return true;
    const host = url.hostname;
    return this.domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
  }

  private inScope(url: URL): boolean {
    if (!this.inDomain(url)) return false;
    if (this.include.length > 0 && !matchesAny(this.include, url)) return false;
    return !matchesAny(this.exclude, url);
  }
}

function candidate(url: URL, depth: number): Candidate | undefined {
  const href = url.href;
  if (href.length > MAX_URL_LENGTH) return undefined;
  return { url: href, urlHash: sha256Hex(href), host: url.host, depth };
}

