import { expect } from 'chai';
import { Element, Text, type AnyNode, type ParentNode } from 'domhandler';
import { DEFAULT_DOM_LIMITS, DomLimitError, MAX_DEPTH, baseUrl, findFirst, parseHtml } from '../src/html/dom.js';

/** No DOM limits: how the tree is built past them, for an operator who raises HTML_MAX_NODES and HTML_MAX_DEPTH. */
const UNLIMITED = { maxNodes: Infinity, maxDepth: Infinity };

/** A compact rendering of the tree (elements as name(children), text quoted) to compare shapes. */
function shape(node: AnyNode): string {
  if (node instanceof Text) return JSON.stringify(node.data);
  if (node instanceof Element) return `${node.name}(${node.children.map(shape).join(',')})`;
  return (node as ParentNode).children.map(shape).join(',');
}

const body = (html: string): Element => findFirst(parseHtml(html), (e) => e.name === 'body')!;

function depthOf(root: ParentNode): number {
  let max = 0;
  const pending: Array<[ParentNode, number]> = [[root, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    max = Math.max(max, depth);
    for (const child of node.children) if (child instanceof Element) pending.push([child, depth + 1]);
  }
  return max;
}

/** What `run` throws, or undefined. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

function timed<T>(run: () => T): { result: T; ms: number } {
  const started = performance.now();
  const result = run();
  return { result, ms: performance.now() - started };
}

describe('dom', () => {
  describe('parseHtml', () => {
    it('builds a domhandler tree with decoded entities, attributes and lower-case names', () => {
      const doc = parseHtml('<HTML><Body CLASS="x"><P id=a title="&quot;q&quot;">a &amp; b &lt;c&gt;</P></Body></HTML>');
      expect(shape(doc)).to.equal('html(body(p("a & b <c>")))');
      const p = findFirst(doc, (e) => e.name === 'p')!;
      expect(p.attribs).to.deep.equal({ id: 'a', title: '"q"' });
      expect(p.parent).to.be.instanceOf(Element);
      expect((p.parent as Element).attribs.class).to.equal('x');
    });

    it('keeps script and style text raw (JSON-LD stays readable)', () => {
      const doc = parseHtml('<script type="application/ld+json">{"a":"<p>&amp;</p>"}</script><p>x</p>');
      const script = findFirst(doc, (e) => e.name === 'script')!;
      expect((script.children[0] as Text).data).to.equal('{"a":"<p>&amp;</p>"}');
    });

    it('links siblings and parents', () => {
      const root = body('<body><p>a</p><p>b</p></body>');
      const [first, second] = root.children as Element[];
      expect(first!.next).to.equal(second);
      expect(second!.prev).to.equal(first);
      expect(second!.parent).to.equal(root);
    });

    it('follows the common implied-end rules of HTML', () => {
      expect(shape(body('<body><p>one<p>two<div>block</div>'))).to.equal('body(p("one"),p("two"),div("block"))');
      expect(shape(body('<body><ul><li>a<li>b<ul><li>c</ul><li>d</ul>'))).to.equal('body(ul(li("a"),li("b",ul(li("c"))),li("d")))');
      expect(shape(body('<body><table><tr><td>1<td>2<tr><td>3</table>'))).to.equal('body(table(tr(td("1"),td("2")),tr(td("3"))))');
      expect(shape(body('<body><dl><dt>t<dd>d<dt>u</dl>'))).to.equal('body(dl(dt("t"),dd("d"),dt("u")))');
    });

    it('never lets a stray inline end tag close a block, nor a stray block end tag leave a table cell', () => {
      expect(shape(body('<body><div><span>a</div></span>b</div>'))).to.equal('body(div(span("a")),"b")');
      expect(shape(body('<body><div><p><b>bold</p> after</div>'))).to.equal('body(div(p(b("bold"))," after"))');
      expect(shape(body('<body><div><table><tr><td>x</div>y</td></tr></table>z</div>'))).to.equal('body(div(table(tr(td("xy"))),"z"))');
    });

    it('keeps content after a stray </body> or </html> inside the body', () => {
      expect(shape(body('<body><p>a</p></body></html><p>b</p>'))).to.equal('body(p("a"),p("b"))');
    });

    it('closes an unclosed <head> when body content starts', () => {
      const doc = parseHtml('<html><head><title>T</title><div>content</div>');
      expect(shape(doc)).to.equal('html(head(title("T")),div("content"))');
    });

    it('treats void elements as leaves and </br> as a line break', () => {
      expect(shape(body('<body><p>a<br>b<img src=x>c</br>d</p>'))).to.equal('body(p("a",br(),"b",img(),"c",br(),"d"))');
    });

    it('honours self-closing syntax only inside SVG', () => {
      expect(shape(body('<body><div/>text</body>'))).to.equal('body(div("text"))');
      expect(shape(body('<body><svg><path/><rect/></svg>after</body>'))).to.equal('body(svg(path(),rect()),"after")');
    });

    it('caps nesting: 100,000 nested divs parse quickly into a tree no deeper than the cap, text kept', () => {
      const html = `<body>${'<div>'.repeat(100_000)}deep text${'</div>'.repeat(100_000)}<p>after</p></body>`;
      const { result: doc, ms } = timed(() => parseHtml(html, UNLIMITED));
      expect(ms).to.be.below(3000);
      expect(depthOf(doc)).to.be.at.most(MAX_DEPTH + 2);
      const text = findFirst(doc, (e) => e.children.some((c) => c instanceof Text && c.data === 'deep text'));
      expect(text).to.not.equal(null);
      expect(findFirst(doc, (e) => e.name === 'p')?.parent).to.have.property('name', 'body');
    });

    it('keeps script text inside its element beyond the nesting cap', () => {
      const doc = parseHtml(`<body>${'<div>'.repeat(MAX_DEPTH + 50)}<script>var secret = 1;</script>visible`);
      const script = findFirst(doc, (e) => e.name === 'script')!;
      expect(shape(script)).to.equal('script("var secret = 1;")');
      expect(depthOf(doc)).to.be.at.most(MAX_DEPTH + 2);
    });

    it('stays linear on unclosed and mismatched tags', () => {
      const unclosed = timed(() => parseHtml('<b><i><span>'.repeat(50_000) + 'x' + '</div></p></td>'.repeat(50_000), UNLIMITED));
      expect(unclosed.ms).to.be.below(3000);
    });

    it('stops at the node limit while building: elements and text nodes, all told', () => {
      const limits = { maxNodes: 1000, maxDepth: 100 };
      // Two nodes each: exactly the limit, then one more.
      expect(() => parseHtml('<i>x</i>'.repeat(500), limits)).to.not.throw();
      const refused = thrown(() => parseHtml(`${'<i>x</i>'.repeat(500)}<i>`, limits));
      expect(refused).to.be.instanceOf(DomLimitError).and.include({ limit: 'nodes', max: 1000, message: 'page too complex: more than 1000 elements and text nodes' });
      // A million tiny elements: refused after a quarter of them, long before the tree fills a pool thread.
      const million = timed(() => thrown(() => parseHtml(`<body>${'<i>x</i>'.repeat(1_000_000)}`)));
      expect(million.result).to.be.instanceOf(DomLimitError).and.include({ limit: 'nodes', max: DEFAULT_DOM_LIMITS.maxNodes });
      expect(million.ms).to.be.below(3000);
    });

    it('stops at the depth limit, counting the elements flattened past the cap as the page nests them', () => {
      const limits = { maxNodes: 1_000_000, maxDepth: MAX_DEPTH + 100 };
      // body, then divs up to the limit: allowed, closed or not.
      expect(() => parseHtml(`<body>${'<div>'.repeat(MAX_DEPTH + 99)}x`, limits)).to.not.throw();
      expect(() => parseHtml(`<body>${'<div>x</div>'.repeat(10_000)}`, limits)).to.not.throw();
      // Elements closed past the cap give their depth back.
      expect(() => parseHtml(`<body>${'<div>'.repeat(MAX_DEPTH)}${'<b>x</b>'.repeat(1000)}`, limits)).to.not.throw();
      const refused = thrown(() => parseHtml(`<body>${'<div>'.repeat(MAX_DEPTH + 100)}x`, limits));
      expect(refused).to.be.instanceOf(DomLimitError).and.include({ limit: 'depth', max: MAX_DEPTH + 100, message: `page too complex: elements nested more than ${MAX_DEPTH + 100} deep` });
    });

    it('treats tag and attribute names like constructor or __proto__ as ordinary names', () => {
      const doc = parseHtml('<body><constructor>a</constructor><hasownproperty __proto__="x" constructor="y">b<tostring>c</body>');
      expect(shape(findFirst(doc, (e) => e.name === 'body')!)).to.equal('body(constructor("a"),hasownproperty("b",tostring("c")))');
      const element = findFirst(doc, (e) => e.name === 'hasownproperty')!;
      expect(Object.getPrototypeOf(element.attribs)).to.equal(Object.prototype);
      expect(element.attribs.constructor).to.equal('y');
    });

    it('parses a 5 MB single line and binary garbage without throwing', () => {
      const line = timed(() => parseHtml(`<p>${'word '.repeat(1_000_000)}</p>`));
      expect(line.ms).to.be.below(3000);
      let seed = 42;
      const bytes = Buffer.alloc(2_000_000);
      for (let i = 0; i < bytes.length; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        bytes[i] = seed & 0xff;
      }
      const garbage = timed(() => parseHtml(bytes.toString('latin1')));
      expect(garbage.ms).to.be.below(3000);
    });
  });

  describe('baseUrl', () => {
    it('is the page URL without a <base>', () => {
      expect(baseUrl(parseHtml('<p>x</p>'), 'https://example.com/a/b.html')).to.equal('https://example.com/a/b.html');
    });

    it('resolves a relative <base href> against the page URL, first one wins', () => {
      const doc = parseHtml('<head><base href="/static/"><base href="https://other.example/"></head>');
      expect(baseUrl(doc, 'https://example.com/a/b.html')).to.equal('https://example.com/static/');
    });

    it('ignores a <base> with a non-http(s) or unparseable target', () => {
      expect(baseUrl(parseHtml('<base href="javascript:alert(1)">'), 'https://example.com/')).to.equal('https://example.com/');
      expect(baseUrl(parseHtml('<base href="http://[bad">'), 'https://example.com/')).to.equal('https://example.com/');
    });
  });
});
