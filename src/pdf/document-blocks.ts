import type { Block, Inline } from '../html/blocks.js';
import type { Line } from './flow-items.js';
import type { PageBlock, Paragraph } from './paragraphs.js';
import type { TypeStats } from './type-stats.js';

/**
 * The pages' paragraphs and tables → the document model every output format renders
 * (src/html/blocks.ts), each page opened by its page marker.
 *
 * Headings are told by their type: a short paragraph (four lines, 300 characters at most) set at
 * least 15% larger than the body text is a heading, its level given by its size among the
 * heading sizes of the whole document (the largest 1, the next 2, …; sizes within 5% are one
 * level); a single short line set at the body size in another font than the page's body text
 * (bold, as a run-in title) is a heading one level below the smallest of those. Consecutive list
 * items make a list; tables keep their rows.
 */
export interface PageParagraphs {
  number: number;
  blocks: PageBlock[];
}

const HEADING_SCALE = 1.15;
const SAME_LEVEL = 0.95;

export function documentBlocks(pages: readonly PageParagraphs[], stats: TypeStats): Block[] {
  const levels = headingLevels(pages, stats);
  const out: Block[] = [];
  for (const page of pages) {
    out.push({ type: 'page', number: page.number });
    const bodyFont = pageBodyFont(page, stats);
    let list: Extract<Block, { type: 'list' }> | null = null;
    for (const block of page.blocks) {
      if (block.kind === 'table') {
        list = null;
        out.push({ type: 'table', rows: block.table.rows.map((cells, i) => ({ header: i === 0 && block.table.header, cells: cells.map(textRun) })) });
        continue;
      }
      const level = headingLevel(block, stats, bodyFont, levels);
      if (level !== null) {
        list = null;
        out.push({ type: 'heading', level, children: textRun(plainText(block)) });
        continue;
      }
      if (!block.marker) {
        list = null;
        out.push({ type: 'paragraph', children: inlines(block.lines) });
        continue;
      }
      const [first, ...rest] = block.lines as [Line, ...Line[]];
      const paragraph: Block = { type: 'paragraph', children: inlines([{ ...first, text: first.text.slice(block.marker.length) }, ...rest]) };
      if (!list || list.ordered !== block.marker.ordered) {
        list = { type: 'list', ordered: block.marker.ordered, items: [] };
        out.push(list);
      }
      list.items.push([paragraph]);
    }
  }
  return out;
}

/** Heading sizes of the document, largest first, each with its level (1 to 5). */
function headingLevels(pages: readonly PageParagraphs[], stats: TypeStats): Array<{ size: number; level: number }> {
  const sizes = new Set<number>();
  for (const page of pages) for (const block of page.blocks) if (block.kind === 'paragraph' && isLargeHeading(block, stats)) sizes.add(block.size);
  const levels: Array<{ size: number; level: number }> = [];
  let levelTop = Infinity;
  let level = 0;
  for (const size of [...sizes].sort((a, b) => b - a)) {
    if (size < levelTop * SAME_LEVEL) {
      level = Math.min(5, level + 1);
      levelTop = size;
    }
    levels.push({ size, level });
  }
  return levels;
}

function isLargeHeading(block: Paragraph, stats: TypeStats): boolean {
  return block.size >= stats.bodySize * HEADING_SCALE && block.lines.length <= 4 && plainText(block).length <= 300;
}

function headingLevel(block: Paragraph, stats: TypeStats, bodyFont: string | null, levels: ReadonlyArray<{ size: number; level: number }>): 1 | 2 | 3 | 4 | 5 | 6 | null {
  if (isLargeHeading(block, stats)) return (levels.find((l) => l.size === block.size)?.level ?? 1) as 1 | 2 | 3 | 4 | 5;
  const text = plainText(block);
  const runIn = block.lines.length === 1 && bodyFont !== null && block.font !== bodyFont && block.size >= stats.bodySize * SAME_LEVEL
    && text.length <= 100 && text.split(/\s+/).length <= 14 && !/[.,;]$/.test(text) && /^[\p{Lu}\p{Lo}\p{N}]/u.test(text);
  if (!runIn) return null;
  return Math.min(6, (levels[levels.length - 1]?.level ?? 0) + 1) as 1 | 2 | 3 | 4 | 5 | 6;
}

/** The font of most of the page's characters at the body size: fonts are per page in many PDFs (subsets). */
function pageBodyFont(page: PageParagraphs, stats: TypeStats): string | null {
  const chars = new Map<string, number>();
  for (const block of page.blocks) {
    if (block.kind !== 'paragraph') continue;
    for (const line of block.lines) if (Math.abs(line.size - stats.bodySize) <= 0.5) chars.set(line.font, (chars.get(line.font) ?? 0) + line.text.length);
  }
  let font: string | null = null;
  let most = 0;
  for (const [name, count] of chars) {
    if (count > most) {
      font = name;
      most = count;
    }
  }
  return font;
}

/** A paragraph's lines as one text (headings, and the measure of a paragraph's length). */
function plainText(block: Paragraph): string {
  return inlines(block.lines).map((inline) => (inline.type === 'text' ? inline.text : '')).join('');
}

/**
 * Lines as one text. A PDF's line ends are where the text wrapped, not line breaks of its own (as
 * <br> is in a page), so lines join with a space, or with none where a word runs on: after a soft
 * hyphen (dropped), after a hyphen before a lower-case letter (kept: "well-known" must stay whole,
 * and without a dictionary a word hyphenated at the margin cannot be told from one), between CJK
 * characters.
 */
function inlines(lines: readonly Line[]): Inline[] {
  let text = '';
  for (const line of lines) {
    if (text === '') text = line.text;
    else if (text.endsWith('\u00AD')) text = text.slice(0, -1) + line.text;
    else if ((/\p{L}-$/u.test(text) && /^\p{Ll}/u.test(line.text)) || (isCjk(text.at(-1)!) && isCjk(line.text[0]!))) text += line.text;
    else text += ` ${line.text}`;
  }
  return textRun(text);
}

// With CJK punctuation and full-width forms (，), which belong to no script.
const CJK = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\u3000-\u303f\uff00-\uffef]/u;

function isCjk(char: string): boolean {
  return CJK.test(char);
}

function textRun(text: string): Inline[] {
  return text === '' ? [] : [{ type: 'text', text }];
}
