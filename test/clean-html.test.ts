import { expect } from 'chai';
import { cleanHtml, type OutputFormat } from '../workers/pool/clean-html.js';

const URL_BASE = 'https://example.com/blog/post.html';
const clean = (html: string, format: OutputFormat = 'text') => cleanHtml({ html, url: URL_BASE, format });

const ARTICLE = `<!doctype html>
<html lang="en">
<head>
  <title>  Page   title  </title>
  <meta name="author" content="Ada Lovelace">
  <meta property="article:published_time" content="2024-03-05T10:00:00+02:00">
  <style>body { color: red }</style>
</head>
<body>
  <header><p>Site header text</p></header>
  <nav><ul><li><a href="/home">Nav home link</a></li></ul></nav>
  <main>
    <h1>Main heading</h1>
    <p>First   paragraph
       spans lines.</p>
    <h2>Sub heading</h2>
    <ul><li>Item one</li><li>Item two</li></ul>
    <blockquote>A wise quote</blockquote>
    <pre>const x = 1;
  return x;</pre>
    <p>Text with &lt;script&gt;alert(1)&lt;/script&gt; in it.</p>
  </main>
  <aside><p>Sidebar advert</p></aside>
  <form><label>Email signup</label><input name="email"><button>Subscribe button</button></form>
  <script>document.write('script body')</script>
  <noscript>Enable JavaScript</noscript>
  <footer><p>Footer copyright</p></footer>
</body>
</html>`;

