import type { Block, Inline } from '../blocks.js';
import { longestRun, renderInlines } from './markdown-inline.js';
import { isLooseList, normalizeBlocks, normalizeInlines, type RenderOptions } from './normalize.js';

/**
 * The `markdown` format: the main content as CommonMark with the GFM table extension.
 *
 * - Headings are ATX ("## Title"); a line break inside one becomes a space.
 * - Paragraphs are one line each. With preserveFormatting a 'break' inline is a hard break
 *   (backslash + newline); without it, line breaks are spaces, like all source whitespace.
 * - Lists use "-" and "1."; a list that directly follows a list of the same kind switches to
 *   "*" or "1)" so the two stay separate. Item content is indented to the item's text; a list
 *   is tight unless an item holds blocks that need a blank line between them.
 * - Tables always get a header row, as GFM requires: the table's first row when it is a header
 *   row, otherwise an empty one (promoting a data row would invent a header the page did not
 *   have; json reports such a table with header: null). Rows are padded to the widest row,
 *   because GFM drops cells beyond the header's count. "|" in cells is escaped, line breaks
 *   become <br> with preserveFormatting and spaces without.
 * - Code blocks are fenced with backticks, one more than the longest run inside (at least
 *   three), with the language as info string when the policy accepts it.
 * - Quotes prefix every line, blank ones too, with ">", nesting included.
 * - Images are "![alt](src)", followed on the next line by the caption in italics.
 * - A PDF's page marker is the HTML comment "<!-- page N -->": it keeps the number for a
 *   program and shows nothing where the Markdown is displayed.
 * - Links are "[text](url)", the URL in <...> when it holds spaces, parentheses or angle
 *   brackets; links and images with refused URLs (policy.ts) are left out, their text kept.
 * - Text is escaped so that it never turns into markup, and emphasis is written only where a
 *   CommonMark parser recognises it at that position, else its text stays plain
 *   (markdown-inline.ts).
 * - Blocks are separated by one blank line; there is no trailing newline.
 */
export function renderMarkdown(blocks: Block[], options: RenderOptions): string {
  return sequence(normalizeBlocks(blocks, { keepBreaks: options.preserveFormatting }), false);
}

function sequence(blocks: readonly Block[], inItem: boolean): string {
  let out = '';
  let previous: Block | undefined;
  let alternate = false;
  for (const block of blocks) {
    // In a list item a nested list may follow the item's paragraph directly (a tight item).
    if (previous) out += inItem && previous.type === 'paragraph' && block.type === 'list' ? '\n' : '\n\n';
    alternate = block.type === 'list' && previous?.type === 'list' && previous.ordered === block.ordered && !alternate;
    out += render(block, alternate);
    previous = block;
  }
  return out;
}

function render(block: Block, alternate: boolean): string {
  switch (block.type) {
    case 'heading': {
      // An ATX heading is one line: its breaks become spaces, and spaces next to them collapse.
      const children = normalizeInlines(block.children, { keepBreaks: false });
      return `${'#'.repeat(block.level)} ${protectClosingHashes(renderInlines(children, { breaks: 'hard', lineStart: false }))}`;
    }
    case 'paragraph':
      return renderInlines(block.children, { breaks: 'hard', lineStart: true });
    case 'list': {
      const items = block.items.map((item, index) => {
        const marker = block.ordered ? `${index + 1}${alternate ? ')' : '.'}` : alternate ? '*' : '-';
        return prefixLines(sequence(item, true), `${marker} `, ' '.repeat(marker.length + 1), '');
      });
      return items.join(isLooseList(block) ? '\n\n' : '\n');
    }
    case 'table':
      return table(block.rows);
    case 'code': {
      const fence = '`'.repeat(Math.max(3, longestRun(block.text, '`') + 1));
      return `${fence}${block.language ?? ''}\n${block.text}\n${fence}`;
    }
    case 'quote':
      return prefixLines(sequence(block.blocks, false), '> ', '> ', '>');
    case 'image': {
      const image = renderInlines([{ type: 'image', src: block.src, alt: block.alt }], { breaks: 'hard', lineStart: true });
      if (!block.caption) return image;
      const caption: Inline = { type: 'emphasis', strong: false, children: [{ type: 'text', text: block.caption }] };
      return `${image}\n${renderInlines([caption], { breaks: 'hard', lineStart: true })}`;
    }
    case 'page':
      return `<!-- page ${block.number} -->`;
  }
}

/**
 * "## C #" would lose its "#" as an optional closing sequence: a trailing run of "#" preceded
 * by a space (or making up the whole heading) gets a backslash. "C#" needs none.
 */
function protectClosingHashes(text: string): string {
  let start = text.length;
  while (start > 0 && text[start - 1] === '#') start--;
  if (start === text.length || (start > 0 && text[start - 1] !== ' ')) return text;
  return `${text.slice(0, start)}\\${text.slice(start)}`;
}

function table(rows: Extract<Block, { type: 'table' }>['rows']): string {
  const width = rows.reduce((max, row) => Math.max(max, row.cells.length), 0);
  const header = rows[0]?.header ? rows[0] : null;
  const line = (cells: readonly Inline[][]): string => {
    let out = '|';
    for (let i = 0; i < width; i++) out += ` ${cell(cells[i] ?? [])} |`;
    return out;
  };
  const lines = [line(header?.cells ?? []), `|${' --- |'.repeat(width)}`];
  for (const row of header ? rows.slice(1) : rows) lines.push(line(row.cells));
  return lines.join('\n');
}

/**
 * GFM splits a row at every "|" not preceded by a backslash and then removes one backslash
 * before each escaped pipe, inside code spans and link destinations too. Escaping every "|" of
 * the rendered cell therefore gives back exactly the inline Markdown after the split.
 */
function cell(inlines: readonly Inline[]): string {
  return renderInlines(inlines, { breaks: 'html', lineStart: false }).replaceAll('|', '\\|');
}

/** Prefixes the first line, the other non-blank lines and the blank lines of a block's Markdown. */
function prefixLines(text: string, first: string, rest: string, blank: string): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? first + line : line ? rest + line : blank))
    .join('\n');
}
