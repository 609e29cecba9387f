import { expect } from 'chai';
import type { Block } from '../src/html/blocks.js';
import { extractMainContent, type MainContent } from '../src/html/content/main-content.js';
import { parseHtml } from '../src/html/dom.js';
import { renderText } from '../src/html/render/text.js';

const PAGE_URL = 'https://news.example.com/2024/05/story.html';

/**
 * No DOM limits: main content must stay bounded on whatever tree an operator's HTML_MAX_NODES and
 * HTML_MAX_DEPTH let through, including those the defaults refuse.
 */
const UNLIMITED = { maxNodes: Infinity, maxDepth: Infinity };

function extract(html: string, clean = true): MainContent & { text: string } {
  const content = extractMainContent(parseHtml(html, UNLIMITED), { url: PAGE_URL, clean });
  return { ...content, text: renderText(content.blocks, { preserveFormatting: false }) };
}

/** Article prose: distinct, punctuated sentences, so each paragraph is recognisable in the output. */
function prose(topic: string, sentences = 4): string {
  return Array.from({ length: sentences }, (_, i) => `The ${topic} report, part ${i + 1}, explains in plain words why the council voted again on the matter.`).join(' ');
}

const NAV = `<nav class="main-nav"><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li><li><a href="/sport">Sport</a></li><li><a href="/culture">Culture and arts</a></li></ul></nav>`;
const HEADER = `<header class="site-header"><a href="/" class="logo">Example News</a>${NAV}</header>`;
const FOOTER = `<footer class="site-footer"><p>Copyright 2024 Example News. All rights reserved, including the right to reproduce this footer text.</p><ul><li><a href="/about">About us</a></li><li><a href="/contact">Contact</a></li></ul></footer>`;
const COOKIES = `<div id="cookie-consent" class="cookie-banner"><p>We use cookies to improve your experience. By continuing to browse, you agree to our use of cookies, as described in our policy.</p><button>Accept</button></div>`;
const SHARE = `<div class="share-bar"><a href="https://facebook.com/sharer?u=x">Share on Facebook</a> <a href="https://twitter.com/intent/tweet?u=x">Tweet this</a></div>`;
const RELATED = `<section class="related-articles"><h3>Related stories</h3><ul>
  <li><h4><a href="/a">A different story about the harbour</a></h4><p>Officials said the harbour works will continue through the summer, causing delays.</p></li>
  <li><h4><a href="/b">Another story about the railway</a></h4><p>The railway line reopens next week after months of repairs, the operator said.</p></li>
</ul></section>`;
const NEWSLETTER = `<div class="newsletter-signup"><h3>Get our newsletter</h3><p>Sign up for the morning briefing, delivered to your inbox every weekday, with the stories that matter.</p><form><input type="email"><button>Subscribe</button></form></div>`;
const SIDEBAR = `<aside class="sidebar"><h3>Most read</h3><ol><li><a href="/1">First most read story of the day</a></li><li><a href="/2">Second most read story of the day</a></li></ol></aside>`;
const COMMENTS = `<section id="comments" class="comments-area"><h3>42 comments</h3>
  ${Array.from({ length: 12 }, (_, i) => `<div class="comment"><p class="comment-author">Reader ${i}</p><p>I have lived in this town for ${i + 10} years and I think the decision, while long overdue, will not fix the underlying problem at all.</p></div>`).join('\n')}
</section>`;

const ARTICLE_BODY = `
  <h1>Council votes again on the bridge</h1>
  <p class="byline">By <a href="/authors/ada">Ada Writer</a></p>
  <p>${prose('opening')}</p>
  <h2>What changes</h2>
  <p>${prose('second', 3)} See <a href="/docs/plan.pdf">the plan</a> and <a href="javascript:alert(1)">this script link</a>, or <a href="mailto:desk@example.com">write to us</a>.</p>
  <ul><li>First listed change to the bridge.</li><li>Second listed change, with <em>emphasis</em> and <strong>strength</strong>.</li></ul>
  <figure><img src="/img/bridge.jpg" alt="The bridge at dusk"><figcaption>The bridge, seen from the north bank.</figcaption></figure>
  <blockquote><p>${prose('quoted', 1)}</p></blockquote>
  <table><thead><tr><th>Option</th><th>Cost</th></tr></thead><tbody><tr><td>Repair</td><td>2 million</td></tr><tr><td>Replace</td><td>9 million</td></tr></tbody></table>
  <pre><code class="language-python">def cost(option):
    return TABLE[option]</code></pre>
  <p>${prose('closing')}</p>`;

function page(main: string, extras = { before: '', after: '' }): string {
  return `<!doctype html><html><head><title>Council votes again on the bridge | Example News</title>
    <meta property="og:title" content="Council votes again on the bridge"></head>
    <body>${COOKIES}${HEADER}${extras.before}${main}${extras.after}${FOOTER}</body></html>`;
}

