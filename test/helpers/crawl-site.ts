/**
 * A generated web site on 127.0.0.1 for crawl tests and the crawl benchmark: pages linked as a
 * binary tree from the home page (page i links to 2i+1 and 2i+2, so page i is at depth
 * floor(log2(i+1))), navigation links on every page, a /private/ part that robots.txt forbids
 * and every page links to, a sitemap, and a log of every request the server received.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { prng } from './prng.js';

export interface CrawlSiteOptions {
  /** Public pages, the home page included. */
  pages: number;
  /** Crawl-delay of robots.txt in seconds; none when undefined. */
  crawlDelay?: number;
  /** Serve /sitemap.xml (listing every public page, an orphan page and a few private ones) and name it in robots.txt. */
  sitemap?: boolean;
  /** Words every page carries, so that pages of different runs are never near-duplicates of each other. */
  runWords: string;
  /** Milliseconds each page takes to answer. */
  latencyMs?: number;
}

export interface SiteRequest {
  path: string;
  /** When the request arrived (performance.now()). */
  at: number;
}

export interface CrawlSite {
  url: string;
  /** Every request, in arrival order. */
  requests: SiteRequest[];
  /** Paths of every public page (the orphan one included when there is a sitemap). */
  publicPaths: string[];
  /** Depth of a public page path from the home page (the orphan page: 1, through the sitemap). */
  depthOf(path: string): number;
  close(): Promise<void>;
}

const WORDS = ('river mountain engine library harbor garden signal market winter lantern orchard bridge canyon meadow ' +
  'compass pattern theory kettle voyage summit archive pioneer glacier circuit thunder velvet marble harvest ' +
  'beacon falcon ember prairie quartz saddle timber walnut zephyr anchor').split(' ');

export const pagePath = (i: number) => (i === 0 ? '/' : `/p/${i}`);

export async function startCrawlSite(options: CrawlSiteOptions): Promise<CrawlSite> {
  const requests: SiteRequest[] = [];
  const publicPaths = Array.from({ length: options.pages }, (_, i) => pagePath(i));
  if (options.sitemap) publicPaths.push('/orphan');
  let origin = '';

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push({ path, at: performance.now() });
    const send = (status: number, type: string, body: string) => {
      const write = () => {
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      };
      if (options.latencyMs) setTimeout(write, options.latencyMs);
      else write();
    };
    if (path === '/robots.txt') {
      const lines = ['User-agent: *', 'Disallow: /private/'];
      if (options.crawlDelay !== undefined) lines.push(`Crawl-delay: ${options.crawlDelay}`);
      if (options.sitemap) lines.push('', `Sitemap: ${origin}/sitemap.xml`);
      send(200, 'text/plain', `${lines.join('\n')}\n`);
    } else if (path === '/sitemap.xml' && options.sitemap) {
      const locs = [...publicPaths, '/private/0', '/private/1'].map((p) => `<url><loc>${origin}${p}</loc></url>`);
      send(200, 'application/xml', `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.join('')}</urlset>`);
    } else if (path === '/orphan' && options.sitemap) {
      send(200, 'text/html; charset=utf-8', page(options, -1, 'Orphan page', []));
    } else {
      const match = path === '/' ? 0 : Number(/^\/p\/(\d+)$/.exec(path)?.[1] ?? /^\/private\/(\d+)$/.exec(path)?.[1] ?? NaN);
      if (!Number.isInteger(match) || match >= options.pages) {
        send(404, 'text/plain', 'not found');
        return;
      }
      const children = [2 * match + 1, 2 * match + 2].filter((c) => c < options.pages).map(pagePath);
      send(200, 'text/html; charset=utf-8', page(options, path.startsWith('/private/') ? options.pages + match : match, `Page ${path}`, children));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    requests,
    publicPaths,
    depthOf: (path) => (path === '/orphan' ? 1 : path === '/' ? 0 : Math.floor(Math.log2(Number(path.slice(3)) + 1))),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** An article page: navigation (home, and the private account page robots.txt forbids), prose, links to its children. */
function page(options: CrawlSiteOptions, seed: number, title: string, children: string[]): string {
  const random = prng(seed + 1000);
  const word = () => WORDS[Math.floor(random() * WORDS.length)]!;
  const sentence = () => {
    const words = Array.from({ length: 9 + Math.floor(random() * 6) }, word);
    return `${words[0]!.charAt(0).toUpperCase()}${words.join(' ').slice(1)}.`;
  };
  const paragraphs = Array.from({ length: 4 }, () => `<p>${Array.from({ length: 4 }, sentence).join(' ')}</p>`);
  const private_ = seed >= 0 && seed < options.pages ? `<a href="/private/${seed}">Account</a>` : '';
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body>
<nav><a href="/">Home</a> ${private_}</nav>
<article><h1>${title}</h1>${paragraphs.join('\n')}
<p>Field notes ${seed}: ${options.runWords}.</p>
<ul>${children.map((c) => `<li><a href="${c}">Next ${c}</a></li>`).join('')}</ul></article>
<footer>Generated site</footer></body></html>`;
}
