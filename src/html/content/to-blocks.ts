import { Element, Text, type ChildNode } from 'domhandler';
import type { Block, Inline, TableRow } from '../blocks.js';
import { BLOCK_TAGS, HEADING_LEVEL } from './block-tags.js';
import { resolveImage, resolveLink } from './references.js';

/**
 * Converts a DOM subtree into the block model: block elements become typed blocks, inline
 * runs between them paragraphs of inline runs. Recursion follows the DOM, whose depth the
 * parser caps (dom.ts MAX_DEPTH), so it is bounded.
 */
export interface ConvertOptions {
  /** Base URL for relative references. */
  base: string;
  /** Elements left out, with their subtree (boilerplate, hidden, never-content). */
  skip: (element: Element) => boolean;
}

/** Emphasis elements and whether they are strong (Maps: tag names come from the page). */
const EMPHASIS = new Map([['em', false], ['i', false], ['cite', false], ['dfn', false], ['strong', true], ['b', true]]);
const CODE = new Set(['code', 'kbd', 'samp', 'tt', 'var']);
const LANGUAGE = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/i;

/** The blocks of the given nodes, in order. */
export function toBlocks(nodes: readonly ChildNode[], options: ConvertOptions): Block[] {
  const blocks: Block[] = [];
  new Converter(options).blocks(nodes, blocks);
  return blocks;
}

/**
 * The walk appends to the arrays it is given rather than returning new ones: no copying at
 * every level (linear time on deep markup) and no spreading of huge arrays as arguments.
 */
class Converter {
  /** Memo of isInlineOnly, so nested inline wrappers are examined once each. */
  private readonly inlineOnly = new Map<Element, boolean>();

  constructor(private readonly options: ConvertOptions) {}

  /** An inline element holding only inline content flows into the current paragraph. */
  private isInlineOnly(element: Element): boolean {
    let known = this.inlineOnly.get(element);
    if (known === undefined) {
      known = element.children.every((child) => !(child instanceof Element) || (!BLOCK_TAGS.has(child.name) && this.isInlineOnly(child)));
      this.inlineOnly.set(element, known);
    }
    return known;
  }

  /** The blocks of a container's children, inline runs between block children becoming paragraphs. */
  blocks(nodes: readonly ChildNode[], out: Block[]): void {
    let run: Inline[] = [];
    const flush = (): void => {
      if (run.length > 0) this.pushParagraph(out, run);
      run = [];
    };
    for (const child of nodes) {
      if (child instanceof Text) {
        run.push({ type: 'text', text: child.data });
      } else if (child instanceof Element && !this.options.skip(child)) {
        if (BLOCK_TAGS.has(child.name) || (child.name !== 'a' && !this.isInlineOnly(child))) {
          flush();
          this.block(child, out);
        } else {
          this.inline(child, run);
        }
      }
    }
    flush();
  }

  private block(element: Element, out: Block[]): void {
    const name = element.name;
    const level = HEADING_LEVEL.get(name);
    if (level !== undefined) {
      const children = tidy(this.inlines(element, []));
      if (hasText(children)) out.push({ type: 'heading', level, children });
      return;
    }
    switch (name) {
      case 'p':
        this.pushParagraph(out, this.inlines(element, []));
        return;
      case 'ul':
      case 'ol':
      case 'menu':
      case 'dir':
        this.list(element, name === 'ol', out);
        return;
      case 'pre':
      case 'listing':
      case 'xmp':
      case 'plaintext':
        this.code(element, out);
        return;
      case 'blockquote': {
        const blocks: Block[] = [];
        this.blocks(element.children, blocks);
        if (blocks.length > 0) out.push({ type: 'quote', blocks });
        return;
      }
      case 'figure':
        this.figure(element, out);
        return;
      case 'table':
        if (isDataTable(element)) this.table(element, out);
        else this.blocks(element.children, out);
        return;
      case 'img':
        this.image(element, '', out);
        return;
      case 'hr':
        return;
      default:
        this.blocks(element.children, out);
    }
  }

