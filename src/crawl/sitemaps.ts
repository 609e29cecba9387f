/**
 * Sitemap discovery for a crawl: the `Sitemap:` lines of a site's robots.txt, or /sitemap.xml
 * when robots.txt names none; sitemap index files are followed. Only <loc> values are read.
 * Gzipped sitemaps (.xml.gz served as application/gzip) are not read.
 */
import { Parser } from 'htmlparser2';

/** Sitemap files read per site, index files included. */
const MAX_SITEMAP_FILES = 20;

/** Fetches a small text resource; undefined when it is missing or unreadable (sitemaps are optional). */
export type TextFetcher = (url: string) => Promise<string | undefined>;

/**
 * The page URLs a site's sitemaps list, in their order, at most `limit`.
 * @param allowed whether a sitemap file's URL may be fetched (the crawl's domains).
 */
export async function sitemapUrls(origin: string, fetchText: TextFetcher, limit: number, allowed: (url: URL) => boolean): Promise<string[]> {
  const robots = await fetchText(`${origin}/robots.txt`);
  const named = robots === undefined ? [] : robotsSitemaps(robots);
  const pending = named.length > 0 ? named : [`${origin}/sitemap.xml`];
  const seen = new Set<string>();
  const urls: string[] = [];
  let files = 0;
  while (pending.length > 0 && files < MAX_SITEMAP_FILES && urls.length < limit) {
    const next = pending.shift()!;
    if (seen.has(next) || !isAllowed(next, allowed)) continue;
    seen.add(next);
    files++;
    const text = await fetchText(next);
    if (text === undefined) continue;
    const parsed = parseSitemap(text);
    urls.push(...parsed.urls.slice(0, limit - urls.length));
    pending.push(...parsed.sitemaps);
  }
  return urls;
}

/** The URLs of robots.txt's `Sitemap:` lines (they stand outside the user-agent groups). */
export function robotsSitemaps(robotsTxt: string): string[] {
  const found: string[] = [];
  for (const line of robotsTxt.split(/\r\n|\r|\n/)) {
    const match = /^\s*sitemap\s*:\s*(\S+)/i.exec(line);
    if (match) found.push(match[1]!);
  }
  return found;
}

/** <loc> of each <url> of a urlset, and of each <sitemap> of a sitemap index. */
export function parseSitemap(xml: string): { urls: string[]; sitemaps: string[] } {
  const urls: string[] = [];
  const sitemaps: string[] = [];
  const open: string[] = [];
  let loc: string | undefined;
  const parser = new Parser({
    onopentag(name) {
      const local = localName(name);
      open.push(local);
      if (local === 'loc') loc = '';
    },
    ontext(text) {
      if (loc !== undefined) loc += text;
    },
    onclosetag(name) {
      const local = localName(name);
      open.pop();
      if (local !== 'loc' || loc === undefined) return;
      const value = loc.trim();
      loc = undefined;
      const parent = open[open.length - 1];
      if (value === '') return;
      if (parent === 'url') urls.push(value);
      else if (parent === 'sitemap') sitemaps.push(value);
    },
  }, { xmlMode: true, decodeEntities: true });
  parser.end(xml);
  return { urls, sitemaps };
}

/** "image:loc" and "loc" alike: sitemaps come with and without namespace prefixes. */
function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1).toLowerCase();
}

function isAllowed(url: string, allowed: (url: URL) => boolean): boolean {
  try {
    return allowed(new URL(url));
  } catch {
    return false;
  }
}
