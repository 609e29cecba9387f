/**
 * The crawler against a generated local site: 2,000 pages linked as a tree with navigation on
 * every page, a sitemap (listing every page, an orphan page only it names, and two forbidden
 * pages), a robots.txt that forbids /private/ (every page links to its own /private/ page) and
 * sets Crawl-delay: 0.01. API, workers and a 2-thread pool run in this process; the crawl goes
 * through POST /v1/crawl with a sandbox key and is polled until it ends by itself. Prints pages
 * allowed and indexed, duplicates, forbidden pages fetched, whether the crawl ended by itself,
 * time and pages per second. Not a test: nothing is asserted. The pages are removed from the
 * sandbox index at the end.
 *
 *   npm run build && node dist/bench/index/crawl.js [pages=2000]
 */
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { startService } from '../../src/service.js';
import { call, testEnv } from '../../test/helpers/service.js';
import { startCrawlSite } from '../../test/helpers/crawl-site.js';

const PAGES = Number(process.argv[2] ?? 2000);
const CRAWL_DELAY_S = 0.01;
const TIME_LIMIT_MS = 30 * 60 * 1000;

const site = await startCrawlSite({ pages: PAGES, crawlDelay: CRAWL_DELAY_S, sitemap: true, runWords: randomUUID() });
const config = loadConfig(testEnv({ POOL_SIZE: '2', RATE_LIMIT_PER_MINUTE: '1000000' }));
const service = await startService(config, 'all', createLogger('silent', 'all'));
const key = (await call(service.url, '/v1/auth/keys', { body: { name: 'bench-crawl', mode: 'test' } })).json.data.key as string;

const started = performance.now();
const start = await call(service.url, '/v1/crawl', { body: { urls: [`${site.url}/`], max_pages: 10_000, max_depth: 20 }, key });
if (start.status !== 202) throw new Error(`POST /v1/crawl: ${start.status} ${JSON.stringify(start.json)}`);
const id = start.json.data.crawl_id as string;
let report = start.json.data;
while (report.state === 'queued' || report.state === 'running') {
  if (performance.now() - started > TIME_LIMIT_MS) break;
  await new Promise((resolve) => setTimeout(resolve, 500));
  report = (await call(service.url, `/v1/crawl/${id}`, { key })).json.data;
}
const seconds = (performance.now() - started) / 1000;

const pageRequests = site.requests.filter((r) => r.path !== '/robots.txt' && r.path !== '/sitemap.xml');
const perPath = new Map<string, number>();
for (const r of pageRequests) perPath.set(r.path, (perPath.get(r.path) ?? 0) + 1);
const duplicates = [...perPath.values()].reduce((sum, n) => sum + n - 1, 0);
const forbidden = pageRequests.filter((r) => r.path.startsWith('/private/')).length;
const urls = site.publicPaths.map((p) => `${site.url}${p}`);
const inIndex = (await call(service.url, '/v1/index/documents', { method: 'DELETE', body: { urls }, key })).json.data.deleted as number;

console.log(`crawl of a generated site: ${PAGES} pages + 1 orphan in the sitemap, /private/ forbidden, Crawl-delay ${CRAWL_DELAY_S} s, pool 2 threads, node ${process.version}`);
console.log(`state ${report.state}${report.stopped_reason ? ` (${report.stopped_reason})` : ''}; ended by itself: ${report.state === 'completed' && !report.stopped_reason ? 'yes' : 'no'}`);
console.log(`pages allowed ${site.publicPaths.length}, indexed ${report.pages.indexed} (documents in the index: ${inIndex}), failed ${report.pages.failed}, skipped by robots.txt ${report.pages.skipped_robots}`);
console.log(`duplicate page fetches ${duplicates}; forbidden pages fetched ${forbidden}; requests to the site ${site.requests.length}`);
console.log(`time ${seconds.toFixed(1)} s, ${(report.pages.fetched / seconds).toFixed(1)} pages/s`);
await service.close();
await site.close();
