import { expect } from 'chai';
import { html, startPageServer, type PageServer } from './helpers/page-server.js';
import { call, startTestService, type TestService } from './helpers/service.js';

/**
 * POST /v1/extract's options that shape the page before main content is looked for
 * (include_selectors, exclude_selectors, only_main_content) and the page's other links, over real
 * HTTP: a local page server, the API, the queue, a worker and the pool.
 */
const POST = 'The pump was replaced in the spring, and since then the pressure has held steady at one and a half bar through every cold night. ';

const THREAD = `<!doctype html><html lang="en"><head><title>Pressure drops overnight | Heating Forum</title></head><body>
<header class="site-header"><a href="/" class="logo"><img src="/logo.png" alt="Heating Forum home"></a>
<nav class="main-nav"><a href="/boards">All boards</a> <a href="/members">Members list</a></nav></header>
<div class="layout">
<main class="thread">
<h1>Pressure drops overnight</h1>
<div class="post"><p>${POST.repeat(2)}</p><div class="signature">Tom from Leeds, still learning about boilers.</div></div>
<div class="post"><p>Check the relief valve pipe outside first. ${POST}</p><div class="signature">Pete, heating engineer for twenty years.</div></div>
<div class="post staff-note"><p>Moderator note: this thread was moved to the heating board, and the title was edited for clarity.</p></div>
</main>
<aside class="sidebar"><h3>Similar threads</h3><ul class="related-threads"><li><a href="/t/combi">Combi boiler cutting out on hot water</a></li><li><a href="/t/radiators">Radiators cold at the top after bleeding</a></li></ul></aside>
</div>
<footer class="site-footer"><a href="/privacy">Privacy</a> <a href="/terms">Terms of use</a> Powered by ForumSoft.</footer>
</body></html>`;

/** A roundup whose paragraphs are mostly links: the links are the content. */
const ROUNDUP = `<!doctype html><html lang="en"><head><title>Links for March | Weekly Notes</title></head><body>
<nav class="site-nav"><a href="/archive">Archive</a> <a href="/about">About</a></nav>
<article class="post"><h1>Links for March</h1>
<p>Three releases landed this week: <a href="https://tokio.example/1-44">Tokio 1.44</a>, <a href="https://rayon.example/1-11">Rayon 1.11</a> and <a href="https://serde.example/1-0-219">Serde 1.0.219</a>.</p>
<ul>
<li><a href="https://blog.example/parser">Why we rewrote our parser by hand</a> – a team drops a parser generator and gets better error messages.</li>
<li><a href="https://tracing.example/async">Profiling async code with tracing</a> – spans, flame graphs and one surprising allocation.</li>
</ul>
<p>Reading: <a href="https://papers.example/ownership.pdf">Memory safety without garbage collection</a>, <a href="https://papers.example/regions.pdf">Region-based memory management</a>.</p>
</article>
<div class="related-posts"><h3>You might also enjoy</h3><ul><li><a href="/issue-211">Issue 211: the allocator episode</a></li></ul></div>
<footer><a href="/feed.xml">RSS</a></footer>
</body></html>`;

