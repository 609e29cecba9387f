import { expect } from 'chai';
import { Document, Element, Text } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { parseDate, dateFromUrl } from '../src/html/metadata/dates.js';
import { describeText, extractMetadata, type PageMetadata } from '../src/html/metadata/page-metadata.js';

const URL = 'https://news.example.com/world/story.html';

/** Metadata of a page made of `head` and `body` markup. */
function meta(head: string, body = '', url = URL, htmlAttributes = ''): PageMetadata {
  return extractMetadata(parseDocument(`<!doctype html><html ${htmlAttributes}><head>${head}</head><body>${body}</body></html>`), url);
}

const ld = (value: unknown): string => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

describe('page metadata: title', () => {
  it('prefers og:title to the <title>', () => {
    expect(meta('<title>Storm hits coast | Example News</title><meta property="og:title" content="Storm hits coast">').title).to.equal('Storm hits coast');
  });

  it('prefers the JSON-LD headline', () => {
    const head = `<title>Storm hits the coast tonight - Example News</title>${ld({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'Storm hits the coast tonight' })}`;
    expect(meta(head).title).to.equal('Storm hits the coast tonight');
  });

  it('removes a known site name as suffix or prefix', () => {
    expect(meta('<title>Storm hits coast | Example News</title><meta property="og:site_name" content="Example News">').title).to.equal('Storm hits coast');
    expect(meta('<title>Example News - Storm hits coast</title><meta property="og:site_name" content="Example News">').title).to.equal('Storm hits coast');
    expect(meta('<title>Storm hits coast — The Daily Planet</title><meta name="application-name" content="Daily Planet">').title).to.equal('Storm hits coast');
  });

  it('removes the host name and an author name', () => {
    expect(meta('<title>Storm hits coast · Example</title>').title).to.equal('Storm hits coast');
    const head = '<meta property="og:title" content="Why the sea is rising | Jane Doe"><meta name="author" content="Jane Doe">';
    expect(meta(head).title).to.equal('Why the sea is rising');
  });

  it('takes the <h1> that matches part of the <title>', () => {
    expect(meta('<title>Storm hits the coast of Brittany :: Regional :: Ouest Daily</title>', '<h1>Storm hits the coast of Brittany</h1>').title).to.equal('Storm hits the coast of Brittany');
    // A site-name <h1> matching the end is not taken for the title but removed from it.
    expect(meta('<title>Storm hits coast - Weather Desk</title>', '<header><h1>Weather Desk</h1></header>').title).to.equal('Storm hits coast');
    expect(meta('<title>Evolve: Shared Mutable History — evolve extension for Mercurial</title>', '<h1>evolve extension for Mercurial</h1><h1>Evolve: Shared Mutable History</h1>').title).to.equal('Evolve: Shared Mutable History');
  });

  it('takes the headline the page shows when JSON-LD headline and name differ', () => {
    const head = `<title>New Zealand - Wikipedia</title>${ld({ '@type': 'Article', headline: 'country in Oceania', name: 'New Zealand' })}`;
    expect(meta(head, '<h1>New Zealand</h1>', 'https://en.wikipedia.org/wiki/New_Zealand').title).to.equal('New Zealand');
  });

  it('drops a short unnamed suffix from a bare <title>, but keeps plain titles whole', () => {
    expect(meta('<title>How to repot an orchid without killing it | Gardening</title>').title).to.equal('How to repot an orchid without killing it');
    expect(meta('<title>Spider-Man: No Way Home review</title>').title).to.equal('Spider-Man: No Way Home review');
    expect(meta('<title>Spider-Man - Far From Home</title>').title).to.equal('Spider-Man - Far From Home');
  });

  it('splits Chinese titles on underscores', () => {
    const head = '<title>宇航员在太空中喝酒会怎么样_探索者_光明网</title><meta property="og:site_name" content="光明网">';
    expect(meta(head, '<h1>宇航员在太空中喝酒会怎么样</h1>').title).to.equal('宇航员在太空中喝酒会怎么样');
  });

  it('ignores SVG titles and decodes twice-escaped entities', () => {
    expect(meta('', '<svg><title>icon</title></svg><h1>Only heading</h1>').title).to.equal('Only heading');
    expect(meta('<meta property="og:title" content="Tom &amp;amp; Jerry&amp;#039;s day">').title).to.equal("Tom & Jerry's day");
  });

  it('is null for a page without any title', () => {
    expect(meta('', '<p>text</p>').title).to.equal(null);
  });
});