function blocksOfType<T extends Block['type']>(blocks: readonly Block[], type: T): Array<Extract<Block, { type: T }>> {
  const found: Block[] = [];
  const visit = (list: readonly Block[]): void => {
    for (const block of list) {
      if (block.type === type) found.push(block);
      if (block.type === 'quote') visit(block.blocks);
      if (block.type === 'list') for (const item of block.items) visit(item);
    }
  };
  visit(blocks);
  return found as Array<Extract<Block, { type: T }>>;
}

const JUNK = ['Culture and arts', 'All rights reserved', 'We use cookies', 'Share on Facebook', 'Tweet this', 'A different story about the harbour', 'harbour works', 'morning briefing', 'Most read', 'most read story', 'Reader 3', 'underlying problem'];

function expectArticle(result: ReturnType<typeof extract>): void {
  for (const part of ['opening report, part 1', 'opening report, part 4', 'second report, part 3', 'First listed change', 'quoted report, part 1', 'closing report, part 4', 'What changes']) {
    expect(result.text, part).to.include(part);
  }
  for (const junk of JUNK) expect(result.text, junk).not.to.include(junk);
}

describe('main content', () => {
  describe('boilerplate removal and article structure (<article> layout)', () => {
    const result = extract(page(`<main><article>${SHARE}${ARTICLE_BODY}${RELATED}${NEWSLETTER}</article>${SIDEBAR}</main>${COMMENTS}`));

    it('keeps the article and drops nav, header, footer, cookie banner, share bar, related list, newsletter, sidebar and comments', () => {
      expectArticle(result);
    });

    it('leaves out the headline (it is metadata) and the byline', () => {
      expect(result.text).not.to.include('Council votes again on the bridge');
      expect(result.text).not.to.include('Ada Writer');
    });

    it('keeps headings, lists, emphasis, quotes, tables and code as typed blocks', () => {
      expect(blocksOfType(result.blocks, 'heading').map((h) => h.level)).to.deep.equal([2]);
      const list = blocksOfType(result.blocks, 'list')[0]!;
      expect(list.items).to.have.length(2);
      expect(JSON.stringify(list.items[1])).to.include('"type":"emphasis","strong":true');
      expect(blocksOfType(result.blocks, 'quote')).to.have.length(1);
      const table = blocksOfType(result.blocks, 'table')[0]!;
      expect(table.rows.map((row) => row.header)).to.deep.equal([true, false, false]);
      expect(result.text).to.include('Option | Cost\nRepair | 2 million\nReplace | 9 million');
      expect(blocksOfType(result.blocks, 'code')).to.deep.equal([{ type: 'code', text: 'def cost(option):\n    return TABLE[option]', language: 'python' }]);
    });

    it('keeps images with their figcaption as caption, as absolute URLs', () => {
      const image = { url: 'https://news.example.com/img/bridge.jpg', alt: 'The bridge at dusk', caption: 'The bridge, seen from the north bank.' };
      expect(result.images).to.deep.equal([image]);
      expect(blocksOfType(result.blocks, 'image')).to.deep.equal([{ type: 'image', src: image.url, alt: image.alt, caption: image.caption }]);
    });

    it('keeps links absolute, http(s) and mailto only (javascript: dropped, its text kept)', () => {
      expect(result.links).to.deep.include({ url: 'https://news.example.com/docs/plan.pdf', text: 'the plan' });
      expect(result.links).to.deep.include({ url: 'mailto:desk@example.com', text: 'write to us' });
      expect(result.links.map((link) => link.url).join(' ')).not.to.include('javascript');
      expect(result.text).to.include('this script link');
      expect(result.links.every((link) => /^(https?:|mailto:)/.test(link.url))).to.equal(true);
    });

    it('reports signals', () => {
      const { signals } = result;
      expect(signals.textChars).to.be.above(800);
      expect(signals.words).to.be.above(150);
      expect(signals.paragraphs).to.be.at.least(3);
      expect(signals.linkDensity).to.be.within(0, 0.1);
      expect(signals.pageShare).to.be.within(0.2, 0.9);
      expect(signals.margin).to.be.within(0.3, 1);
      expect(signals.hintsOverruled).to.equal(0);
      expect(signals.headlineFound).to.equal(true);
      expect(signals.declaredCoverage).to.equal(null);
    });
  });

  it('resolves relative references against <base href>', () => {
    const html = page(`<article><p>${prose('based')} <a href="more.html">More</a> <img src="pic.png" alt=""></p></article>`).replace('</head>', '<base href="https://cdn.example.org/base/"></head>');
    const result = extract(html);
    expect(result.links).to.deep.include({ url: 'https://cdn.example.org/base/more.html', text: 'More' });
    expect(result.images.map((image) => image.url)).to.deep.equal(['https://cdn.example.org/base/pic.png']);
  });

  it('reads lazy-loaded images from data-src / srcset instead of a placeholder', () => {
    const result = extract(page(`<article><p>${prose('lazy')}</p><img src="data:image/gif;base64,R0lGOD" data-src="/real.jpg" alt="real"><img srcset="/small.jpg 480w, /big.jpg 1024w"></article>`));
    expect(result.images.map((image) => image.url)).to.deep.equal(['https://news.example.com/real.jpg', 'https://news.example.com/small.jpg']);
  });

  it('handles div soup with class names', () => {
    const html = page(`<div id="wrapper"><div class="container"><div class="col-left">
        <div class="post-meta">Posted on May 5, 2024 in <a href="/c/news">News</a></div>
        <div class="entry-content">${ARTICLE_BODY.replace(/<h1>.*?<\/h1>/, '')}</div>
        <div class="post-tags"><a href="/t/bridge">bridge</a> <a href="/t/council">council</a></div>
      </div><div class="col-right widget-area">${SIDEBAR.replace(/aside/g, 'div')}${NEWSLETTER}</div></div></div>${COMMENTS}`);
    const result = extract(html);
    expectArticle(result);
    expect(result.text).not.to.include('Posted on');
  });

  it('handles a <main> layout without <article>', () => {
    const result = extract(page(`<main id="content">${ARTICLE_BODY}${RELATED}</main>${SIDEBAR}`));
    expectArticle(result);
  });

  it('handles an old table-based layout (layout tables are containers, not data)', () => {
    const html = `<html><body><table width="100%"><tr><td class="menu"><a href="/">Home</a><br><a href="/archive">Archive</a><br><a href="/links">Links and friends</a></td>
      <td><font face="Verdana"><b>Council votes again</b><br><br>${prose('table-layout')}<br><br>${prose('second table-layout')}<br><br>${prose('third table-layout')}</font></td></tr>
      <tr><td colspan="2"><a href="/">Home</a> | <a href="/contact">Contact the webmaster</a></td></tr></table></body></html>`;
    const result = extract(html);
    expect(result.text).to.include('table-layout report, part 1');
    expect(result.text).to.include('third table-layout report, part 4');
    expect(result.text).not.to.include('Links and friends');
    expect(result.text).not.to.include('Contact the webmaster');
    expect(blocksOfType(result.blocks, 'table')).to.have.length(0);
    expect(blocksOfType(result.blocks, 'paragraph').length).to.be.at.least(3);
  });

  it('keeps the article when the comment section is longer than it', () => {
    const html = page(`<div class="content"><article class="post"><p>${prose('short article', 3)}</p><p>${prose('short article end', 2)}</p></article>${COMMENTS}${COMMENTS.replace('id="comments"', '')}</div>`);
    const result = extract(html);
    expect(result.text).to.include('short article report, part 1');
    expect(result.text).to.include('short article end report, part 2');
    expect(result.text).not.to.include('underlying problem');
  });

  it('on a listing page keeps the listing rather than one teaser', () => {
    const teasers = Array.from({ length: 8 }, (_, i) => `<div class="card"><h2><a href="/s/${i}">Story number ${i} about the town</a></h2><p>${prose(`teaser ${i}`, 2)}</p></div>`).join('');
    const result = extract(page(`<main><h1>Latest news</h1>${teasers}</main>${SIDEBAR}`));
    expect(result.text).to.include('teaser 0 report, part 1');
    expect(result.text).to.include('teaser 7 report, part 2');
    expect(result.text).not.to.include('most read story');
  });

  it('trims datelines and labels before the article, and "more" headings and promotion lines after it', () => {
    const html = page(`<article><p>October 12, 2017</p><p>Reading time: 2 minutes</p><span>Close</span>
      <p>${prose('edge')}</p><h2>A subheading stays</h2><p>${prose('edge middle', 2)}</p><p>Short line.</p><p>${prose('edge last', 2)}</p>
      <h3>More stories</h3><p>Sign up for our newsletter to get the best stories every morning.</p><p>Comments</p></article>`);
    const { text } = extract(html);
    expect(text.startsWith('The edge report, part 1')).to.equal(true);
    expect(text.endsWith('edge last report, part 2, explains in plain words why the council voted again on the matter.')).to.equal(true);
    expect(text).to.include('A subheading stays');
    expect(text).to.include('Short line.');
  });

  it('cuts what precedes the headline inside the container (a ticker of other stories)', () => {
    const ticker = `<ul class="ticker">${Array.from({ length: 6 }, (_, i) => `<li><a href="/t/${i}">Ticker story ${i} on the front page</a> ${prose(`ticker ${i}`, 1)}</li>`).join('')}</ul>`;
    const { text, signals } = extract(page(`<div class="page">${ticker}<h1>Council votes again on the bridge</h1><p>${prose('anchored')}</p><p>${prose('anchored end', 3)}</p></div>`));
    expect(signals.headlineFound).to.equal(true);
    expect(text).to.include('anchored report, part 1');
    expect(text).not.to.include('ticker 0');
  });

  it('keeps a listing made only of teaser sections (pruning would otherwise remove everything)', () => {
    const section = (name: string): string =>
      `<section class="band"><h2>${name}</h2><ol>${Array.from({ length: 3 }, (_, i) => `<li><h3><a href="/${name}/${i}">${name} story ${i}</a></h3><p>${prose(`${name} summary ${i}`, 1)}</p></li>`).join('')}</ol></section>`;
    const { text } = extract(page(`<main>${section('World')}${section('Business')}${section('Science')}</main>`));
    expect(text).to.include('World summary 0 report, part 1');
    expect(text).to.include('Science summary 2 report, part 1');
  });

  it('does not mistake wrapper classes that mention sidebars or ads for boilerplate', () => {
    const html = page(`<div class="layout has-sidebar"><div class="Page-ad-margins"><div class="article-body">${ARTICLE_BODY}</div></div></div>`);
    expectArticle(extract(html));
  });

  it('cross-checks a JSON-LD articleBody when the page declares one', () => {
    const body = `${prose('opening')} ${prose('closing')}`;
    const html = page(`<article>${ARTICLE_BODY}</article>`).replace(
      '</head>',
      `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@graph': [{ '@type': 'NewsArticle', articleBody: body }] })}</script></head>`,
    );
    const { signals } = extract(html);
    expect(signals.declaredChars).to.equal(body.length);
    expect(signals.declaredCoverage).to.be.above(0.9);
    expect(signals.declaredSupport).to.be.within(0.3, 0.9);
  });

  it('splits <br><br>-separated text into paragraphs', () => {
    const result = extract(`<body><div class="story">${prose('first')}<br><br>${prose('second')}<br>${prose('third', 1)}</div></body>`);
    expect(blocksOfType(result.blocks, 'paragraph')).to.have.length(2);
  });

  describe('clean=false', () => {
    it('keeps all visible text of the body, dropping scripts, styles, forms controls and hidden elements', () => {
      const html = page(`<article>${ARTICLE_BODY}</article><script>var hidden = "script text";</script><style>p{}</style><div hidden>hidden text</div><p style="display: none">invisible text</p>`);
      const result = extract(html, false);
      for (const visible of ['Culture and arts', 'All rights reserved', 'We use cookies', 'Council votes again on the bridge', 'Ada Writer', 'opening report, part 1', 'Option | Cost']) {
        expect(result.text, visible).to.include(visible);
      }
      for (const invisible of ['script text', 'p{}', 'hidden text', 'invisible text', 'Accept']) expect(result.text, invisible).not.to.include(invisible);
      expect(result.signals.pageShare).to.be.above(0.95);
    });
  });

  describe('pathological input (bounded time, no exception)', () => {
    const cases: Record<string, () => string> = {
      '100,000 nested divs': () => `<body>${'<div>'.repeat(100_000)}${prose('deep')}${'</div>'.repeat(100_000)}</body>`,
      '100,000 nested inline elements': () => `<body><p>${'<span><b>'.repeat(50_000)}${prose('inline')}</p></body>`,
      'a 5 MB single line': () => `<body><div>${'word, '.repeat(850_000)}</div></body>`,
      'unclosed tags everywhere': () => `<body>${'<div><p><table><tr><td><ul><li><a href="/x">x'.repeat(20_000)}`,
      'binary garbage': () => {
        let seed = 7;
        const bytes = Buffer.alloc(1_000_000);
        for (let i = 0; i < bytes.length; i++) {
          seed = (seed * 1103515245 + 12345) & 0x7fffffff;
          bytes[i] = seed & 0xff;
        }
        return bytes.toString('latin1');
      },
      'an empty document': () => '',
      'tag, role and class names that are object properties': () =>
        `<body><constructor role="constructor" class="__proto__ toString"><h1>x</h1><__proto__>${prose('odd names')}</__proto__></constructor></body>`,
    };
    for (const [name, make] of Object.entries(cases)) {
      it(name, () => {
        const html = make();
        const started = performance.now();
        for (const clean of [true, false]) extract(html, clean);
        // Bounds a blow-up (quadratic work on these inputs takes minutes), not speed: a loaded
        // two-core machine has taken 10 s for the 5 MB line.
        expect(performance.now() - started).to.be.below(20_000);
      });
    }

    it('still finds the text inside 100,000 nested divs', () => {
      const result = extract(`<body>${'<div>'.repeat(100_000)}${prose('deep')}${'</div>'.repeat(100_000)}</body>`);
      expect(result.text).to.include('deep report, part 4');
    });
  });
});
