import { expect } from 'chai';
import { Firecrawl, SdkError } from '@mendable/firecrawl-js';
import { call } from './helpers/service.js';
import { appShell, storyScript } from './helpers/client-rendered.js';
import { html, raw } from './helpers/page-server.js';
import { articlePage, auditEntries, startCompatSite, type CompatSite } from './helpers/compat-site.js';

/**
 * The Firecrawl-compatible endpoints driven by Firecrawl's own client, @mendable/firecrawl-js
 * (the v2 API), given the service's /compat/firecrawl as its apiUrl: scrape, batch scrape,
 * crawl, map and search over a local site whose articles the test loads into the index.
 */
describe('compat: Firecrawl client', function () {
  this.timeout(90_000);
  let s: CompatSite;
  let firecrawl: Firecrawl;
  let refused: Firecrawl;
  const docs = (n: number) => ({ path: `/docs/${n}`, title: `Guide part ${n}`, paragraphs: [] as string[] });

  before(async () => {
    const marker = `fc${Date.now().toString(36)}`;
    const pages = [1, 2, 3].map((n) => ({
      ...docs(n),
      paragraphs: [`Part ${n} of the ${marker} guide explains how to keep a sourdough starter alive through the winter months.`, `Step ${n}: feed it flour and water every ${n + 1} days and keep it somewhere warm.`],
    }));
    s = await startCompatSite({
      '/docs/': html(articlePage({ path: '/docs/', title: 'Guide', paragraphs: [`The ${marker} guide in three parts.`] }, '<ul><li><a href="/docs/1">Part 1</a></li><li><a href="/docs/2">Part 2</a></li></ul>')),
      ...Object.fromEntries(pages.map((p) => [p.path, html(articlePage(p, p.path === '/docs/1' ? '<p><a href="/docs/2">Next</a> <a href="/tea">Tea</a></p>' : ''))])),
      '/robots.txt': html('User-agent: *\nAllow: /\n', 200, 'text/plain'),
      '/app': html(appShell('Kiln log', '/app.js')),
      '/app.js': raw(storyScript("'/api/story'"), { 'content-type': 'text/javascript' }),
      '/api/story': raw(JSON.stringify({ title: 'Kiln log', paragraphs: [`The ${marker} kiln was fired to 1,240 degrees over nine hours and cooled slowly overnight.`] }), { 'content-type': 'application/json' }),
      '/sitemap.xml': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${['/docs/3', '/tea'].map((p) => `<url><loc>${s.url(p)}</loc></url>`).join('')}</urlset>`);
      },
    });
    firecrawl = new Firecrawl({ apiKey: s.key, apiUrl: `${s.service.url}/compat/firecrawl` });
    refused = new Firecrawl({ apiKey: s.monitorKey, apiUrl: `${s.service.url}/compat/firecrawl`, maxRetries: 1 });
  });
  after(() => s?.close());

  it('scrapes a page as markdown, html and links', async () => {
    const page = await firecrawl.scrape(s.url('/tea'), { formats: ['markdown', 'html', 'links'] });
    expect(page.markdown).to.include('Boiling water scorches the leaves');
    expect(page.html).to.include('<p>').and.include('second infusion');
    expect(page.links).to.include(s.url('/coffee'));
    expect(page.metadata).to.include({ title: 'Brewing green tea', sourceURL: s.url('/tea'), url: s.url('/tea'), statusCode: 200 });
    // Firecrawl's default maxAge serves the page just read from the store.
    const again = await firecrawl.scrape(s.url('/tea'));
    expect(again.metadata?.cacheState).to.equal('hit');
    expect(again.html).to.equal(undefined);
    // The page as received is not stored: asking for it reads the page again, navigation and all.
    const raw = await firecrawl.scrape(s.url('/tea'), { formats: ['rawHtml', 'markdown'] });
    expect(raw.rawHtml).to.include('<nav><a href="/">Home</a>').and.include('<title>Brewing green tea</title>');
    expect(raw.markdown).to.include('second infusion');
    expect(raw.metadata?.cacheState).to.equal('miss');
  });

  it('renders a page a script writes when asked to wait for it (waitFor)', async () => {
    const rendered = await firecrawl.scrape(s.url('/app'), { formats: ['markdown'], waitFor: 200, maxAge: 0 });
    expect(rendered.markdown).to.include('fired to 1,240 degrees');
    expect(rendered.warning).to.equal(undefined);
    // Without waitFor the page is read as served (RENDER_DEFAULT never): a shell with nothing in it.
    const served = await firecrawl.scrape(s.url('/app'), { formats: ['markdown'], maxAge: 0 }).then((page) => page.markdown, (e: unknown) => e);
    expect(String(served instanceof SdkError ? served.message : served)).not.to.include('fired to 1,240 degrees');
  });

  it('warns of what it ignores and refuses what it cannot honour, as SdkError', async () => {
    const warned = await firecrawl.scrape(s.url('/coffee'), { formats: ['markdown'], mobile: true, maxAge: 0 });
    expect(warned.warning).to.include('mobile ignored');
    expect(warned.metadata?.cacheState).to.equal('miss');

    const summary = await firecrawl.scrape(s.url('/tea'), { formats: ['summary'] }).then(() => undefined, (e: unknown) => e);
    expect(summary).to.be.instanceOf(SdkError);
    expect((summary as SdkError).status).to.equal(400);
    expect((summary as SdkError).code).to.equal('INVALID_PARAMETER');
    expect((summary as SdkError).message).to.include('per-page summaries are not generated');

    const missing = await firecrawl.scrape(s.url('/missing')).then(() => undefined, (e: unknown) => e);
    expect((missing as SdkError).code).to.equal('URL_UNREACHABLE');
    expect((missing as SdkError).status).to.equal(422);

    const denied = await refused.scrape(s.url('/tea')).then(() => undefined, (e: unknown) => e);
    expect(denied).to.be.instanceOf(SdkError);
    expect((denied as SdkError).status).to.equal(403);
    expect((denied as SdkError).code).to.equal('INSUFFICIENT_PERMISSIONS');
    const body = await call(`${s.service.url}/compat/firecrawl`, '/v2/map', { key: s.monitorKey, body: { url: s.url('/') } });
    expect(body.status).to.equal(403);
    expect(body.json).to.include({ success: false, code: 'INSUFFICIENT_PERMISSIONS' });
    expect(body.json.error).to.match(/^INSUFFICIENT_PERMISSIONS: /);
  });

  it('applies includeTags and excludeTags as CSS selectors, naming one that does not parse, and refuses them in crawls', async () => {
    const excluded = await firecrawl.scrape(s.url('/tea'), { formats: ['markdown'], excludeTags: ['article p:nth-of-type(2)'], maxAge: 0 });
    expect(excluded.markdown).to.include('Green tea is brewed').and.not.include('Boiling water scorches');
    const included = await firecrawl.scrape(s.url('/tea'), { formats: ['markdown'], includeTags: ['article p:nth-of-type(2)'], onlyMainContent: false, maxAge: 0 });
    expect(included.markdown).to.include('Boiling water scorches').and.not.include('Green tea is brewed').and.not.include('Home');

    const bad = await firecrawl.scrape(s.url('/tea'), { formats: ['markdown'], excludeTags: ['.ok', 'p:nope'] }).then(() => undefined, (e: unknown) => e);
    expect(bad).to.be.instanceOf(SdkError);
    expect((bad as SdkError).status).to.equal(400);
    expect((bad as SdkError).message).to.include('excludeTags[1]');

    const crawl = await call(`${s.service.url}/compat/firecrawl`, '/v2/crawl', { key: s.key, body: { url: s.url('/docs/'), scrapeOptions: { includeTags: ['article'] } } });
    expect(crawl.status).to.equal(400);
    expect(crawl.json.error).to.include('scrapeOptions.includeTags');
  });

  it('batch-scrapes asynchronously, polled to completion, the failures listed apart', async () => {
    const job = await firecrawl.batchScrape([s.url('/tea'), s.url('/coffee'), s.url('/missing')], { options: { formats: ['markdown'], maxAge: 0 }, pollInterval: 1, timeout: 60 });
    expect(job.status).to.equal('completed');
    expect(job.total).to.equal(3);
    expect(job.completed).to.equal(2);
    expect(job.data.map((d) => d.metadata?.sourceURL).sort()).to.deep.equal([s.url('/coffee'), s.url('/tea')]);
    expect(job.data.find((d) => d.metadata?.sourceURL === s.url('/coffee'))!.markdown).to.include('first crack');
    const errors = await firecrawl.getBatchScrapeErrors(job.id);
    expect(errors.errors).to.have.length(1);
    expect(errors.errors[0]).to.include({ url: s.url('/missing') });
    expect(errors.errors[0]!.error).to.match(/^URL_UNREACHABLE: /);
    // A key without the extract scope is refused in Firecrawl's format.
    const other = await refused.getBatchScrapeStatus(job.id).then(() => undefined, (e: unknown) => e);
    expect((other as SdkError).status).to.equal(403);
  });

  it('maps a site from its sitemap and the page\'s links', async () => {
    const map = await firecrawl.map(s.url('/docs/'), { sitemap: 'include' });
    const urls = map.links.map((l) => l.url);
    expect(urls).to.include.members([s.url('/docs/'), s.url('/docs/1'), s.url('/docs/2'), s.url('/docs/3'), s.url('/tea')]);
    const only = await firecrawl.map(s.url('/docs/'), { sitemap: 'only' });
    expect(only.links.map((l) => l.url)).to.deep.equal([s.url('/docs/3'), s.url('/tea')]);
    const searched = await firecrawl.map(s.url('/docs/'), { search: 'tea' });
    expect(searched.links[0]!.url).to.equal(s.url('/tea'));
  });

  it('crawls below the start URL\'s path into the index, polled to completion', async () => {
    const job = await firecrawl.crawl(s.url('/docs/'), { limit: 10, pollInterval: 1, timeout: 60 });
    expect(job.status).to.equal('completed');
    const urls = job.data.map((d) => d.metadata?.sourceURL).sort();
    expect(urls).to.deep.equal([s.url('/docs/'), s.url('/docs/1'), s.url('/docs/2'), s.url('/docs/3')]);
    const part1 = job.data.find((d) => d.metadata?.sourceURL === s.url('/docs/1'))!;
    expect(part1.markdown).to.include('sourdough starter');
    expect(part1.metadata?.title).to.equal('Guide part 1');
    expect(job.completed).to.equal(4);
    const errors = await firecrawl.getCrawlErrors(job.id);
    expect(errors.errors).to.deep.equal([]);
    // What was crawled is searchable.
    const found = await firecrawl.search(`sourdough starter winter ${part1.markdown!.match(/fc[0-9a-z]+/)![0]}`, { limit: 3 });
    expect((found.web ?? []).map((r) => (r as { url: string }).url)).to.include(s.url('/docs/1'));
  });

  it('searches, scraping each result when asked for formats', async () => {
    const plain = await firecrawl.search(`green tea water ${s.marker}`, { limit: 2 });
    const tea = (plain.web ?? []).find((r) => (r as { url: string }).url === s.url('/tea')) as { url: string; title: string; description: string; position: number };
    expect(tea).to.include({ title: 'Brewing green tea', position: 1 });
    expect(tea.description).to.include(s.marker);
    const scraped = await firecrawl.search(`green tea water ${s.marker}`, { limit: 1, scrapeOptions: { formats: ['markdown'] } });
    const document = (scraped.web ?? [])[0] as { url: string; markdown?: string };
    expect(document.url).to.equal(s.url('/tea'));
    expect(document.markdown).to.include('second infusion');
  });

  it('audits under the compat path, and does not count batch polling against the quota', async () => {
    const entries = await auditEntries(s.service, 'endpoint=/compat/firecrawl/v2/batch/scrape/:id', 1);
    expect(entries[0].endpoint).to.equal('/compat/firecrawl/v2/batch/scrape/:id');
    const before = (await call(s.service.url, '/v1/auth/whoami', { key: s.key })).json.data;
    const keyId = before.key_id ?? before.id;
    const used = async () => (await call(s.service.url, `/v1/auth/keys/${keyId}/usage`)).json.data.requests_today;
    const start = await used();
    await call(`${s.service.url}/compat/firecrawl`, '/v2/batch/scrape/batch_00000000000000000000000000000000', { key: s.key });
    expect(await used()).to.equal(start);
    await call(`${s.service.url}/compat/firecrawl`, '/v2/scrape', { key: s.key, body: { url: s.url('/tea') } });
    expect(await used()).to.equal(start + 1);
  });
});
