/**
 * What a crawl was asked to do: the body of POST /v1/crawl after validation against
 * schemas/crawl-create.request.json (defaults applied; the schema holds the limits).
 */

export interface CrawlRequest {
  /** Seed URLs: fetched first (depth 0), whatever the include and exclude patterns say. */
  urls: string[];
  /** Pages the crawl fetches at most (URLs refused by robots.txt do not count). */
  max_pages: number;
  /** Links followed from a seed: 0 fetches the seeds only; sitemap URLs count as depth 1. */
  max_depth: number;
  /** URL patterns (see url-pattern.ts); when given, a discovered URL must match one. */
  include: string[];
  /** URL patterns; a discovered URL matching one is left out. */
  exclude: string[];
  /** Only the seeds' domains and their subdomains; false follows links to any host. */
  same_domain: boolean;
  /** Reads the sitemaps robots.txt names, else /sitemap.xml, of each seed's site. */
  sitemaps: boolean;
  /** The crawl stops (completed, stopped_reason max_duration) once it has run this long, in seconds. */
  max_duration: number;
}
