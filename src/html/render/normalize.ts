import type { Block, Inline, TableRow } from '../blocks.js';
import { codeLanguage, safeHref, safeImageSrc } from './policy.js';

/** Options of the markdown and html renderers, from the request. */
export interface RenderOptions {
  /** options.preserve_formatting of the request: keep the hard line breaks of the original. */
  preserveFormatting: boolean;
}

export interface NormalizeOptions {
  /** Keep 'break' inlines; without it they become spaces like any other source whitespace. */
  keepBreaks: boolean;
}

type ListBlock = Extract<Block, { type: 'list' }>;

/**
 * One clean-up of the block model shared by the markdown, html and json renderers, so the three
 * agree on what the content is and each renderer only has to spell it:
 *
 * - whitespace as a browser shows it: runs of ASCII whitespace in text become one space (a
 *   no-break space is content and stays), no whitespace at all at the start or end of a block,
 *   no space next to a line break;
 * - whitespace and line breaks at the edges of emphasis and links move outside them, because
 *   Markdown emphasis must not start or end with whitespace ("** x**" is not bold);
 * - emphasis inside emphasis of the same kind and links inside links are unwrapped;
 * - links and images pass the URL policy: a refused link keeps its text, a refused image goes,
 *   and an image block whose source is refused keeps only its caption (as an italic paragraph);
 * - 'break' inlines stay only with keepBreaks (options.preserve_formatting), else become spaces;
 * - blocks left without content are dropped (empty paragraphs, items, lists, tables, quotes).
 *
 * The result holds fresh objects only; the input is never modified.
 */
export function normalizeBlocks(blocks: readonly Block[], options: NormalizeOptions): Block[] {
  const out: Block[] = [];
  for (const block of blocks) {
    const normal = normalizeBlock(block, options);
    if (normal) out.push(normal);
  }
  return out;
}

/** Inline runs of one block (or one table cell) with the whitespace and URL rules above. */
export function normalizeInlines(inlines: readonly Inline[], options: NormalizeOptions): Inline[] {
  const out = run(inlines, { keepBreaks: options.keepBreaks, inLink: false, inEmphasis: false, inStrong: false });
  trimEdges(out);
  return out;
}

/**
 * A list is loose (CommonMark) when an item holds blocks separated by a blank line. Only a
 * paragraph followed by a nested list can follow each other without one, so any other pair of
 * blocks in an item makes the list loose. Markdown and html use it to agree on <p> in items.
 */
export function isLooseList(list: ListBlock): boolean {
  return list.items.some((item) => item.some((block, i) => i > 0 && !(block.type === 'list' && item[i - 1]?.type === 'paragraph')));
}

function normalizeBlock(block: Block, options: NormalizeOptions): Block | null {
  switch (block.type) {
    case 'heading': {
      const children = normalizeInlines(block.children, options);
      // The level becomes part of a tag name in html: clamp it even though the type promises 1-6.
      const level = Math.min(6, Math.max(1, Math.trunc(Number(block.level)) || 1)) as 1 | 2 | 3 | 4 | 5 | 6;
      return children.length > 0 ? { type: 'heading', level, children } : null;
    }
    case 'paragraph': {
      const children = normalizeInlines(block.children, options);
      return children.length > 0 ? { type: 'paragraph', children } : null;
    }
    case 'list': {
      const items = block.items.map((item) => normalizeBlocks(item, options)).filter((item) => item.length > 0);
      return items.length > 0 ? { type: 'list', ordered: block.ordered, items } : null;
    }
    case 'table': {
      const rows: TableRow[] = [];
      for (const row of block.rows) {
        const cells = row.cells.map((cell) => normalizeInlines(cell, options));
        if (cells.some((cell) => cell.length > 0)) rows.push({ header: row.header, cells });
      }
      return rows.length > 0 ? { type: 'table', rows } : null;
    }
    case 'code': {
      const text = codeText(block.text);
      return text.trim() ? { type: 'code', text, language: codeLanguage(block.language) } : null;
    }
    case 'quote': {
      const blocks = normalizeBlocks(block.blocks, options);
      return blocks.length > 0 ? { type: 'quote', blocks } : null;
    }
    case 'image': {
      const caption = collapse(block.caption);
      const src = safeImageSrc(block.src);
      if (src !== null) return { type: 'image', src, alt: collapse(block.alt), caption };
      return caption ? { type: 'paragraph', children: [{ type: 'emphasis', strong: false, children: [{ type: 'text', text: caption }] }] } : null;
    }
    case 'page':
      // The number becomes part of an attribute in html: a positive integer, whatever the stored JSON holds.
      return { type: 'page', number: Math.max(1, Math.trunc(Number(block.number)) || 1) };
  }
}

const SPACE_RUN = /[ \t\n\r\f]+/g;
const LINE_END = /\r\n?|\n/g;

function collapse(text: string): string {
  return text.replace(SPACE_RUN, ' ').trim();
}

/** Code keeps its whitespace; only line endings are unified and blank lines at both ends dropped. */
function codeText(text: string): string {
  const unified = text.replace(LINE_END, '\n');
  // Index loops instead of /^\n+|\n+$/: a long newline run inside the text would make that regex quadratic.
  let start = 0;
  let end = unified.length;
  while (start < end && unified[start] === '\n') start++;
  while (end > start && unified[end - 1] === '\n') end--;
  return unified.slice(start, end);
}