describe('POST /v1/extract: selectors, only_main_content and other links', () => {
  let service: TestService;
  let site: PageServer;

  before(async () => {
    site = await startPageServer({ '/thread': html(THREAD), '/stored': html(THREAD), '/roundup': html(ROUNDUP) });
    service = await startTestService();
  });
  after(async () => {
    await service.close();
    await site.close();
  });

  const extract = (body: Record<string, unknown>) => call(service.url, '/v1/extract', { body });

  it('removes what exclude_selectors match before scoring, and looks for content only inside include_selectors', async () => {
    const plain = (await extract({ url: `${site.url}/thread`, format: 'text' })).json.data.content as string;
    expect(plain).to.include('Check the relief valve pipe outside first.').and.include('Pete, heating engineer');

    const excluded = (await extract({ url: `${site.url}/thread`, format: 'text', options: { exclude_selectors: ['.signature', 'div.staff-note'] } })).json.data.content as string;
    expect(excluded).to.include('Check the relief valve pipe outside first.');
    expect(excluded).to.not.include('heating engineer').and.not.include('Tom from Leeds').and.not.include('Moderator note');

    const included = (await extract({ url: `${site.url}/thread`, format: 'text', options: { include_selectors: ['.post:nth-of-type(2)'] } })).json.data.content as string;
    expect(included).to.include('Check the relief valve pipe outside first.');
    expect(included).to.not.include('Tom from Leeds').and.not.include('Moderator note');
  });

  it('returns the whole visible body, selectors applied, with only_main_content false', async () => {
    const res = await extract({ url: `${site.url}/thread`, format: 'text', options: { only_main_content: false, exclude_selectors: ['footer'] } });
    expect(res.status).to.equal(200);
    const content = res.json.data.content as string;
    expect(content).to.include('Members list').and.include('Combi boiler cutting out on hot water').and.include('Tom from Leeds');
    expect(content).to.not.include('Powered by ForumSoft');
  });

  it('answers a selector that does not parse with 400 INVALID_PARAMETER naming it, and bounds the lists', async () => {
    const bad = await extract({ url: `${site.url}/thread`, options: { include_selectors: ['main'], exclude_selectors: ['.ok', 'div[class='] } });
    expect(bad.status).to.equal(400);
    expect(bad.json.error.code).to.equal('INVALID_PARAMETER');
    expect(bad.json.error.details).to.include({ parameter: 'options.exclude_selectors[1]', provided: 'div[class=' });

    const unknownPseudo = await extract({ url: `${site.url}/thread`, options: { include_selectors: ['p:frobnicate'] } });
    expect(unknownPseudo.status).to.equal(400);
    expect(unknownPseudo.json.error.details.parameter).to.equal('options.include_selectors[0]');

    const tooMany = await extract({ url: `${site.url}/thread`, options: { exclude_selectors: Array.from({ length: 21 }, (_, i) => `.x${i}`) } });
    expect(tooMany.status).to.equal(400);
    const tooLong = await extract({ url: `${site.url}/thread`, options: { exclude_selectors: [`.${'a'.repeat(300)}`] } });
    expect(tooLong.status).to.equal(400);
  });

  it('fails with EXTRACTION_FAILED when include_selectors match nothing', async () => {
    const res = await extract({ url: `${site.url}/thread`, options: { include_selectors: ['#no-such-part'] } });
    expect(res.status).to.equal(422);
    expect(res.json.error.code).to.equal('EXTRACTION_FAILED');
    expect(res.json.error.details.reason).to.match(/include_selectors/);
  });

  it('returns the links of a link-dense paragraph as the content\'s, and the page\'s other links with where they sit', async () => {
    const data = (await extract({ url: `${site.url}/roundup`, format: 'text', extract_links: true })).json.data;
    expect(data.content).to.include('Three releases landed this week: Tokio 1.44, Rayon 1.11 and Serde 1.0.219.');
    expect(data.links.map((link: { url: string }) => link.url)).to.include.members([
      'https://tokio.example/1-44', 'https://rayon.example/1-11', 'https://serde.example/1-0-219', 'https://papers.example/ownership.pdf',
    ]);
    expect(data.other_links).to.deep.include.members([
      { url: `${site.url}/archive`, text: 'Archive', location: 'nav' },
      { url: `${site.url}/issue-211`, text: 'Issue 211: the allocator episode', location: 'related' },
      { url: `${site.url}/feed.xml`, text: 'RSS', location: 'footer' },
    ]);
    const thread = (await extract({ url: `${site.url}/thread`, extract_links: true })).json.data;
    const where = Object.fromEntries((thread.other_links as Array<{ url: string; location: string; text: string }>).map((link) => [link.url.replace(site.url, ''), link]));
    expect(where['/']).to.deep.include({ location: 'header', text: 'Heating Forum home' });
    expect(where['/members']!.location).to.equal('nav');
    expect(where['/t/combi']!.location).to.equal('related');
    expect(where['/terms']!.location).to.equal('footer');
  });

  it('keeps extractions shaped by selectors apart in the store, and serves other links from it', async () => {
    const url = `${site.url}/stored`;
    const scoped = await extract({ url, format: 'text', options: { exclude_selectors: ['.signature'] } });
    expect(scoped.json.data.cached).to.equal(false);
    // The page's own extraction is not the scoped one, even within max_age.
    const own = (await extract({ url, format: 'text', options: { max_age: 3600 } })).json.data;
    expect(own.cached).to.equal(false);
    expect(own.content).to.include('Tom from Leeds');
    const again = (await extract({ url, format: 'text', options: { max_age: 3600, exclude_selectors: ['.signature'] } })).json.data;
    expect(again.cached).to.equal(true);
    expect(again.content).to.not.include('Tom from Leeds');

    // Other links are kept with the extraction that read them; one stored without them is not served.
    const withLinks = (await extract({ url, extract_links: true, options: { max_age: 3600 } })).json.data;
    expect(withLinks.cached).to.equal(false);
    const cachedLinks = (await extract({ url, extract_links: true, options: { max_age: 3600 } })).json.data;
    expect(cachedLinks.cached).to.equal(true);
    expect(cachedLinks.other_links).to.deep.equal(withLinks.other_links);
  });
});
