/**
 * The links a crawler follows from a page: every <a href> and <area href> of the raw HTML, not
 * only those of the cleaned main content (which leaves out navigation, menus and pagination,
 * exactly the links that reach the rest of a site). Also what the page asks of crawlers:
 * <base href>, rel="nofollow" on a link, and <meta name="robots"> noindex / nofollow.
 *
 * One linear pass over the start tags (TagReader), no tree: it runs on the worker's event loop
 * beside the fetch, so it must stay linear on any nesting, and only the first LINK_SCAN_CHARS of
 * a page are read, which bounds its cost on huge pages.
 */
import { TagReader } from '../html/tag-reader.js';

/** Links further down a page than this are not followed (navigation comes early). */
const LINK_SCAN_CHARS = 2 * 1024 * 1024;
/** Links followed per page at most, in document order. */
const MAX_LINKS_PER_PAGE = 1000;

export interface PageLinks {
  /** Absolute http(s) URLs without fragment, first occurrence each, in document order. */
  links: string[];
  /** <meta name="robots" content="noindex">: the page is not indexed. */
  noindex: boolean;
  /** <meta name="robots" content="nofollow">: its links are not followed. */
  nofollow: boolean;
}

export function pageLinks(html: string, pageUrl: string): PageLinks {
  let pageBase: URL;
  try {
    pageBase = new URL(pageUrl);
  } catch {
    return { links: [], noindex: false, nofollow: false };
  }
  const scan = new LinkScan(html.length > LINK_SCAN_CHARS ? html.slice(0, LINK_SCAN_CHARS) : html, pageBase);
  scan.read();
  const { hrefs, noindex, nofollow, base } = scan;

  const links = new Set<string>();
  if (!nofollow) {
    for (const href of hrefs) {
      const url = resolve(href, base);
      if (url && (url.protocol === 'http:' || url.protocol === 'https:')) links.add(url.href);
      if (links.size >= MAX_LINKS_PER_PAGE) break;
    }
  }
  return { links: [...links], noindex, nofollow };
}

/** What the start tags of a page say to a crawler. */
class LinkScan extends TagReader {
  readonly hrefs: string[] = [];
  noindex = false;
  nofollow = false;
  private baseSeen = false;

  /** The page's URL, until its first <base href> replaces it. */
  constructor(html: string, public base: URL) {
    super(html);
  }

  protected startTag(name: string, attribs: Record<string, string>): void {
    if (name === 'base' && !this.baseSeen && attribs.href !== undefined) {
      // Only the first <base href> counts (HTML's rule).
      this.baseSeen = true;
      const resolved = resolve(attribs.href, this.base);
      if (resolved) this.base = resolved;
    } else if ((name === 'a' || name === 'area') && attribs.href !== undefined && this.hrefs.length < MAX_LINKS_PER_PAGE * 4) {
      if (!/(?:^|\s)nofollow(?:\s|$)/i.test(attribs.rel ?? '')) this.hrefs.push(attribs.href);
    } else if (name === 'meta' && (attribs.name ?? '').toLowerCase() === 'robots') {
      const content = (attribs.content ?? '').toLowerCase();
      if (/\b(?:noindex|none)\b/.test(content)) this.noindex = true;
      if (/\b(?:nofollow|none)\b/.test(content)) this.nofollow = true;
    }
  }
}

/** X-Robots-Tag: the header form of the meta tag (noindex / nofollow / none). */
export function robotsHeader(value: string | undefined): { noindex: boolean; nofollow: boolean } {
  const text = (value ?? '').toLowerCase();
  return { noindex: /\b(?:noindex|none)\b/.test(text), nofollow: /\b(?:nofollow|none)\b/.test(text) };
}

function resolve(href: string, base: URL): URL | undefined {
  try {
    const url = new URL(href.trim(), base);
    url.hash = '';
    return url;
  } catch {
    return undefined;
  }
}