describe('page metadata: author', () => {
  it('reads JSON-LD authors: one, several, and @graph references', () => {
    expect(meta(ld({ '@type': 'Article', author: { '@type': 'Person', name: 'Jane Doe' } })).author).to.equal('Jane Doe');
    expect(meta(ld({ '@type': 'BlogPosting', author: [{ name: 'Jane Doe' }, { name: 'John Roe' }, 'Ann Poe'] })).author).to.equal('Jane Doe, John Roe, Ann Poe');
    const graph = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebPage', '@id': '#page', name: 'Page' },
        { '@type': 'NewsArticle', headline: 'H', author: { '@id': '#jane' } },
        { '@type': 'Person', '@id': '#jane', name: 'Jane Doe' },
      ],
    };
    expect(meta(ld(graph)).author).to.equal('Jane Doe');
  });

  it('survives broken JSON-LD: comments, trailing semicolons, raw new lines', () => {
    const script = '<script type="application/ld+json"><!--\n{"@type": "Article", "author": {"name": "Jane\nDoe"}};\n--></script>';
    expect(meta(script).author).to.equal('Jane Doe');
    expect(meta('<script type="application/ld+json">{not json</script><meta name="author" content="Ann Poe">').author).to.equal('Ann Poe');
  });

  it('reads meta author tags, article:author only when it is a name', () => {
    expect(meta('<meta name="author" content="Jane Doe">').author).to.equal('Jane Doe');
    expect(meta('<meta property="article:author" content="https://facebook.com/janedoe"><meta name="parsely-author" content="Jane Doe">').author).to.equal('Jane Doe');
    expect(meta('<meta property="article:author" content="Jane Doe">').author).to.equal('Jane Doe');
    expect(meta('<meta name="citation_author" content="Doe, Jane"><meta name="citation_author" content="Roe, John">').author).to.equal('Doe, Jane, Roe, John');
  });

  it('reads rel=author links and itemprop=author with a nested name', () => {
    expect(meta('', '<article><a rel="author" href="/by/jane">Jane Doe</a></article>').author).to.equal('Jane Doe');
    const body = '<article><span itemprop="author" itemscope itemtype="https://schema.org/Person"><img src="a.jpg"><span itemprop="name">Jane Doe</span></span></article>';
    expect(meta('', body).author).to.equal('Jane Doe');
  });

  it('reads byline elements and cleans "By", dates and roles', () => {
    expect(meta('', '<article><p class="byline">By Jane Doe</p></article>').author).to.equal('Jane Doe');
    expect(meta('', '<div class="FeatureByline">By <b>Nathan Willis</b> March 25, 2015</div>').author).to.equal('Nathan Willis');
    expect(meta('', '<p class="byline"><span>by</span> <a>Lucas Nolan</a><span class="bydate">22 Dec 2016</span></p>').author).to.equal('Lucas Nolan');
    expect(meta('', '<div class="article__author">Par Sébastien Farcis</div>').author).to.equal('Sébastien Farcis');
    expect(meta('', '<div class="author"><a>Ben Silverman</a><div class="author-title">Games Editor</div></div>').author).to.equal('Ben Silverman');
    expect(meta('', '<div class="byline">By <span class="byline-name">Stella Kim</span> and others</div>').author).to.equal('Stella Kim');
    expect(meta('', '<div class="post-author">Written by Rob Ewaschuk Edited by Betsy Beyer</div>').author).to.equal('Rob Ewaschuk');
  });

  it('prefers the article byline and ignores comments, sidebars and author boxes', () => {
    const body = `
      <aside><span class="byline">Sidebar Writer</span></aside>
      <article><div class="byline">Jane Doe</div>
        <div class="comments"><span class="author">Commenter</span></div>
      </article>`;
    expect(meta('', body).author).to.equal('Jane Doe');
    expect(meta('', '<div class="comment"><span class="author">Commenter</span></div>').author).to.equal(null);
    expect(meta('', '<div class="author-bio">Jane writes about gardens and has done so for thirty years.</div>').author).to.equal(null);
  });

  it('rejects bylines that are no names', () => {
    expect(meta('', '<div class="author">Follow</div>').author).to.equal(null);
    expect(meta('<meta name="author" content="https://example.com/jane">').author).to.equal(null);
    expect(meta('', `<div class="author-container">${'Long text that is a container. '.repeat(10)}</div>`).author).to.equal(null);
  });
});

