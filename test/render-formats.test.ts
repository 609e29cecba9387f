import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Parser } from 'htmlparser2';
import { withoutPageMarkers, type Block, type Inline, type TableRow } from '../src/html/blocks.js';
import { ALLOWED_ATTRIBUTES, ALLOWED_TAGS, LINK_REL, renderHtml } from '../src/html/render/html.js';
import { inlineLinks, inlineText } from '../src/html/render/inline-text.js';
import { schemaDocuments } from '../src/schema/request-validator.js';

// The schema of one json block, as served in the OpenAPI document.
const JSON_BLOCK_SCHEMA = schemaDocuments()['extract-block']!;
import { renderJson } from '../src/html/render/json.js';
import { renderMarkdown } from '../src/html/render/markdown.js';
import { renderText } from '../src/html/render/text.js';

// Builders keep the fixtures readable; they produce plain Block/Inline data as content detection does.
const t = (text: string): Inline => ({ type: 'text', text });
const em = (...children: Inline[]): Inline => ({ type: 'emphasis', strong: false, children });
const strong = (...children: Inline[]): Inline => ({ type: 'emphasis', strong: true, children });
const link = (href: string, ...children: Inline[]): Inline => ({ type: 'link', href, children });
const code = (text: string): Inline => ({ type: 'code', text });
const br: Inline = { type: 'break' };
const img = (src: string, alt: string): Inline => ({ type: 'image', src, alt });
const p = (...children: Inline[]): Block => ({ type: 'paragraph', children });
const h = (level: 1 | 2 | 3 | 4 | 5 | 6, ...children: Inline[]): Block => ({ type: 'heading', level, children });
const ul = (...items: Block[][]): Block => ({ type: 'list', ordered: false, items });
const ol = (...items: Block[][]): Block => ({ type: 'list', ordered: true, items });
const quote = (...blocks: Block[]): Block => ({ type: 'quote', blocks });
const pre = (text: string, language: string | null = null): Block => ({ type: 'code', text, language });
const row = (header: boolean, ...cells: Inline[][]): TableRow => ({ header, cells });
const table = (...rows: TableRow[]): Block => ({ type: 'table', rows });
const figure = (src: string, alt: string, caption: string): Block => ({ type: 'image', src, alt, caption });

const md = (blocks: Block[], preserveFormatting = false): string => renderMarkdown(blocks, { preserveFormatting });
const html = (blocks: Block[], preserveFormatting = false): string => renderHtml(blocks, { preserveFormatting });

/** Every block and inline type, nested lists with code in an item, nested quotes. */
const ARTICLE: Block[] = [
  h(1, t('Getting started')),
  p(t('Install the '), strong(t('CLI')), t(', then run '), code('sev init'), t(' as shown in '), link('https://example.com/docs', t('the docs')), t('.')),
  h(2, t('Steps')),
  ol(
    [p(t('Download'))],
    [p(t('Configure')), ul([p(t('edit '), em(t('config.yml')))], [p(t('save'))])],
    [p(t('Run:')), pre('sev start --port 80', 'sh')],
  ),
  quote(p(t('Simple is better.')), quote(p(t('Nested quote')))),
  table(row(true, [t('Name')], [t('Value')]), row(false, [t('port')], [code('80')])),
  figure('https://example.com/a.png', 'Diagram', 'Figure 1: the pipeline'),
  p(t('Line one'), br, t('line two '), img('https://example.com/icon.png', 'icon')),
];