describe('clean-html', () => {
  describe('content selection', () => {
    const result = clean(ARTICLE);

    it('drops script, style, nav, header, footer, aside and form content', () => {
      for (const junk of ['color: red', 'Site header text', 'Nav home link', 'Sidebar advert', 'Email signup', 'Subscribe button', 'script body', 'Enable JavaScript', 'Footer copyright']) {
        expect(result.content, junk).not.to.include(junk);
      }
    });

    it('keeps headings, paragraphs, list items, blockquotes and preformatted text as typed blocks', () => {
      expect(result.blocks).to.deep.equal([
        { type: 'heading', text: 'Main heading', level: 1 },
        { type: 'paragraph', text: 'First paragraph spans lines.' },
        { type: 'heading', text: 'Sub heading', level: 2 },
        { type: 'list_item', text: 'Item one' },
        { type: 'list_item', text: 'Item two' },
        { type: 'quote', text: 'A wise quote' },
        { type: 'code', text: 'const x = 1;\n  return x;' },
        { type: 'paragraph', text: 'Text with <script>alert(1)</script> in it.' },
      ]);
    });

    it('keeps the type of a blockquote or list item whose text is wrapped in <p>', () => {
      const { blocks } = clean('<blockquote><p>Quoted words</p></blockquote><ul><li><p>Listed words</p></li></ul>');
      expect(blocks).to.deep.equal([
        { type: 'quote', text: 'Quoted words' },
        { type: 'list_item', text: 'Listed words' },
      ]);
    });

    it('counts the words of the kept content only', () => {
      expect(clean('<h1>Hello world</h1><p>One two  three.</p><script>var a = b + c;</script><nav>x y z</nav>').wordCount).to.equal(5);
      expect(clean('<nav>only navigation</nav>').wordCount).to.equal(0);
    });
  });

  describe('metadata', () => {
    it('reads title, author, published date (as ISO) and language', () => {
      const result = clean(ARTICLE);
      expect(result.title).to.equal('Page title');
      expect(result.author).to.equal('Ada Lovelace');
      expect(result.publishedDate).to.equal('2024-03-05T08:00:00.000Z');
      expect(result.language).to.equal('en');
    });

    it('prefers og:title over <title>', () => {
      const html = '<head><title>Site | Generic</title><meta property="og:title" content="Specific Article"></head><p>x</p>';
      expect(clean(html).title).to.equal('Specific Article');
    });

    it('returns null for missing metadata', () => {
      const result = clean('<p>Just text</p>');
      expect(result.title).to.equal(null);
      expect(result.author).to.equal(null);
      expect(result.publishedDate).to.equal(null);
      expect(result.language).to.equal(null);
    });

    it('normalises a schema.org datePublished and rejects an unparseable date', () => {
      expect(clean('<meta itemprop="datePublished" content="2023-11-20"><p>x</p>').publishedDate).to.equal('2023-11-20T00:00:00.000Z');
      expect(clean('<meta name="date" content="2023-11-20T12:30:00Z"><p>x</p>').publishedDate).to.equal('2023-11-20T12:30:00.000Z');
      expect(clean('<meta property="article:published_time" content="last tuesday-ish"><p>x</p>').publishedDate).to.equal(null);
    });

    it('reads article:author when there is no author meta', () => {
      expect(clean('<meta property="article:author" content="Grace Hopper"><p>x</p>').author).to.equal('Grace Hopper');
    });
  });

  describe('output formats', () => {
    it('text: blocks separated by blank lines', () => {
      expect(clean('<h1>Title</h1><p>One.</p><p>Two.</p><ul><li>Three</li></ul>', 'text').content).to.equal('Title\n\nOne.\n\nTwo.\n\nThree');
    });

    it('markdown: heading, list, quote and fenced code syntax', () => {
      const { content } = clean(ARTICLE, 'markdown');
      expect(content.split('\n\n')).to.deep.equal([
        '# Main heading',
        'First paragraph spans lines.',
        '## Sub heading',
        '- Item one',
        '- Item two',
        '> A wise quote',
        '```\nconst x = 1;\n  return x;\n```',
        'Text with <script>alert(1)</script> in it.',
      ]);
    });

    it('html: structural tags, escaped text and no script element', () => {
      const { content } = clean(ARTICLE, 'html');
      expect(content).to.include('<h1>Main heading</h1>');
      expect(content).to.include('<h2>Sub heading</h2>');
      expect(content).to.include('<li>Item one</li>');
      expect(content).to.include('<blockquote>A wise quote</blockquote>');
      expect(content).to.include('<pre><code>const x = 1;\n  return x;</code></pre>');
      expect(content).to.include('<p>Text with &lt;script&gt;alert(1)&lt;/script&gt; in it.</p>');
      expect(content).not.to.match(/<script/i);
      expect(content).not.to.include('script body');
    });

    it('html: escapes markup-significant characters in text', () => {
      expect(clean('<p>a &amp; b &quot;c&quot; &lt;img src=x onerror=alert(1)&gt;</p>', 'html').content).to.equal(
        '<p>a &amp; b &quot;c&quot; &lt;img src=x onerror=alert(1)&gt;</p>',
      );
    });

    it('json: a parseable list of blocks', () => {
      const result = clean(ARTICLE, 'json');
      const parsed = JSON.parse(result.content) as unknown;
      expect(parsed).to.deep.equal(result.blocks);
      expect(parsed).to.deep.include({ type: 'heading', text: 'Main heading', level: 1 });
    });
  });

  describe('images and links', () => {
    const html = `<p>
      <img src="/img/a.png" alt=" Alt text ">
      <img src="../c.jpg">
      <img src="data:image/png;base64,AAAA" alt="inline">
      <a href="next.html">Next   page</a>
      <a href="https://other.example/x?y=1">Elsewhere</a>
      <a href="javascript:alert(1)">Click me</a>
      <a href=" JavaScript:alert(2)">Sneaky</a>
      <a href="mailto:a@example.com">Mail</a>
    </p><nav><a href="/hidden">Hidden</a><img src="/logo.png"></nav>`;
    const result = clean(html);

    it('resolves image sources against the page URL and keeps alt text', () => {
      expect(result.images).to.deep.equal([
        { url: 'https://example.com/img/a.png', alt: 'Alt text', caption: '' },
        { url: 'https://example.com/c.jpg', alt: '', caption: '' },
      ]);
    });

    it('resolves links to absolute URLs and drops javascript: (and other non-http) links', () => {
      expect(result.links).to.deep.equal([
        { url: 'https://example.com/blog/next.html', text: 'Next page' },
        { url: 'https://other.example/x?y=1', text: 'Elsewhere' },
      ]);
    });
  });

  describe('malformed markup', () => {
    it('a stray </nav> does not swallow the rest of the page', () => {
      expect(clean('<p>One</p></nav><p>Two</p><p>Three</p>').content).to.equal('One\n\nTwo\n\nThree');
    });

    it('an unclosed skipped element ends with its parent', () => {
      expect(clean('<div><aside>Advert</div><p>Body text</p>').content).to.equal('Body text');
      expect(clean('<section><nav><a href="/">Home</a></section><p>Body text</p>').content).to.equal('Body text');
    });

    it('unclosed paragraphs and list items still produce every block', () => {
      expect(clean('<p>One<p>Two<ul><li>Three<li>Four</ul><p>Five').blocks.map((b) => b.text)).to.deep.equal(['One', 'Two', 'Three', 'Four', 'Five']);
    });

    it('an <embed> (a void element) does not swallow the rest of the page', () => {
      expect(clean('<p>Before</p><embed src="movie.swf"><p>After</p>').content).to.equal('Before\n\nAfter');
    });
  });
});
