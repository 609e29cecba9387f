import { expect } from 'chai';
import { cleanHtml } from '../src/html/clean-html.js';
import { parseHtml } from '../src/html/dom.js';
import { applySelectors, checkSelectors, SelectorError } from '../src/html/selectors.js';

const PROSE = 'The survey counted more than four hundred nests along the river this spring, twice as many as ten years ago, and most of them were built in the old willows. ';

const PAGE = `<!doctype html><html><head><title>Nests along the river</title></head><body>
<header><a href="/"><img src="/logo.svg" alt="River Watch"></a><nav><a href="/news">News</a> <a href="javascript:void(0)">Menu</a> <a href="#top">Top</a></nav></header>
<div id="sidebar"><div class="widget"><a href="/donate">Donate</a></div><ul class="related-posts"><li><a href="/owls">Owls return to the mill</a></li></ul></div>
<article><h1>Nests along the river</h1><p>${PROSE}See the <a href="/survey.pdf">full survey</a> and the <a href="/news">news page</a>.</p><p>${PROSE}</p>
<footer class="entry-footer"><a href="/tag/birds">birds</a></footer></article>
<div id="comments"><p>Lovely news! <a href="https://commenter.example">my blog</a></p></div>
<nav class="mobile-menu" style="display:none"><a href="/hidden">Hidden menu</a></nav>
<div class="site-footer"><nav><a href="/privacy">Privacy</a></nav><a href="mailto:team@river.example">Write to us</a></div>
</body></html>`;

describe('other links: the page\'s links outside its content, with where they sit', () => {
  const out = cleanHtml({ html: PAGE, url: 'https://river.example/nests', kind: 'html', format: 'text', clean: true, preserveFormatting: false, otherLinks: true });
  const where = new Map(out.otherLinks.map((link) => [link.url, link]));

  it('places links by the part of the page they sit in, the most telling part winning', () => {
    expect(where.get('https://river.example/')).to.deep.equal({ url: 'https://river.example/', text: 'River Watch', location: 'header' });
    expect(where.get('https://river.example/donate')!.location).to.equal('aside');
    expect(where.get('https://river.example/owls')!.location).to.equal('related');
    expect(where.get('https://commenter.example/')!.location).to.equal('comments');
    expect(where.get('https://river.example/privacy')!.location).to.equal('footer');
    expect(where.get('mailto:team@river.example')!.location).to.equal('footer');
    // An article's own footer is not the page's.
    expect(where.get('https://river.example/tag/birds')!.location).to.equal('body');
  });

  it('leaves out the content\'s own links, hidden parts, scripts and in-page anchors, one entry per URL', () => {
    expect(out.links.map((link) => link.url)).to.deep.equal(['https://river.example/survey.pdf', 'https://river.example/news']);
    expect(where.has('https://river.example/survey.pdf')).to.equal(false);
    expect(where.has('https://river.example/news')).to.equal(false);
    expect(where.has('https://river.example/hidden')).to.equal(false);
    expect([...where.keys()].some((url) => url.startsWith('javascript:') || url.includes('#top'))).to.equal(false);
    expect(new Set(out.otherLinks.map((link) => link.url)).size).to.equal(out.otherLinks.length);
  });

  it('reads none unless asked', () => {
    expect(cleanHtml({ html: PAGE, url: 'https://river.example/nests', kind: 'html', format: 'text', clean: true, preserveFormatting: false }).otherLinks).to.deep.equal([]);
  });
});

describe('selectors: applied to the page before its content is looked for', () => {
  it('removes what exclude selectors match and returns the outermost included elements in page order', () => {
    const doc = parseHtml('<body><div class="a" id="one"><div class="a" id="inner"></div></div><p class="x">x</p><div class="a" id="two"></div></body>');
    const included = applySelectors(doc, { include: ['.a'], exclude: ['p.x'] });
    expect(included!.map((element) => element.attribs.id)).to.deep.equal(['one', 'two']);
    expect(applySelectors(doc, { include: ['p.x'] })).to.deep.equal([]);
    expect(applySelectors(doc, { exclude: ['#two'] })).to.equal(null);
  });

  it('names the first selector that does not compile', () => {
    expect(() => checkSelectors({ include: ['article', 'div >>> p'] })).to.throw(SelectorError).with.property('parameter', 'options.include_selectors[1]');
    expect(() => checkSelectors({ exclude: ['a:nope'] })).to.throw(SelectorError).with.property('selector', 'a:nope');
    expect(() => checkSelectors({ include: ['main .post:not(.ad) > p:nth-child(2n+1)', '[data-x="a, b"]'] })).to.not.throw();
  });

  it('shapes the content: excluded parts leave it, and it is found only inside the included parts', () => {
    const html = `<body><nav><a href="/">Home</a></nav><article><p>${PROSE}</p><div class="promo"><p>${PROSE.replace('survey', 'advert')}</p></div></article><section id="notes"><p>${PROSE.replace('survey', 'footnote')}</p></section></body>`;
    const run = (selectors: { include?: string[]; exclude?: string[] }, clean = true) =>
      cleanHtml({ html, url: 'https://x.example/', kind: 'html', format: 'text', clean, preserveFormatting: false, selectors }).text;
    expect(run({ exclude: ['.promo'] })).to.not.include('advert');
    expect(run({ include: ['#notes'] })).to.include('footnote').and.not.include('The survey counted');
    expect(run({ exclude: ['nav'] }, false)).to.not.include('Home');
  });
});