  private list(element: Element, ordered: boolean, out: Block[]): void {
    const items: Block[][] = [];
    for (const child of element.children) {
      if (child instanceof Element && !this.options.skip(child)) {
        const item: Block[] = [];
        this.blocks(child.name === 'li' ? child.children : [child], item);
        if (item.length > 0) items.push(item);
      } else if (child instanceof Text && child.data.trim()) {
        items.push([{ type: 'paragraph', children: [{ type: 'text', text: collapse(child.data).trim() }] }]);
      }
    }
    if (items.length > 0) out.push({ type: 'list', ordered, items });
  }

  private code(element: Element, out: Block[]): void {
    const text = rawText(element, this.options.skip).replace(/^\r?\n/, '').trimEnd();
    if (!text) return;
    const inner = element.children.find((child): child is Element => child instanceof Element && child.name === 'code');
    const language = LANGUAGE.exec(element.attribs.class ?? '')?.[1] ?? LANGUAGE.exec(inner?.attribs.class ?? '')?.[1] ?? null;
    out.push({ type: 'code', text, language: language?.toLowerCase() ?? null });
  }

  /** A figure's pictures carry its caption; anything else inside (embeds, quotes, tables) converts as usual. */
  private figure(element: Element, out: Block[]): void {
    const captionElement = findDescendant(element, (e) => e.name === 'figcaption');
    const caption = captionElement && !this.options.skip(captionElement) ? plainText(captionElement, this.options.skip) : '';
    const pictures = new Set(collectImages(element, this.options.skip));
    for (const img of pictures) this.image(img, caption, out);
    const rest = element.children.filter((child) => child !== captionElement && !(child instanceof Element && containsImageOnly(child, pictures)));
    this.blocks(rest, out);
  }

  private image(img: Element, caption: string, out: Block[]): void {
    const src = resolveImage(img, this.options.base);
    if (!src) return;
    const alt = collapse(img.attribs.alt ?? '').trim();
    out.push({ type: 'image', src, alt, caption });
  }

  private table(element: Element, out: Block[]): void {
    const rows: TableRow[] = [];
    for (const tr of tableRows(element)) {
      const cells: Inline[][] = [];
      let headerCells = 0;
      for (const cell of tr.children) {
        if (!(cell instanceof Element) || (cell.name !== 'td' && cell.name !== 'th') || this.options.skip(cell)) continue;
        if (cell.name === 'th') headerCells++;
        cells.push(tidy(this.cellInlines(cell, [])));
      }
      const inHead = tr.parent instanceof Element && tr.parent.name === 'thead';
      if (cells.some((cell) => hasText(cell))) rows.push({ header: inHead || headerCells === cells.length, cells });
    }
    if (rows.length > 0) out.push({ type: 'table', rows });
  }

  /** A cell's content as one inline run: its inner blocks are separated by line breaks. */
  private cellInlines(container: Element, run: Inline[]): Inline[] {
    for (const child of container.children) {
      if (child instanceof Text) run.push({ type: 'text', text: child.data });
      else if (child instanceof Element && !this.options.skip(child)) {
        if (BLOCK_TAGS.has(child.name)) {
          if (run.length > 0) run.push({ type: 'break' });
          this.cellInlines(child, run);
        } else {
          this.inline(child, run);
        }
      }
    }
    return run;
  }

  /** Appends the inline content of an element's children to `run`, and returns it. */
  private inlines(element: Element, run: Inline[]): Inline[] {
    for (const child of element.children) {
      if (child instanceof Text) run.push({ type: 'text', text: child.data });
      else if (child instanceof Element && !this.options.skip(child)) {
        // Block elements inside a paragraph-like element (invalid but common) flow inline.
        if (BLOCK_TAGS.has(child.name)) {
          run.push({ type: 'text', text: ' ' });
          this.inlines(child, run);
          run.push({ type: 'text', text: ' ' });
        } else {
          this.inline(child, run);
        }
      }
    }
    return run;
  }