describe('page metadata: published date', () => {
  it('reads JSON-LD datePublished first', () => {
    const head = `${ld({ '@type': 'NewsArticle', datePublished: '2024-05-17T10:30:00+02:00' })}<meta property="article:published_time" content="2020-01-01">`;
    expect(meta(head).publishedDate).to.equal('2024-05-17T10:30:00+02:00');
  });

  it('reads publication meta tags', () => {
    const cases: Array<[string, string]> = [
      ['<meta property="article:published_time" content="2024-05-17T08:30:00Z">', '2024-05-17T08:30:00Z'],
      ['<meta name="date" content="2024-05-17">', '2024-05-17'],
      ['<meta name="pubdate" content="20240517">', '2024-05-17'],
      ['<meta name="DC.date.issued" content="2016-02-01T01:28:49">', '2016-02-01T01:28:49'],
      ['<meta name="parsely-pub-date" content="2024-04-20T04:20:00.000Z">', '2024-04-20T04:20:00.000Z'],
      ['<meta name="sailthru.date" content="Tue, 03 Mar 2015 14:24:27 -0500">', '2015-03-03T14:24:27-05:00'],
      ['<meta itemprop="datePublished" content="2015-03-12T13:11:07Z">', '2015-03-12T13:11:07Z'],
    ];
    for (const [head, expected] of cases) expect(meta(head).publishedDate, head).to.equal(expected);
  });

  it('reads <time datetime> of the article, a marked one first', () => {
    expect(meta('', '<header><time datetime="2024-05-17T09:00:00-04:00">May 17</time></header>').publishedDate).to.equal('2024-05-17T09:00:00-04:00');
    expect(meta('', '<article><time datetime="2024-05-18">Updated</time><time class="published" datetime="2024-05-17">May 17</time></article>').publishedDate).to.equal('2024-05-17');
    expect(meta('', '<article><span itemprop="datePublished">2024-05-17</span></article>').publishedDate).to.equal('2024-05-17');
    // Comment dates and page-level clocks are not the article's.
    expect(meta('', '<article><div class="comments"><time itemprop="datePublished" datetime="2024-06-01">June</time></div></article>').publishedDate).to.equal(null);
    expect(meta('', '<div><time datetime="2024-06-01">today</time></div>').publishedDate).to.equal(null);
  });

  it('falls back to a date in the URL path', () => {
    expect(meta('', '', 'https://example.com/2024/05/17/storm-hits-coast/').publishedDate).to.equal('2024-05-17');
    expect(meta('', '', 'https://example.com/news/storm.html').publishedDate).to.equal(null);
  });
});