/** URLs a renderer must never turn into a link or an image. */
const HOSTILE_URLS = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  ' \u0001javascript:alert(1)',
  '\tjava\nscript:alert(1)',
  'vbscript:msgbox(1)',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  '/relative/leftover',
  'file:///etc/passwd',
];

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe('render formats', () => {
  describe('markdown', () => {
    it('renders every block and inline type', () => {
      expect(md(ARTICLE)).to.equal([
        '# Getting started',
        '',
        'Install the **CLI**, then run `sev init` as shown in [the docs](https://example.com/docs).',
        '',
        '## Steps',
        '',
        '1. Download',
        '',
        '2. Configure',
        '   - edit *config.yml*',
        '   - save',
        '',
        '3. Run:',
        '',
        '   ```sh',
        '   sev start --port 80',
        '   ```',
        '',
        '> Simple is better.',
        '>',
        '> > Nested quote',
        '',
        '| Name | Value |',
        '| --- | --- |',
        '| port | `80` |',
        '',
        '![Diagram](https://example.com/a.png)',
        '*Figure 1: the pipeline*',
        '',
        'Line one line two ![icon](https://example.com/icon.png)',
      ].join('\n'));
    });

    it('keeps hard breaks only with preserveFormatting, and collapses source whitespace either way', () => {
      const blocks = [p(t('  Roses  are\n red,'), br, t(' violets '), br, br, t('are blue.  '), br)];
      expect(md(blocks, true)).to.equal('Roses are red,\\\nviolets\\\n\\\nare blue.');
      expect(md(blocks, false)).to.equal('Roses are red, violets are blue.');
    });

    it('keeps a tight list tight and indents nested lists and code under their item', () => {
      const blocks = [ul(
        [p(t('one')), ol([p(t('a'))], [p(t('b')), ul([p(t('deep'))])])],
        [p(t('two'))],
      )];
      expect(md(blocks)).to.equal('- one\n  1. a\n  2. b\n     - deep\n- two');
      const withCode = [ol([p(t('Run')), pre('npm test\n\n  --watch', 'sh')], [p(t('Done'))])];
      expect(md(withCode)).to.equal('1. Run\n\n   ```sh\n   npm test\n\n     --watch\n   ```\n\n2. Done');
    });

    it('keeps adjacent lists of one kind apart by switching the marker', () => {
      expect(md([ul([p(t('a'))]), ul([p(t('b'))]), ul([p(t('c'))]), ol([p(t('d'))]), ol([p(t('e'))])]))
        .to.equal('- a\n\n* b\n\n- c\n\n1. d\n\n1) e');
    });

    it('prefixes every line of nested quotes, blank ones too', () => {
      expect(md([quote(p(t('outer')), quote(p(t('inner'), br, t('second line'))), ul([p(t('item'))]))], true))
        .to.equal('> outer\n>\n> > inner\\\n> > second line\n>\n> - item');
    });

    it('escapes Markdown-significant characters so that text stays text', () => {
      const cases: Array<[Inline[], string]> = [
        [[t('1. not a list')], '1\\. not a list'],
        [[t('2) nor this')], '2\\) nor this'],
        [[t('1.5 million')], '1.5 million'],
        [[t('# not a heading')], '\\# not a heading'],
        [[t('#hashtag')], '#hashtag'],
        [[t('- not a bullet')], '\\- not a bullet'],
        [[t('-5 degrees')], '-5 degrees'],
        [[t('+ plus')], '\\+ plus'],
        [[t('> not a quote')], '\\> not a quote'],
        [[t('---')], '\\---'],
        [[t('===')], '\\==='],
        [[t('*stars* and **more**')], '\\*stars\\* and \\*\\*more\\*\\*'],
        [[t('_under_ snake_case __init__')], '\\_under\\_ snake_case \\_\\_init\\_\\_'],
        [[t('`tick` ~~strike~~ a|b')], '\\`tick\\` \\~\\~strike\\~\\~ a\\|b'],
        [[t('[x](y) <b>bold</b> \\ back')], '\\[x\\](y) \\<b>bold\\</b> \\\\ back'],
        [[t('AT&T &amp; &#35; &')], 'AT&T \\&amp; \\&#35; &'],
        [[t('Wow!'), link('https://e.com/', t('x'))], 'Wow\\![x](https://e.com/)'],
        [[t('Wow!')], 'Wow!'],
      ];
      for (const [children, expected] of cases) expect(md([p(...children)]), expected).to.equal(expected);
    });

    it('escapes block markers at the start of every line after a hard break', () => {
      expect(md([p(t('a'), br, t('# b'), br, t('- c'), br, t('10. d'), br, t('==='))], true))
        .to.equal('a\\\n\\# b\\\n\\- c\\\n10\\. d\\\n\\===');
    });

    it('protects a trailing "#" of a heading from being read as a closing sequence', () => {
      expect(md([h(2, t('Learn C#'))])).to.equal('## Learn C#');
      expect(md([h(2, t('Issue #'))])).to.equal('## Issue \\#');
      expect(md([h(3, t('#'))])).to.equal('### \\#');
      expect(md([h(2, t('one'), br, t('line'))], true)).to.equal('## one line');
    });

    it('writes code spans and fences with more backticks than the code holds', () => {
      expect(md([p(code('a`b'))])).to.equal('``a`b``');
      expect(md([p(code('`x`'))])).to.equal('`` `x` ``');
      expect(md([p(code(' padded '))])).to.equal('`  padded  `');
      expect(md([pre('x = ```\n````', 'python')])).to.equal('`````python\nx = ```\n````\n`````');
      expect(md([pre('plain', 'not a language!')])).to.equal('```\nplain\n```');
    });

    it('writes emphasis only where a parser sees it', () => {
      expect(md([p(t('a '), em(t(' spaced ')), t('b'))])).to.equal('a *spaced* b');
      expect(md([p(t('say '), em(t('"hi"')), t('.'))])).to.equal('say *"hi"*.');
      expect(md([p(t('un'), em(t('frigging')), t('believable'))])).to.equal('un*frigging*believable');
      // The closer of "a*(b)*c" is not right-flanking: the emphasis is dropped, not left as stray asterisks.
      expect(md([p(t('a'), em(t('(b)')), t('c'))])).to.equal('a(b)c');
      expect(md([p(strong(t('x '), em(t('y'))), t('.'))])).to.equal('**x *y***.');
      // "*one*" right after "**same**" would fuse into one ambiguous "***" run, so it goes plain.
      expect(md([p(strong(strong(t('same'))), em(t('one')), em(t('two')))])).to.equal('**same**one*two*');
    });

    it('writes links and images with escaped text and safe destinations', () => {
      expect(md([p(link('https://en.wikipedia.org/wiki/Foo_(bar)', t('Foo [bar]')))]))
        .to.equal('[Foo \\[bar\\]](<https://en.wikipedia.org/wiki/Foo_(bar)>)');
      expect(md([p(link('mailto:Jane Doe <jane@example.com>', t('mail')))]))
        .to.equal('[mail](<mailto:Jane Doe \\<jane@example.com\\>>)');
      expect(md([p(link('https://example.com/a b', t('space')))])).to.equal('[space](https://example.com/a%20b)');
      expect(md([p(link('https://example.com/?q=1&amp;r=2', t('amp')))])).to.equal('[amp](https://example.com/?q=1\\&amp;r=2)');
      expect(md([p(link('https://example.com/', strong(t('bold'))))])).to.equal('[**bold**](https://example.com/)');
      expect(md([p(link('https://example.com/x', link('https://other.example/', t('inner'))))])).to.equal('[inner](https://example.com/x)');
      expect(md([p(t('see '), link('https://example.com/empty'))])).to.equal('see [https://example.com/empty](https://example.com/empty)');
      expect(md([p(img('https://example.com/a (1).png', 'a [b]'))])).to.equal('![a \\[b\\]](<https://example.com/a%20(1).png>)');
    });

    it('never writes a link or image for a refused URL scheme', () => {
      for (const url of HOSTILE_URLS) {
        const out = md([p(t('click '), link(url, t('here')), t(' now')), p(img(url, 'pic')), figure(url, 'alt', 'Caption')]);
        expect(out, url).to.equal('click here now\n\n*Caption*');
      }
      expect(md([p(link('mailto:jane@example.com', t('mail')))])).to.equal('[mail](mailto:jane@example.com)');
      expect(md([p(img('http://example.com/i.png', ''))])).to.equal('![](http://example.com/i.png)');
    });

    it('renders GFM tables with a header row, escaped pipes and padded rows', () => {
      const headed = table(row(true, [t('a|b')], [code('x|y')]), row(false, [t('1')], [t('2'), br, t('3')], [t('extra')]));
      expect(md([headed], true)).to.equal('| a\\\\|b | `x\\|y` |  |\n| --- | --- | --- |\n| 1 | 2<br>3 | extra |');
      expect(md([headed], false)).to.equal('| a\\\\|b | `x\\|y` |  |\n| --- | --- | --- |\n| 1 | 2 3 | extra |');
      // No header row on the page: an empty one rather than a promoted data row.
      expect(md([table(row(false, [t('x')], [t('y')]), row(false, [t('z')]))])).to.equal('|  |  |\n| --- | --- |\n| x | y |\n| z |  |');
    });

    it('renders an image block with its caption as an italic line', () => {
      expect(md([figure('https://example.com/p.jpg', 'A cat', '(Photo: *me*)')]))
        .to.equal('![A cat](https://example.com/p.jpg)\n*(Photo: \\*me\\*)*');
      expect(md([figure('https://example.com/p.jpg', '', '')])).to.equal('![](https://example.com/p.jpg)');
    });

    it('drops blocks without content', () => {
      expect(md([p(t('  ')), p(br), h(2, em(t(' '))), ul([p(t(''))]), quote(p()), table(row(true, [t(' ')])), pre('\n\n'), p(t('kept'))]))
        .to.equal('kept');
    });
  });

  describe('html', () => {
    it('renders every block and inline type as allowlisted elements', () => {
      expect(html(ARTICLE, true)).to.equal([
        '<h1>Getting started</h1>',
        '<p>Install the <strong>CLI</strong>, then run <code>sev init</code> as shown in <a href="https://example.com/docs" rel="noopener nofollow">the docs</a>.</p>',
        '<h2>Steps</h2>',
        '<ol>',
        '<li><p>Download</p></li>',
        '<li><p>Configure</p>',
        '<ul>',
        '<li>edit <em>config.yml</em></li>',
        '<li>save</li>',
        '</ul></li>',
        '<li><p>Run:</p>',
        '<pre><code class="language-sh">sev start --port 80</code></pre></li>',
        '</ol>',
        '<blockquote>',
        '<p>Simple is better.</p>',
        '<blockquote>',
        '<p>Nested quote</p>',
        '</blockquote>',
        '</blockquote>',
        '<table>',
        '<thead>',
        '<tr><th>Name</th><th>Value</th></tr>',
        '</thead>',
        '<tbody>',
        '<tr><td>port</td><td><code>80</code></td></tr>',
        '</tbody>',
        '</table>',
        '<figure><img src="https://example.com/a.png" alt="Diagram"><figcaption>Figure 1: the pipeline</figcaption></figure>',
        '<p>Line one<br>line two <img src="https://example.com/icon.png" alt="icon"></p>',
      ].join('\n'));
    });

    it('writes <br> only with preserveFormatting', () => {
      expect(html([p(t('a'), br, t('b'))], true)).to.equal('<p>a<br>b</p>');
      expect(html([p(t('a'), br, t('b'))], false)).to.equal('<p>a b</p>');
    });

    it('escapes every text and attribute value', () => {
      const out = html([
        h(2, t('<script>alert("x")</script> & \'more\'')),
        p(link('https://example.com/?a=1&b="2"', t('q')), img('https://example.com/i.png', '" onerror="alert(1)')),
        pre('if (a < b && c > d) {}', 'js'),
        figure('https://example.com/f.png', '<alt>', '</figcaption><script>'),
      ]);
      expect(out).to.equal([
        '<h2>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;</h2>',
        '<p><a href="https://example.com/?a=1&amp;b=%222%22" rel="noopener nofollow">q</a><img src="https://example.com/i.png" alt="&quot; onerror=&quot;alert(1)"></p>',
        '<pre><code class="language-js">if (a &lt; b &amp;&amp; c &gt; d) {}</code></pre>',
        '<figure><img src="https://example.com/f.png" alt="&lt;alt&gt;"><figcaption>&lt;/figcaption&gt;&lt;script&gt;</figcaption></figure>',
      ].join('\n'));
    });

    it('sets a language class only for plain language names', () => {
      expect(html([pre('x', 'C++')])).to.equal('<pre><code class="language-c++">x</code></pre>');
      expect(html([pre('x', 'objective-c')])).to.equal('<pre><code class="language-objective-c">x</code></pre>');
      for (const language of ['js" onclick="x', 'a b', 'lang<script>', '', 'py_thon']) {
        expect(html([pre('x', language)]), language).to.equal('<pre><code>x</code></pre>');
      }
    });

    it('turns refused links into their text and drops refused images', () => {
      for (const url of HOSTILE_URLS) {
        const out = html([p(t('click '), link(url, t('here'))), p(img(url, 'pic'), t('after')), figure(url, 'alt', 'Caption')]);
        expect(out, url).to.equal('<p>click here</p>\n<p>after</p>\n<p><em>Caption</em></p>');
      }
      expect(html([p(link('mailto:a@example.com', t('mail')))])).to.equal('<p><a href="mailto:a@example.com" rel="noopener nofollow">mail</a></p>');
      expect(html([p(img('mailto:a@example.com', 'x'))])).to.equal('');
    });

    it('puts leading header rows in <thead> and keeps later header rows as <th>', () => {
      expect(html([table(row(true, [t('A')]), row(true, [t('B')]), row(false, [t('1')]), row(true, [t('Section')]))])).to.equal(
        '<table>\n<thead>\n<tr><th>A</th></tr>\n<tr><th>B</th></tr>\n</thead>\n<tbody>\n<tr><td>1</td></tr>\n<tr><th>Section</th></tr>\n</tbody>\n</table>',
      );
      expect(html([table(row(false, [t('only')]))])).to.equal('<table>\n<tbody>\n<tr><td>only</td></tr>\n</tbody>\n</table>');
    });

    it('contains only allowlisted tags and attributes, whatever the content holds', () => {
      const hostile = '<script>alert(1)</script><img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a><style>*{}</style><!-- c --><![CDATA[x]]>"\'&';
      const hostileUrls = [...HOSTILE_URLS, 'https://example.com/"><script>alert(1)</script>', 'https://example.com/\' onmouseover=\'alert(1)'];
      const fixture: Block[] = [
        h(1, t(hostile), em(t(hostile)), strong(t(hostile))),
        p(t(hostile), code(hostile), br, ...hostileUrls.flatMap((url) => [link(url, t(hostile)), img(url, hostile)])),
        ul([p(t(hostile)), pre(hostile, hostile)], [quote(p(link(hostile, t(hostile))))]),
        ol([h(3, t(hostile))]),
        table(row(true, [t(hostile)]), row(false, [link('https://example.com/', t(hostile))], [img('https://example.com/i.png', hostile)])),
        pre(hostile, 'js'),
        quote(quote(p(t(hostile)))),
        ...hostileUrls.map((url) => figure(url, hostile, hostile)),
      ];
      const out = html(fixture, true);
      const seen = new Set<string>();
      let text = '';
      const parser = new Parser({
        onopentag(name, attributes) {
          seen.add(name);
          expect(ALLOWED_TAGS.has(name), `tag <${name}>`).to.equal(true);
          for (const [attribute, value] of Object.entries(attributes)) {
            expect(ALLOWED_ATTRIBUTES[name]?.has(attribute), `${name}[${attribute}]`).to.equal(true);
            if (attribute === 'href') expect(value).to.match(/^(https?|mailto):/);
            if (attribute === 'src') expect(value).to.match(/^https?:\/\//);
            if (attribute === 'rel') expect(value).to.equal(LINK_REL);
            if (attribute === 'class') expect(value).to.match(/^language-[a-z0-9+#-]+$/);
          }
          if (name === 'a') expect(attributes.rel).to.equal(LINK_REL);
        },
        ontext(data) {
          text += data;
        },
        oncomment() {
          expect.fail('a comment reached the output');
        },
        onprocessinginstruction(name) {
          expect.fail(`a declaration reached the output: ${name}`);
        },
      }, { decodeEntities: true });
      parser.end(out);
      expect([...seen].sort()).to.include.members(['a', 'blockquote', 'code', 'em', 'figure', 'figcaption', 'h1', 'img', 'li', 'p', 'pre', 'strong', 'table']);
      // The hostile markup survives as readable text, not as elements.
      expect(text).to.include(hostile);
    });
  });

  describe('json', () => {
    it('renders every block type as typed plain-text blocks', () => {
      expect(renderJson(ARTICLE)).to.deep.equal([
        { type: 'heading', level: 1, text: 'Getting started' },
        {
          type: 'paragraph',
          text: 'Install the CLI, then run sev init as shown in the docs.',
          links: [{ text: 'the docs', url: 'https://example.com/docs' }],
        },
        { type: 'heading', level: 2, text: 'Steps' },
        {
          type: 'list',
          ordered: true,
          items: [
            { text: 'Download' },
            { text: 'Configure', blocks: [{ type: 'list', ordered: false, items: [{ text: 'edit config.yml' }, { text: 'save' }] }] },
            { text: 'Run:', blocks: [{ type: 'code', language: 'sh', text: 'sev start --port 80' }] },
          ],
        },
        { type: 'quote', text: 'Simple is better.\n\nNested quote' },
        { type: 'table', header: ['Name', 'Value'], rows: [['port', '80']] },
        { type: 'image', url: 'https://example.com/a.png', alt: 'Diagram', caption: 'Figure 1: the pipeline' },
        { type: 'paragraph', text: 'Line one\nline two icon' },
      ]);
    });

    it('gives list items whose first block is not a paragraph an empty text and all blocks', () => {
      expect(renderJson([ul([pre('x')], [ul([p(t('nested'))]), p(t('after'))])])).to.deep.equal([{
        type: 'list',
        ordered: false,
        items: [
          { text: '', blocks: [{ type: 'code', language: null, text: 'x' }] },
          { text: '', blocks: [{ type: 'list', ordered: false, items: [{ text: 'nested' }] }, { type: 'paragraph', text: 'after' }] },
        ],
      }]);
    });

    it('reports a table without header row as header null and keeps ragged rows', () => {
      expect(renderJson([table(row(false, [t('a')], [t('b')]), row(false, [t('c')]))])).to.deep.equal([
        { type: 'table', header: null, rows: [['a', 'b'], ['c']] },
      ]);
    });

    it('flattens quotes to text with their links', () => {
      const blocks = [quote(p(t('See '), link('https://example.com/', t('this'))), ul([p(t('one'))], [p(t('two'))]), quote(p(t('inner'))), table(row(false, [t('a')], [t('b')])))];
      expect(renderJson(blocks)).to.deep.equal([{
        type: 'quote',
        text: 'See this\n\none\ntwo\n\ninner\n\na | b',
        links: [{ text: 'this', url: 'https://example.com/' }],
      }]);
    });

    it('applies the URL policy: refused links stay text, refused images leave their caption', () => {
      for (const url of HOSTILE_URLS) {
        expect(renderJson([p(link(url, t('here')), t(' and '), link('https://ok.example/', t('there'))), figure(url, 'alt', 'Caption'), figure(url, 'alt', '')]), url)
          .to.deep.equal([
            { type: 'paragraph', text: 'here and there', links: [{ text: 'there', url: 'https://ok.example/' }] },
            { type: 'paragraph', text: 'Caption' },
          ]);
      }
    });

    it('keeps line breaks as "\\n" and code text exactly', () => {
      expect(renderJson([p(t('a '), br, t(' b')), pre('\r\n  indented\r\n\ttab\n\n')])).to.deep.equal([
        { type: 'paragraph', text: 'a\nb' },
        { type: 'code', language: null, text: '  indented\n\ttab' },
      ]);
    });

    it('validates against schemas/extract-block.json, whose every property is described', () => {
      const ajv = new Ajv2020({ strict: true, allErrors: true });
      const validate = ajv.compile(JSON_BLOCK_SCHEMA);
      const blocks = renderJson([...ARTICLE, ul([pre('x')]), table(row(false, [t('a')])), quote(p(link('https://e.com/', t('x'))))]);
      for (const block of blocks) expect(validate(block), JSON.stringify(validate.errors)).to.equal(true);
      expect(validate({ type: 'paragraph', text: 'x', extra: 1 })).to.equal(false);
      expect(validate({ type: 'code', language: 'bad lang', text: 'x' })).to.equal(false);

      const undescribed: string[] = [];
      const walk = (node: unknown, path: string): void => {
        if (typeof node !== 'object' || node === null) return;
        const record = node as Record<string, unknown>;
        if (record.properties) {
          for (const [name, property] of Object.entries(record.properties as Record<string, Record<string, unknown>>)) {
            if (typeof property.description !== 'string') undescribed.push(`${path}.${name}`);
          }
        }
        for (const [key, child] of Object.entries(record)) walk(child, `${path}/${key}`);
      };
      walk(JSON_BLOCK_SCHEMA, '#');
      expect(undescribed).to.deep.equal([]);
    });
  });

  describe('shared behaviour', () => {
    it('marks where a PDF page starts in every format, its number a positive integer whatever the stored model says', () => {
      const paged: Block[] = [{ type: 'page', number: 1 }, p(t('First.')), { type: 'page', number: 2 }, h(2, t('Second'))];
      expect(md(paged)).to.equal('<!-- page 1 -->\n\nFirst.\n\n<!-- page 2 -->\n\n## Second');
      expect(html(paged)).to.equal('<hr data-page="1">\n<p>First.</p>\n<hr data-page="2">\n<h2>Second</h2>');
      expect(renderText(paged, { preserveFormatting: false })).to.equal('--- page 1 ---\n\nFirst.\n\n--- page 2 ---\n\nSecond');
      expect(renderJson(paged)).to.deep.equal([{ type: 'page', number: 1 }, { type: 'paragraph', text: 'First.' }, { type: 'page', number: 2 }, { type: 'heading', level: 2, text: 'Second' }]);
      const hostile = JSON.parse('[{"type":"page","number":"2\\"><script>alert(1)</script>"},{"type":"page","number":-5}]') as Block[];
      expect(html(hostile)).to.equal('<hr data-page="1">\n<hr data-page="1">');
      expect(withoutPageMarkers(paged)).to.deep.equal([p(t('First.')), h(2, t('Second'))]);
    });

    it('flattens inline runs to text and lists their links', () => {
      const runs = [t('a '), strong(t('b '), link('https://e.com/', em(t('c')))), code(' d'), br, img('https://e.com/i.png', 'e')];
      expect(inlineText(runs)).to.equal('a b c d\ne');
      expect(inlineLinks(runs)).to.deep.equal([{ text: 'c', url: 'https://e.com/' }]);
    });

    it('never modifies its input', () => {
      const frozen = deepFreeze(structuredClone(ARTICLE));
      expect(() => [md(frozen, true), md(frozen), html(frozen, true), html(frozen), renderJson(frozen)]).not.to.throw();
      expect(frozen).to.deep.equal(ARTICLE);
    });

    it('stays linear on long runs of small inlines', () => {
      // Quadratic string building would take tens of seconds here; linear takes well under one.
      const many: Inline[] = [];
      for (let i = 0; i < 100_000; i++) many.push(i % 3 === 0 ? em(t('(x)')) : t(i % 2 ? 'word ' : ' y'));
      const started = Date.now();
      md([p(...many)], true);
      html([p(...many)], true);
      renderJson([p(...many)]);
      expect(Date.now() - started).to.be.below(5000);
    });
  });
});
