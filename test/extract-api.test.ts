import { expect } from 'chai';
import { parseDocument } from 'htmlparser2';
import type { ChildNode } from 'domhandler';
import { ALLOWED_ATTRIBUTES, ALLOWED_TAGS } from '../src/html/render/html.js';
import { html, startPageServer, type PageHandler, type PageServer } from './helpers/page-server.js';
import { call, startTestService, type TestService } from './helpers/service.js';

const PROSE = 'Engineers at the observatory spent the winter rebuilding the cooling system, and the first measurements after the repair show the detector is quieter than ever before. ';

/** A news page with everything a main-content extractor must leave out around the article. */
const NEWS = `<!doctype html>
<html lang="en"><head>
<title>Quiet detector, clear skies | Example Science</title>
<meta property="og:site_name" content="Example Science">
<meta name="description" content="The rebuilt cooling system makes the detector quieter.">
<link rel="canonical" href="/news/quiet-detector">
<script type="application/ld+json">{"@type":"NewsArticle","headline":"Quiet detector, clear skies","author":{"@type":"Person","name":"Grace Hopper"},"datePublished":"2025-02-03T09:30:00Z"}</script>
</head><body>
<div class="cookie-banner">We use cookies to improve your experience. Accept all cookies</div>
<header><nav><a href="/">Home</a> <a href="/space">Space</a> <a href="/physics">Physics</a></nav></header>
<main><article>
<h1>Quiet detector, clear skies</h1>
<div class="share-bar"><a href="https://share.example/x">Share on X</a> <a href="https://share.example/f">Share on Facebook</a></div>
<p>${PROSE.repeat(2)}</p>
<h2>How the repair went</h2>
<p>${PROSE}The team <em>replaced</em> the <strong>pumps</strong> first; see the <a href="/log">repair log</a>.</p>
<figure><img src="/img/detector.jpg" alt="The detector"><figcaption>The detector after the repair.</figcaption></figure>
<blockquote><p>It has never been this quiet.</p></blockquote>
<pre><code class="language-js">const noise = measure(detector);
report(noise);</code></pre>
<table><thead><tr><th>Month</th><th>Noise</th></tr></thead><tbody><tr><td>January</td><td>4.1</td></tr><tr><td>February</td><td>2.3</td></tr></tbody></table>
<ul><li>Cooling rebuilt.</li><li>Noise halved.</li></ul>
<p>${PROSE}</p>
</article>
<aside class="related"><h3>Related stories</h3><ul><li><a href="/a">Telescope funding approved for next decade</a></li><li><a href="/b">New moon found orbiting a distant planet</a></li></ul></aside>
<section id="comments"><h3>Comments</h3><p>First! This is a reader comment that should never appear in the article.</p></section>
</main>
<footer><p>Copyright Example Science. All rights reserved.</p></footer>
</body></html>`;

const BOILERPLATE = ['Accept all cookies', 'Share on X', 'Related stories', 'Telescope funding', 'reader comment', 'Copyright Example Science', 'Physics'];

/** Bytes of a page declaring its encoding only in <meta>, around text given as raw bytes. */
function encodedPage(charset: string, text: Buffer, repeat = 12): PageHandler {
  const body = Buffer.concat([
    Buffer.from(`<html><head><meta charset="${charset}"><title>t</title></head><body><article><p>`),
    ...Array.from({ length: repeat }, () => Buffer.concat([text, Buffer.from('. ')])),
    Buffer.from('</p></article></body></html>'),
  ]);
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }); // no charset: the page says it
    res.end(body);
  };
}