describe('dates', () => {
  it('normalises ISO 8601 and its common variants, keeping the offset', () => {
    expect(parseDate('2021-11-01T10:52:50+0100')).to.equal('2021-11-01T10:52:50+01:00');
    expect(parseDate('2023-06-07T20:54:26.829Z')).to.equal('2023-06-07T20:54:26.829Z');
    expect(parseDate('2017-11-03 03:01:00.000000')).to.equal('2017-11-03T03:01:00.000');
    expect(parseDate('2017-11-24T18:42:20.314667')).to.equal('2017-11-24T18:42:20.314');
    expect(parseDate('2018-04-05T06:00')).to.equal('2018-04-05T06:00:00');
    expect(parseDate('2024-05-17T10:30:00+00:00')).to.equal('2024-05-17T10:30:00Z');
    expect(parseDate('2024/5/7')).to.equal('2024-05-07');
  });

  it('keeps a date without time date-only', () => {
    expect(parseDate('2020-09-21')).to.equal('2020-09-21');
    expect(parseDate('May 17, 2024')).to.equal('2024-05-17');
    expect(parseDate('17th of September 2019')).to.equal('2019-09-17');
  });

  it('reads English dates with times and zones', () => {
    expect(parseDate('Fri, 17 May 2024 10:30:00 GMT')).to.equal('2024-05-17T10:30:00Z');
    expect(parseDate('March 11, 2015 3:46 PM')).to.equal('2015-03-11T15:46:00');
    expect(parseDate('March 11, 2015 3:46 PM EDT')).to.equal('2015-03-11T15:46:00-04:00');
    expect(parseDate('17:00, 24 December 2015')).to.equal('2015-12-24T17:00:00');
  });

  it('reads Unix timestamps as UTC', () => {
    expect(parseDate('1715941800')).to.equal('2024-05-17T10:30:00Z');
    expect(parseDate('1715941800000')).to.equal('2024-05-17T10:30:00Z');
  });

  it('rejects impossible and unreadable dates', () => {
    for (const value of ['2024-02-30', '2024-13-01', '2024-05-17T25:00', 'yesterday', '', '12345', '1850-01-01']) expect(parseDate(value), value).to.equal(null);
  });

  it('finds dates in URL paths only in date shape', () => {
    expect(dateFromUrl('https://example.com/2024/05/17/slug')).to.equal('2024-05-17');
    expect(dateFromUrl('https://example.com/blog/2024-05-17-slug.html')).to.equal('2024-05-17');
    expect(dateFromUrl('https://example.com/2024/13/45/slug')).to.equal(null);
    expect(dateFromUrl('https://example.com/id/20240517123')).to.equal(null);
  });
});