interface Scope {
  keepBreaks: boolean;
  inLink: boolean;
  inEmphasis: boolean;
  inStrong: boolean;
}

function run(inlines: readonly Inline[], scope: Scope): Inline[] {
  const out: Inline[] = [];
  for (const node of inlines) add(out, node, scope);
  return out;
}

function add(out: Inline[], node: Inline, scope: Scope): void {
  switch (node.type) {
    case 'text':
      append(out, { type: 'text', text: node.text.replace(SPACE_RUN, ' ') });
      return;
    case 'code': {
      // A code span cannot hold a line ending in Markdown tables or headings; html shows one as a space anyway.
      const text = node.text.replace(LINE_END, ' ');
      if (text.trim()) append(out, { type: 'code', text });
      return;
    }
    case 'break':
      append(out, scope.keepBreaks ? { type: 'break' } : { type: 'text', text: ' ' });
      return;
    case 'image': {
      const src = safeImageSrc(node.src);
      if (src !== null) append(out, { type: 'image', src, alt: collapse(node.alt) });
      return;
    }
    case 'emphasis': {
      if (node.strong ? scope.inStrong : scope.inEmphasis) {
        for (const child of node.children) add(out, child, scope);
        return;
      }
      const inner = run(node.children, node.strong ? { ...scope, inStrong: true } : { ...scope, inEmphasis: true });
      wrap(out, inner, (children) => (children.length > 0 ? { type: 'emphasis', strong: node.strong, children } : null));
      return;
    }
    case 'link': {
      const href = scope.inLink ? null : safeHref(node.href);
      if (href === null) {
        for (const child of node.children) add(out, child, scope);
        return;
      }
      const inner = run(node.children, { ...scope, inLink: true });
      // A link with nothing to click would vanish from the text; its address is the best label.
      wrap(out, inner, (children) => ({ type: 'link', href, children: children.length > 0 ? children : [{ type: 'text', text: href }] }));
      return;
    }
  }
}

/**
 * Moves edge spaces and breaks of a container's content outside it, then appends what `make`
 * builds of the rest, or the rest itself when `make` declines (null).
 */
function wrap(out: Inline[], inner: Inline[], make: (children: Inline[]) => Inline | null): void {
  const leading = takeLeading(inner);
  const trailing = takeTrailing(inner);
  for (const node of leading) append(out, node);
  const container = make(inner);
  if (container) append(out, container);
  else for (const node of inner) append(out, node);
  for (const node of trailing) append(out, node);
}

/**
 * Appends without a double space and without a space next to a break. Adjacent texts stay
 * separate nodes: growing one string and reading its end again would copy it every time (V8
 * flattens a concatenation on character access), quadratic for a run of many small texts.
 * Objects in `out` are always created here or in add(), so they may be updated in place.
 */
function append(out: Inline[], node: Inline): void {
  const last = out[out.length - 1];
  if (node.type === 'text') {
    const afterSpace = last?.type === 'break' || (last?.type === 'text' && last.text.endsWith(' '));
    const text = afterSpace && node.text.startsWith(' ') ? node.text.slice(1) : node.text;
    if (text) out.push({ type: 'text', text });
    return;
  }
  if (node.type === 'break' && last?.type === 'text' && last.text.endsWith(' ')) {
    last.text = last.text.slice(0, -1);
    if (!last.text) out.pop();
  }
  out.push(node);
}

/*
 * Edges: breaks and whitespace of any kind (String#trim's set, so no-break spaces too) at the
 * start or end of a run. Markdown emphasis cannot start or end with them, and some Markdown
 * parsers strip a no-break space from a paragraph's end, which turns a hard break before it
 * into a stray backslash. Each helper cuts the edge off with one splice, so a run opening with
 * thousands of breaks stays linear.
 */

function trimEdges(run: Inline[]): void {
  takeLeading(run);
  takeTrailing(run);
}

function isBlank(node: Inline): boolean {
  return node.type === 'break' || (node.type === 'text' && !node.text.trim());
}

/** Removes and returns the breaks and whitespace at the start of a run. */
function takeLeading(run: Inline[]): Inline[] {
  let count = 0;
  while (count < run.length && isBlank(run[count]!)) count++;
  const taken = run.splice(0, count);
  const first = run[0];
  if (first?.type === 'text') {
    const rest = first.text.trimStart();
    if (rest.length < first.text.length) taken.push({ type: 'text', text: first.text.slice(0, first.text.length - rest.length) });
    first.text = rest;
  }
  return taken;
}

/** Removes and returns the breaks and whitespace at the end of a run, in order. */
function takeTrailing(run: Inline[]): Inline[] {
  let start = run.length;
  while (start > 0 && isBlank(run[start - 1]!)) start--;
  const taken = run.splice(start);
  const last = run[run.length - 1];
  if (last?.type === 'text') {
    const rest = last.text.trimEnd();
    if (rest.length < last.text.length) taken.unshift({ type: 'text', text: last.text.slice(rest.length) });
    last.text = rest;
  }
  return taken;
}