  private inline(element: Element, run: Inline[]): void {
    const name = element.name;
    if (name === 'br') {
      run.push({ type: 'break' });
    } else if (name === 'img') {
      const src = resolveImage(element, this.options.base);
      if (src) {
        run.push({ type: 'image', src, alt: collapse(element.attribs.alt ?? '').trim() });
      }
    } else if (name === 'a') {
      const href = element.attribs.href === undefined ? null : resolveLink(element.attribs.href, this.options.base);
      if (href === null) {
        this.inlines(element, run);
        return;
      }
      const children = this.inlines(element, []);
      if (!hasText(children, true)) {
        for (const child of children) run.push(child);
        return;
      }
      run.push({ type: 'link', href, children });
    } else if (CODE.has(name)) {
      const text = collapse(rawText(element, this.options.skip));
      if (text.trim()) run.push({ type: 'code', text });
    } else if (EMPHASIS.has(name)) {
      const children = this.inlines(element, []);
      if (hasText(children)) run.push({ type: 'emphasis', strong: EMPHASIS.get(name)!, children });
      else for (const child of children) run.push(child);
    } else if (name !== 'wbr') {
      this.inlines(element, run);
    }
  }

  /**
   * A paragraph, or several where the run has blank lines (two or more breaks in a row, the
   * way pages without <p> separate paragraphs). A run of nothing but pictures becomes image
   * blocks.
   */
  private pushParagraph(out: Block[], run: Inline[]): void {
    const children = tidy(run);
    let start = 0;
    for (let i = 0; i + 1 < children.length; i++) {
      if (children[i]!.type === 'break' && children[i + 1]!.type === 'break') {
        this.pushRun(out, tidy(children.slice(start, i)));
        while (i < children.length && children[i]!.type === 'break') i++;
        start = i;
      }
    }
    this.pushRun(out, start === 0 ? children : children.slice(start));
  }

  private pushRun(out: Block[], children: Inline[]): void {
    if (children.length === 0) return;
    if (hasText(children)) {
      out.push({ type: 'paragraph', children });
      return;
    }
    for (const inline of children) {
      if (inline.type === 'image') out.push({ type: 'image', src: inline.src, alt: inline.alt, caption: '' });
      else if (inline.type === 'link') for (const inner of inline.children) if (inner.type === 'image') out.push({ type: 'image', src: inner.src, alt: inner.alt, caption: '' });
    }
  }
}

/**
 * Data tables become table blocks; layout tables (old table-based pages, nested tables, one
 * column, long prose cells) are read as containers of blocks.
 */
function isDataTable(table: Element): boolean {
  if (table.attribs.role === 'presentation') return false;
  if (findDescendant(table, (e) => e.name === 'table') !== null) return false;
  const rows = tableRows(table);
  let cells = 0;
  let maxColumns = 0;
  let headers = 0;
  for (const row of rows) {
    let columns = 0;
    for (const cell of row.children) {
      if (cell instanceof Element && (cell.name === 'td' || cell.name === 'th')) {
        columns++;
        if (cell.name === 'th') headers++;
      }
    }
    cells += columns;
    maxColumns = Math.max(maxColumns, columns);
  }
  if (maxColumns < 2 || rows.length < 2) return headers > 0 && cells > 1;
  return plainText(table, () => false).length / cells < 300;
}

function tableRows(table: Element): Element[] {
  const rows: Element[] = [];
  for (const child of table.children) {
    if (!(child instanceof Element)) continue;
    if (child.name === 'tr') rows.push(child);
    else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot') {
      for (const row of child.children) if (row instanceof Element && row.name === 'tr') rows.push(row);
    }
  }
  return rows;
}

function findDescendant(root: Element, test: (element: Element) => boolean): Element | null {
  for (const child of root.children) {
    if (!(child instanceof Element)) continue;
    if (test(child)) return child;
    const found = findDescendant(child, test);
    if (found) return found;
  }
  return null;
}

