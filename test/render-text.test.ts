import { expect } from 'chai';
import type { Block } from '../src/html/blocks.js';
import { renderText } from '../src/html/render/text.js';

const flat = { preserveFormatting: false };
const kept = { preserveFormatting: true };

const BLOCKS: Block[] = [
  { type: 'heading', level: 1, children: [{ type: 'text', text: 'Title' }] },
  {
    type: 'paragraph',
    children: [
      { type: 'text', text: 'First line' },
      { type: 'break' },
      { type: 'text', text: 'second   line with ' },
      { type: 'link', href: 'https://example.com/', children: [{ type: 'emphasis', strong: true, children: [{ type: 'text', text: 'a link' }] }] },
      { type: 'text', text: ' and ' },
      { type: 'code', text: 'x = 1' },
      { type: 'text', text: '.' },
    ],
  },
  {
    type: 'list',
    ordered: false,
    items: [
      [{ type: 'paragraph', children: [{ type: 'text', text: 'one' }] }],
      [
        { type: 'paragraph', children: [{ type: 'text', text: 'two' }] },
        { type: 'list', ordered: true, items: [[{ type: 'paragraph', children: [{ type: 'text', text: 'two.a' }] }]] },
      ],
    ],
  },
  {
    type: 'table',
    rows: [
      { header: true, cells: [[{ type: 'text', text: 'Name' }], [{ type: 'text', text: 'Score' }]] },
      { header: false, cells: [[{ type: 'text', text: 'Ada' }], [{ type: 'text', text: '10' }]] },
    ],
  },
  { type: 'code', text: 'if (x) {\n  y();\n}', language: 'js' },
  { type: 'quote', blocks: [{ type: 'paragraph', children: [{ type: 'text', text: 'Quoted.' }] }] },
  { type: 'image', src: 'https://example.com/a.png', alt: 'alt text', caption: 'A caption' },
];

describe('render/text', () => {
  it('separates blocks by blank lines, lists one item per line, table rows one per line', () => {
    expect(renderText(BLOCKS, flat)).to.equal(
      [
        'Title',
        'First line second line with a link and x = 1.',
        'one\ntwo\ntwo.a',
        'Name | Score\nAda | 10',
        'if (x) {\n  y();\n}',
        'Quoted.',
      ].join('\n\n'),
    );
  });

  it('keeps line breaks with preserveFormatting, and code lines always', () => {
    const text = renderText(BLOCKS, kept);
    expect(text).to.include('First line\nsecond line with a link and x = 1.');
    expect(text).to.include('if (x) {\n  y();\n}');
  });

  it('leaves pictures and their captions out (they travel in the images list)', () => {
    const text = renderText(BLOCKS, flat);
    expect(text).not.to.include('A caption');
    expect(text).not.to.include('alt text');
  });

  it('collapses whitespace inside a block and drops empty blocks', () => {
    const blocks: Block[] = [
      { type: 'paragraph', children: [{ type: 'text', text: '  spaced \n\t out  ' }] },
      { type: 'paragraph', children: [{ type: 'text', text: '   ' }] },
      { type: 'paragraph', children: [{ type: 'text', text: 'next' }] },
    ];
    expect(renderText(blocks, flat)).to.equal('spaced out\n\nnext');
  });

  it('renders nothing for no blocks', () => {
    expect(renderText([], flat)).to.equal('');
  });
});
