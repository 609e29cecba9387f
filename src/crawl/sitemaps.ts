/**
 * Sitemap discovery for a crawl: the `Sitemap:` lines of a site's robots.txt, or /sitemap.xml
 * when robots.txt names none; sitemap index files are followed. Only <loc> values are read.
 * Gzipped sitemaps (.xml.gz served as application/gzip) are not read.
 */
import { TagReader } from '../html/tag-reader.js';

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
  const reader = new SitemapReader(xml);
  reader.read();
  return { urls: reader.urls, sitemaps: reader.sitemaps };
}

/**
 * One linear pass (a sitemap comes from the site and is read on the worker's event loop). An end
 * tag closes the elements opened after its own, as XML parsers forgive it; one for nothing open
 * is ignored.
 */
class SitemapReader extends TagReader {
  readonly urls: string[] = [];
  readonly sitemaps: string[] = [];
  private readonly open: string[] = [];
  /** How many elements of each name are open, so an end tag for nothing open costs nothing. */
  private readonly openCount = new Map<string, number>();
  private loc: string | undefined;

  constructor(xml: string) {
    super(xml, true);
  }

  protected startTag(name: string, _attribs: Record<string, string>, selfClosing: boolean): void {
    // An empty <loc/> names nothing; other empty elements hold nothing to read.
    if (selfClosing) return;
    const local = localName(name);
    this.open.push(local);
    this.openCount.set(local, (this.openCount.get(local) ?? 0) + 1);
    if (local === 'loc') this.loc = '';
  }

  override ontext(start: number, end: number): void {
    if (this.loc !== undefined) this.loc += this.html.slice(start, end);
  }

  override ontextentity(codepoint: number): void {
    if (this.loc !== undefined) this.loc += String.fromCodePoint(codepoint);
  }

  override oncdata(start: number, endIndex: number, endOffset: number): void {
    if (this.loc !== undefined) this.loc += this.html.slice(start, endIndex - endOffset);
  }

  override onclosetag(start: number, end: number): void {
    const local = localName(this.html.slice(start, end));
    if (!this.openCount.get(local)) return;
    while (this.closeInnermost() !== local);
  }

  /** Closes the innermost open element, taking the URL of a <loc>; returns its name. */
  private closeInnermost(): string {
    const local = this.open.pop()!;
    this.openCount.set(local, this.openCount.get(local)! - 1);
    if (local === 'loc' && this.loc !== undefined) {
      const value = this.loc.trim();
      this.loc = undefined;
      const parent = this.open[this.open.length - 1];
      if (value !== '' && parent === 'url') this.urls.push(value);
      else if (value !== '' && parent === 'sitemap') this.sitemaps.push(value);
    }
    return local;
  }
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