function collectImages(root: Element, skip: (element: Element) => boolean): Element[] {
  const found: Element[] = [];
  const visit = (element: Element): void => {
    for (const child of element.children) {
      if (!(child instanceof Element) || skip(child) || child.name === 'figcaption') continue;
      if (child.name === 'img') found.push(child);
      else visit(child);
    }
  };
  visit(root);
  return found;
}

/** True when the element holds nothing but (some of) the given pictures and whitespace. */
function containsImageOnly(element: Element, pictures: ReadonlySet<Element>): boolean {
  if (element.name === 'img') return pictures.has(element);
  return element.children.every((child) => (child instanceof Text ? !child.data.trim() : child instanceof Element ? containsImageOnly(child, pictures) : true));
}

/** Text with line structure kept: for <pre>, where whitespace is content. */
function rawText(element: Element, skip: (element: Element) => boolean): string {
  let text = '';
  for (const child of element.children) {
    if (child instanceof Text) text += child.data;
    else if (child instanceof Element && !skip(child)) text += child.name === 'br' ? '\n' : rawText(child, skip);
  }
  return text;
}

/** Whitespace-collapsed text of a subtree (captions, table-size checks). */
function plainText(element: Element, skip: (element: Element) => boolean): string {
  return collapse(rawText(element, skip)).trim();
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** Whether a run holds visible text (optionally counting pictures, so an image link survives). */
function hasText(run: readonly Inline[], orImage = false): boolean {
  return run.some((inline) => {
    switch (inline.type) {
      case 'text':
      case 'code':
        return inline.text.trim() !== '';
      case 'link':
      case 'emphasis':
        return hasText(inline.children, orImage);
      case 'image':
        return orImage;
      case 'break':
        return false;
    }
  });
}

/**
 * Normalises a run: whitespace collapsed, adjacent text merged, one space where any
 * whitespace was (also across link and emphasis edges), none after a break, and no leading
 * or trailing space or break.
 */
function tidy(run: readonly Inline[]): Inline[] {
  const out: Inline[] = [];
  let space = false;
  const emit = (inline: Inline): void => {
    const last = out[out.length - 1];
    if (space && last !== undefined && last.type !== 'break') {
      if (last.type === 'text') last.text += ' ';
      else out.push({ type: 'text', text: ' ' });
    }
    space = false;
    const previous = out[out.length - 1];
    if (inline.type === 'text' && previous?.type === 'text') previous.text += inline.text;
    else out.push(inline);
  };
  for (const inline of run) {
    if (inline.type === 'text') {
      const text = collapse(inline.text);
      const core = text.trim();
      if (text.startsWith(' ')) space = true;
      if (core !== '') {
        emit({ type: 'text', text: core });
        if (text.endsWith(' ')) space = true;
      }
    } else if (inline.type === 'break') {
      space = false;
      if (out.length > 0) out.push(inline);
    } else if (inline.type === 'link' || inline.type === 'emphasis') {
      const children = tidy(inline.children);
      if (startsWithSpace(inline.children)) space = true;
      if (children.length > 0) {
        emit({ ...inline, children });
        if (endsWithSpace(inline.children)) space = true;
      }
    } else {
      emit(inline);
    }
  }
  while (out.length > 0 && out[out.length - 1]!.type === 'break') out.pop();
  return out;
}

function startsWithSpace(run: readonly Inline[]): boolean {
  const first = run[0];
  if (first === undefined) return false;
  if (first.type === 'text') return /^\s/.test(first.text);
  return (first.type === 'link' || first.type === 'emphasis') && startsWithSpace(first.children);
}

function endsWithSpace(run: readonly Inline[]): boolean {
  const last = run[run.length - 1];
  if (last === undefined) return false;
  if (last.type === 'text') return /\s$/.test(last.text);
  return (last.type === 'link' || last.type === 'emphasis') && endsWithSpace(last.children);
}
