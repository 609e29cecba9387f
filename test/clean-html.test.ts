import { expect } from 'chai';
import { cleanHtml, renderStored, type CleanHtmlInput, type OutputFormat } from '../src/html/clean-html.js';
import type { JsonBlock } from '../src/html/render/json.js';

const URL_BASE = 'https://example.com/blog/post.html';
const clean = (html: string, options: Partial<CleanHtmlInput> = {}) =>
  cleanHtml({ html, url: URL_BASE, kind: 'html', format: 'text', clean: true, preserveFormatting: false, ...options });

const PROSE = 'The committee met on Tuesday to review the results of the first year of the programme, and agreed that the pilot had met most of its goals. ';

const ARTICLE = `<!doctype html>
<html lang="en">
<head>
  <title>How the pilot went | Example News</title>
  <meta name="author" content="Ada Lovelace">
  <meta property="og:site_name" content="Example News">
  <meta name="description" content="A year of the pilot, reviewed.">
  <link rel="canonical" href="/blog/pilot">
  <meta property="article:published_time" content="2024-03-05T10:00:00+02:00">
</head>
<body>
  <header><nav><a href="/">Home</a> <a href="/world">World</a> <a href="/sport">Sport</a></nav></header>
  <article>
    <h1>How the pilot went</h1>
    <p>${PROSE.repeat(3)}</p>
    <h2>What comes next</h2>
    <p>${PROSE.repeat(2)}Line one<br>line two.</p>
    <ul><li>Expand to two more cities.</li><li>Publish the data.</li></ul>
  </article>
  <footer><p>Copyright Example News. All rights reserved.</p></footer>
  <script>document.write('tracking')</script>
</body>
</html>`;

describe('cleaning task', () => {
  it('returns the main content in every format from the same blocks, the headline left to metadata', () => {
    const text = clean(ARTICLE).content as string;
    expect(text.startsWith(PROSE.trim())).to.equal(true);
    expect(text).to.include('Expand to two more cities.').and.not.include('Sport').and.not.include('tracking').and.not.include('Copyright');

    const markdown = clean(ARTICLE, { format: 'markdown' }).content as string;
    expect(markdown).to.include('## What comes next').and.match(/^- Expand to two more cities\.$/m).and.not.include('# How the pilot went');

    const html = clean(ARTICLE, { format: 'html' }).content as string;
    expect(html).to.include('<h2>What comes next</h2>').and.include('<li>Publish the data.</li>').and.not.include('<script');

    const json = clean(ARTICLE, { format: 'json' }).content as JsonBlock[];
    expect(json[1]).to.deep.include({ type: 'heading', level: 2, text: 'What comes next' });
    expect(json.map((b) => b.type)).to.deep.equal(['paragraph', 'heading', 'paragraph', 'list']);
  });

  it('gives the plain text for storage whatever the format', () => {
    const result = clean(ARTICLE, { format: 'html' });
    expect(result.text).to.equal(clean(ARTICLE).content);
  });

  it('merges the page metadata with what the text tells', () => {
    const { metadata } = clean(ARTICLE);
    expect(metadata).to.deep.include({
      title: 'How the pilot went',
      author: 'Ada Lovelace',
      publishedDate: '2024-03-05T10:00:00+02:00',
      language: 'en',
      siteName: 'Example News',
      description: 'A year of the pilot, reviewed.',
      canonicalUrl: 'https://example.com/blog/pilot',
    });
    expect(metadata.wordCount).to.be.within(150, 170);
    expect(metadata.readingTime).to.equal('1 min');
  });

  it('keeps line breaks only with preserveFormatting', () => {
    expect(clean(ARTICLE).content).to.include('Line one line two.');
    expect(clean(ARTICLE, { preserveFormatting: true }).content).to.include('Line one\nline two.');
  });

  it('converts the whole body when clean is false', () => {
    const whole = clean(ARTICLE, { clean: false }).content as string;
    expect(whole).to.include('Sport').and.include('Copyright Example News').and.include('Publish the data.').and.not.include('tracking');
  });

  it('returns plain text as it is, and as paragraphs in the other formats', () => {
    const body = 'First paragraph of a note.\n\nSecond paragraph, with *stars*.';
    expect(clean(body, { kind: 'text' }).content).to.equal(body);
    expect(clean(body, { kind: 'text', format: 'markdown' }).content).to.equal('First paragraph of a note.\n\nSecond paragraph, with \\*stars\\*.');
    expect(clean(body, { kind: 'text', format: 'json' }).content).to.have.length(2);
    expect(clean(body, { kind: 'text' }).metadata.wordCount).to.equal(9);
  });

  it('scores a clear article high, and a page of links or nothing low', () => {
    const article = clean(ARTICLE).quality;
    const links = clean(`<body><ul>${Array.from({ length: 30 }, (_, i) => `<li><a href="/s/${i}">Story number ${i} of the day</a></li>`).join('')}</ul></body>`).quality;
    const short = clean('<body><p>Just one short line.</p></body>').quality;
    expect(article).to.be.within(0.7, 1);
    expect(links).to.be.below(article - 0.2);
    expect(short).to.be.below(article - 0.2);
    expect(clean('<body><nav><a href="/">Home</a></nav></body>').quality).to.equal(0);
  });

  it('renders stored blocks exactly as the first extraction did, in any format', () => {
    for (const format of ['text', 'markdown', 'html', 'json'] as OutputFormat[]) {
      const first = clean(ARTICLE, { format });
      const again = renderStored({ blocksJson: JSON.stringify(first.blocks), format, preserveFormatting: false, language: 'en' });
      expect(again.content, format).to.deep.equal(first.content);
      expect(again.links).to.deep.equal(first.links);
      expect(again.readingTime).to.equal(first.metadata.readingTime);
    }
  });
});