describe('POST /v1/extract: content, formats, metadata, store', () => {
  let service: TestService;
  let site: PageServer;
  let hits = 0;

  before(async () => {
    site = await startPageServer({
      '/news': html(NEWS),
      '/counted': (req, res) => {
        hits++;
        html(NEWS)(req, res);
      },
      // 日本語の記事 in Shift_JIS, 中文文章 in GB18030, “Café €5” in windows-1252.
      '/sjis': encodedPage('shift_jis', Buffer.from('93fa967b8cea82cc8b4c8e96', 'hex')),
      '/gb18030': encodedPage('gb18030', Buffer.from('d6d0cec4cec4d5c2', 'hex')),
      '/cp1252': encodedPage('windows-1252', Buffer.from('93436166e920803594', 'hex'), 20),
      '/robots.txt': html('User-agent: *\nDisallow: /private\n', 200, 'text/plain'),
      '/private': html(NEWS),
      '/challenge': html('<html><head><title>Just a moment...</title></head><body><div id="cf-wrapper">Checking your browser before accessing the site.</div></body></html>', 503),
      '/deep': html(`<html><body>${'<div>'.repeat(100_000)}x${'</div>'.repeat(100_000)}<article><p>${PROSE.repeat(3)}</p></article></body></html>`),
    });
    service = await startTestService();
  });
  after(async () => {
    await service.close();
    await site.close();
  });

  const extract = (body: Record<string, unknown>, key?: string) => call(service.url, '/v1/extract', { body, ...(key ? { key } : {}) });

  it('returns the article without navigation, banners, share bars, related lists, comments or footer', async () => {
    const res = await extract({ url: `${site.url}/news`, format: 'text' });
    expect(res.status).to.equal(200);
    const content = res.json.data.content as string;
    expect(content).to.include('rebuilding the cooling system').and.include('It has never been this quiet.').and.include('Noise halved.');
    for (const junk of BOILERPLATE) expect(content, junk).to.not.include(junk);
    expect(content.split('\n\n').length).to.be.at.least(6);
  });

  it('renders markdown with headings, emphasis, links, images, quotes, code and tables', async () => {
    const content = (await extract({ url: `${site.url}/news` })).json.data.content as string;
    expect(content).to.include('## How the repair went');
    expect(content).to.include('*replaced*').and.include('**pumps**').and.include(`[repair log](${site.url}/log)`);
    expect(content).to.include(`![The detector](${site.url}/img/detector.jpg)`).and.include('*The detector after the repair.*');
    expect(content).to.include('> It has never been this quiet.');
    expect(content).to.include('```js\nconst noise = measure(detector);\nreport(noise);\n```');
    expect(content).to.include('| Month | Noise |').and.include('| January | 4.1 |');
    expect(content).to.match(/^- Cooling rebuilt\.$/m);
  });

  it('renders html from an allowlist of tags and attributes only', async () => {
    const content = (await extract({ url: `${site.url}/news`, format: 'html' })).json.data.content as string;
    expect(content).to.include('<h2>How the repair went</h2>').and.include('<td>January</td>');
    const visit = (nodes: ChildNode[]): void => {
      for (const node of nodes) {
        if (node.type !== 'tag') continue;
        expect(ALLOWED_TAGS.has(node.name), node.name).to.equal(true);
        for (const attribute of Object.keys(node.attribs)) expect(ALLOWED_ATTRIBUTES[node.name]?.has(attribute), `${node.name}[${attribute}]`).to.equal(true);
        visit(node.children);
      }
    };
    visit(parseDocument(content).children);
  });

  it('renders json as typed blocks', async () => {
    const res = await extract({ url: `${site.url}/news`, format: 'json' });
    const blocks = res.json.data.content as Array<Record<string, any>>;
    expect(blocks).to.be.an('array');
    const types = new Set(blocks.map((b) => b.type));
    for (const type of ['paragraph', 'heading', 'image', 'quote', 'code', 'table', 'list']) expect(types.has(type), type).to.equal(true);
    expect(blocks.find((b) => b.type === 'table')).to.deep.include({ header: ['Month', 'Noise'], rows: [['January', '4.1'], ['February', '2.3']] });
    expect(blocks.find((b) => b.type === 'code')).to.deep.include({ language: 'js' });
  });

  it('reads every metadata field, and lists images with captions and links on request', async () => {
    const data = (await extract({ url: `${site.url}/news`, extract_images: true, extract_links: true })).json.data;
    expect(data.metadata).to.deep.include({
      title: 'Quiet detector, clear skies',
      author: 'Grace Hopper',
      published_date: '2025-02-03T09:30:00Z',
      language: 'en',
      site_name: 'Example Science',
      description: 'The rebuilt cooling system makes the detector quieter.',
      canonical_url: `${site.url}/news/quiet-detector`,
    });
    expect(data.metadata.word_count).to.be.within(100, 200);
    expect(data.metadata.reading_time).to.equal('1 min');
    expect(data.images).to.deep.equal([{ url: `${site.url}/img/detector.jpg`, alt: 'The detector', caption: 'The detector after the repair.' }]);
    expect(data.links).to.deep.include({ url: `${site.url}/log`, text: 'repair log' });
    expect(data.links.map((l: { url: string }) => l.url)).to.not.include(`${site.url}/a`);
    expect(data.quality_score).to.be.within(0.6, 1);
  });

  it('converts the whole page with clean_html false, and keeps line breaks with preserve_formatting', async () => {
    const whole = (await extract({ url: `${site.url}/news`, format: 'text', clean_html: false })).json.data;
    expect(whole.content).to.include('Related stories').and.include('Copyright Example Science');
    expect(whole.quality_score).to.be.below((await extract({ url: `${site.url}/news`, format: 'text' })).json.data.quality_score);
    const code = (await extract({ url: `${site.url}/news`, format: 'text', options: { preserve_formatting: true } })).json.data.content;
    expect(code).to.include('const noise = measure(detector);\nreport(noise);');
  });

  it('decodes Shift_JIS, GB18030 and windows-1252 declared only in <meta>', async () => {
    const japanese = (await extract({ url: `${site.url}/sjis`, format: 'text' })).json.data;
    expect(japanese.content).to.include('日本語の記事');
    expect(japanese.metadata.language).to.equal('ja');
    const chinese = (await extract({ url: `${site.url}/gb18030`, format: 'text' })).json.data;
    expect(chinese.content).to.include('中文文章');
    expect(chinese.metadata.language).to.equal('zh');
    // Chinese is counted by segmented words, not by spaces: 12 sentences of two words each.
    expect(chinese.metadata.word_count).to.be.within(12, 36);
    const western = (await extract({ url: `${site.url}/cp1252`, format: 'text' })).json.data;
    expect(western.content).to.include('“Café €5”');
  });

  it('answers from the store within options.max_age, in any format, and fetches again otherwise', async () => {
    const first = (await extract({ url: `${site.url}/counted`, format: 'text' })).json.data;
    expect(first.cached).to.equal(false);
    expect(hits).to.equal(1);
    const again = (await extract({ url: `${site.url}/counted`, format: 'json', options: { max_age: 3600 } })).json.data;
    expect(again.cached).to.equal(true);
    expect(again.fetched_at).to.equal(first.fetched_at);
    expect(again.content).to.be.an('array');
    expect(again.metadata).to.deep.include({ title: first.metadata.title, word_count: first.metadata.word_count, reading_time: first.metadata.reading_time });
    expect(hits).to.equal(1);
    await extract({ url: `${site.url}/counted`, format: 'text' });
    expect(hits).to.equal(2);
  });

  it('keeps sandbox extractions apart from live ones', async () => {
    const key = (await call(service.url, '/v1/auth/keys', { body: { name: 'sandbox', mode: 'test' } })).json.data.key as string;
    await extract({ url: `${site.url}/counted`, format: 'text' });
    const before = hits;
    const sandbox = (await extract({ url: `${site.url}/counted`, format: 'text', options: { max_age: 3600 } }, key)).json.data;
    expect(sandbox.cached).to.equal(false);
    expect(hits).to.equal(before + 1);
    const sandboxAgain = (await extract({ url: `${site.url}/counted`, format: 'text', options: { max_age: 3600 } }, key)).json.data;
    expect(sandboxAgain.cached).to.equal(true);
  });

  it('obeys robots.txt when the request asks for it', async () => {
    const refused = await extract({ url: `${site.url}/private`, options: { respect_robots: true } });
    expect(refused.status).to.equal(422);
    expect(refused.json.error).to.deep.include({ code: 'EXTRACTION_FAILED', details: { reason: 'blocked by robots.txt' } });
    expect((await extract({ url: `${site.url}/private` })).status).to.equal(200);
    expect((await extract({ url: `${site.url}/news`, options: { respect_robots: true } })).status).to.equal(200);
  });

  it('reports a bot-challenge interstitial as blocked, never as content', async () => {
    const res = await extract({ url: `${site.url}/challenge` });
    expect(res.status).to.equal(422);
    expect(res.json.error.code).to.equal('EXTRACTION_FAILED');
    expect(res.json.error.details.reason).to.match(/^blocked: /);
  });

  it('stays bounded on a page of 100,000 nested elements', async () => {
    const started = Date.now();
    const res = await extract({ url: `${site.url}/deep`, format: 'text' });
    expect(res.status).to.be.oneOf([200, 422]);
    expect(Date.now() - started).to.be.lessThan(10_000);
    expect((await extract({ url: `${site.url}/news` })).status).to.equal(200);
  });
});