describe('page metadata: language, site name, description, canonical URL', () => {
  it('reads the markup language from <html lang>, Content-Language and og:locale', () => {
    expect(meta('', '', URL, 'lang="en-GB"').language).to.equal('en');
    expect(meta('<meta http-equiv="Content-Language" content="fr">').language).to.equal('fr');
    expect(meta('<meta property="og:locale" content="pt_BR">').language).to.equal('pt');
    expect(meta('<meta property="og:locale" content="de_DE">', '', URL, 'lang="es"').language).to.equal('es');
    expect(meta('').language).to.equal(null);
  });

  it('reads the site name from og:site_name, JSON-LD publisher and application-name', () => {
    expect(meta('<meta property="og:site_name" content="Example News">').siteName).to.equal('Example News');
    expect(meta(ld({ '@type': 'NewsArticle', publisher: { '@type': 'Organization', name: 'Example Media' } })).siteName).to.equal('Example Media');
    expect(meta('<meta name="application-name" content="Example App">').siteName).to.equal('Example App');
    // A slogan after the name is cut at the segment naming the host.
    expect(meta('<meta property="og:site_name" content="Aktuálně.cz - Víte, co se právě děje">', '', 'https://zpravy.aktualne.cz/a').siteName).to.equal('Aktuálně.cz');
  });

  it('reads the description from JSON-LD, og:description and meta description', () => {
    expect(meta('<meta name="description" content="  A   storm  hit the coast. ">').description).to.equal('A storm hit the coast.');
    expect(meta('<meta name="description" content="SEO text"><meta property="og:description" content="Summary">').description).to.equal('Summary');
    expect(meta(`<meta name="description" content="SEO text">${ld({ '@type': 'Article', description: 'Abstract' })}`).description).to.equal('Abstract');
  });

  it('resolves the canonical URL against <base> and the page, else og:url', () => {
    expect(meta('<link rel="canonical" href="/world/storm">').canonicalUrl).to.equal('https://news.example.com/world/storm');
    expect(meta('<base href="https://cdn.example.org/en/"><link rel="canonical" href="storm">').canonicalUrl).to.equal('https://cdn.example.org/en/storm');
    expect(meta('<meta property="og:url" content="https://example.com/og">').canonicalUrl).to.equal('https://example.com/og');
    expect(meta('<link rel="canonical" href="javascript:alert(1)">').canonicalUrl).to.equal(null);
    expect(meta('').canonicalUrl).to.equal(null);
  });

  it('reads everything from one realistic article page', () => {
    const head = `
      <title>Storm hits the Breton coast | Ouest Daily</title>
      <meta property="og:title" content="Storm hits the Breton coast">
      <meta property="og:site_name" content="Ouest Daily">
      <meta property="og:description" content="Winds of 150 km/h cut power to 40,000 homes.">
      <meta property="article:published_time" content="2024-01-02T06:15:00+01:00">
      <link rel="canonical" href="https://ouest.example/2024/01/02/storm">`;
    const body = '<article><h1>Storm hits the Breton coast</h1><p class="byline">By Marie Le Gall</p><p>Winds …</p></article>';
    expect(meta(head, body, 'https://ouest.example/2024/01/02/storm?utm=x', 'lang="en"')).to.deep.equal({
      title: 'Storm hits the Breton coast',
      author: 'Marie Le Gall',
      publishedDate: '2024-01-02T06:15:00+01:00',
      language: 'en',
      siteName: 'Ouest Daily',
      description: 'Winds of 150 km/h cut power to 40,000 homes.',
      canonicalUrl: 'https://ouest.example/2024/01/02/storm',
      region: null,
    });
  });

  it('reads the country a page declares: geo tags first, then the region of a locale', () => {
    const region = (head: string, html = '') => meta(head, '<p>Text</p>', 'https://news.example/a', html).region;
    expect(region('<meta name="geo.region" content="US-NY"><meta property="og:locale" content="en_GB">')).to.equal('US');
    expect(region('<meta name="geo.country" content="de">')).to.equal('DE');
    expect(region('<meta property="og:locale" content="fr_CA">')).to.equal('CA');
    expect(region('', 'lang="en-GB"')).to.equal('GB');
    expect(region('', 'lang="zh-Hant"')).to.equal(null);
    expect(region('', 'lang="es-419"')).to.equal(null);
    expect(region('', 'lang="en"')).to.equal(null);
  });
});

describe('page metadata: text', () => {
  it('gives language, word count and reading time of the main text', () => {
    const text = 'The committee published its annual report on Tuesday, describing how the city plans to expand public transport. '.repeat(40);
    expect(describeText(text, null)).to.deep.equal({ language: 'en', wordCount: 680, readingTime: '3 min' });
    expect(describeText('吾輩は猫である。名前はまだ無い。', 'ja')).to.deep.equal({ language: 'ja', wordCount: 9, readingTime: '1 min' });
  });
});

describe('page metadata: hostile pages', () => {
  /** A document of `depth` nested elements, built directly: no parser is in the way. */
  function nested(depth: number, attributes: Record<string, string>, text: string): Document {
    const root = new Document([]);
    let parent: Document | Element = root;
    for (let i = 0; i < depth; i++) {
      const element = new Element(i === 0 ? 'html' : 'div', { ...attributes });
      element.parent = parent;
      parent.children.push(element);
      parent = element;
    }
    const leaf = new Text(text);
    leaf.parent = parent;
    parent.children.push(leaf);
    return root;
  }

  it('walks 100,000 nested elements without recursion, in linear time', () => {
    const started = Date.now();
    const result = extractMetadata(nested(100_000, { class: 'byline' }, 'By Jane Doe'), 'https://example.com/2024/05/17/x');
    expect(Date.now() - started).to.be.below(2000);
    expect(result.publishedDate).to.equal('2024-05-17');
  });

  it('reads 100,000 sibling candidates at bounded cost', () => {
    const body = '<p class="author">Jane Doe</p>'.repeat(100_000);
    const doc = parseDocument(`<html><body><article>${body}</article></body></html>`);
    const started = Date.now();
    expect(extractMetadata(doc, URL).author).to.equal('Jane Doe');
    expect(Date.now() - started).to.be.below(2000);
  });
});
