import { Document, Element, Text, type ParentNode } from 'domhandler';
import { TagReader } from './tag-reader.js';

/**
 * HTML → domhandler Document, bounded on hostile input.
 *
 * htmlparser2's own Parser keeps its open-element stack with `unshift`/`indexOf`, which is
 * quadratic on deeply nested or badly closed markup (100,000 nested divs take seconds). This
 * module drives htmlparser2's linear Tokenizer (through TagReader) with a small tree builder of
 * its own:
 * - the open-element stack is pushed and popped at its end, and a per-name count of open
 *   elements answers "is there an open <x>?" in O(1), so stray end tags cost nothing;
 * - nesting is capped at MAX_DEPTH: an element opened deeper is attached as a leaf at the cap
 *   and its content flows into the capped parent, so every later recursive walk is safe and
 *   every scan of the stack is bounded;
 * - the HTML spec's most common error-recovery rules are followed (block elements close an
 *   open <p>, <li> closes the previous <li>, table cells and rows close each other, end tags of
 *   inline elements never close block elements), which keeps real-world sloppy markup close
 *   to what a browser builds.
 * Comments, doctypes and processing instructions are not kept: nothing downstream reads them.
 *
 * Flattening bounds the tree's depth, not its size nor what the page asks for: a page of a
 * million tiny elements is a million nodes whose cleaning ran a 1 GB pool thread out of memory.
 * So the builder also stops, while it builds, at the limits of DomLimits and throws
 * DomLimitError, before the tree (and every later pass over it) grows past them.
 */
export const MAX_DEPTH = 200;

/** How much DOM a page may make (HTML_MAX_NODES, HTML_MAX_DEPTH). */
export interface DomLimits {
  /** Elements and text nodes, all told. */
  readonly maxNodes: number;
  /** Elements open at once as the page writes them, those flattened past MAX_DEPTH included. */
  readonly maxDepth: number;
}

/**
 * About 250 MB of heap through the whole cleaning for a page of tiny elements: a quarter of a
 * pool thread's, while long articles make tens of thousands of nodes. Browsers flatten nesting
 * at 512; 1,000 open elements is no document's intent.
 */
export const DEFAULT_DOM_LIMITS: DomLimits = { maxNodes: 250_000, maxDepth: 1000 };

/** A page past one of the DOM's limits; its message says which, as the client is told. */
export class DomLimitError extends Error {
  constructor(readonly limit: 'nodes' | 'depth', readonly max: number) {
    super(limit === 'nodes' ? `page too complex: more than ${max} elements and text nodes` : `page too complex: elements nested more than ${max} deep`);
    this.name = 'DomLimitError';
  }
}

const VOID = new Set([
  'area', 'base', 'basefont', 'bgsound', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input',
  'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr',
]);

/** Elements whose start tag closes an open <p> (HTML spec: "close a p element in button scope"). */
const CLOSES_P = new Set([
  'address', 'article', 'aside', 'blockquote', 'center', 'details', 'dialog', 'dir', 'div', 'dl', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'main',
  'menu', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'ul', 'li', 'dd', 'dt', 'listing', 'xmp',
]);

/** The spec's "special" elements: an end tag of an inline element never closes past one of them. */
const SPECIAL = new Set([
  ...CLOSES_P, 'applet', 'body', 'button', 'caption', 'col', 'colgroup', 'head', 'html', 'iframe', 'marquee',
  'noembed', 'noframes', 'noscript', 'object', 'plaintext', 'script', 'select', 'style', 'tbody', 'td',
  'template', 'textarea', 'tfoot', 'th', 'thead', 'title', 'tr',
]);

/** Scope boundaries: an end tag does not reach through them (a stray </div> in a cell stays in the cell). */
const SCOPE = new Set(['applet', 'caption', 'html', 'table', 'td', 'th', 'marquee', 'object', 'template']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/**
 * For a start tag: which open elements it implicitly closes, and where the search stops.
 * E.g. a new <li> closes the previous <li> but not one of an outer list.
 */
const rule = (closes: string[], stopAt: Iterable<string>): { closes: Set<string>; stopAt: Set<string> } => ({ closes: new Set(closes), stopAt: new Set(stopAt) });
// A Map, not an object literal: tag names come from the page, and "constructor" or
// "__proto__" must not find anything.
const IMPLIED_CLOSE = new Map([
  ['li', rule(['li'], ['ul', 'ol', 'menu', 'dir', ...SCOPE])],
  ['dd', rule(['dd', 'dt'], ['dl', ...SCOPE])],
  ['dt', rule(['dd', 'dt'], ['dl', ...SCOPE])],
  ['tr', rule(['tr'], ['table', 'thead', 'tbody', 'tfoot'])],
  ['td', rule(['td', 'th'], ['tr', 'table'])],
  ['th', rule(['td', 'th'], ['tr', 'table'])],
  ['thead', rule(['thead', 'tbody', 'tfoot'], ['table'])],
  ['tbody', rule(['thead', 'tbody', 'tfoot'], ['table'])],
  ['tfoot', rule(['thead', 'tbody', 'tfoot'], ['table'])],
  ['option', rule(['option'], ['select', 'datalist', 'optgroup'])],
  ['optgroup', rule(['option', 'optgroup'], ['select'])],
  ['a', rule(['a'], SCOPE)],
  ['body', rule(['head'], ['html'])],
]);

const FOREIGN = new Set(['svg', 'math']);
/** Elements whose content the tokenizer reads as raw text: they never nest, so they may pass the cap by one. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);
const TABLE_PARTS = new Set(['tbody', 'thead', 'tfoot', 'tr', 'td', 'th', 'caption', 'colgroup']);
const TABLE = new Set(['table']);
const NO_STOP = new Set<string>();
/** What may stay in <head>: any other start tag means the author forgot </head>. */
const HEAD_CONTENT = new Set(['base', 'basefont', 'bgsound', 'link', 'meta', 'noscript', 'script', 'style', 'template', 'title']);

class TreeBuilder extends TagReader {
  readonly document = new Document([]);
  private readonly stack: ParentNode[] = [this.document];
  /** How many elements of each name are open, so end tags for nothing open are O(1). */
  private readonly openCount = new Map<string, number>();
  /** Elements opened beyond MAX_DEPTH (attached as leaves), by name: their end tags are swallowed. */
  private readonly overflow = new Map<string, number>();
  /** The sum of `overflow`: with the stack, how deep the page has nested. */
  private overflowOpen = 0;
  private nodes = 0;
  private foreignDepth = 0;
  private lastText: Text | null = null;

  constructor(html: string, private readonly limits: DomLimits) {
    super(html);
  }

  override isInForeignContext(): boolean {
    return this.foreignDepth > 0;
  }

  override ontext(start: number, end: number): void {
    this.appendText(this.html.slice(start, end));
  }

  override ontextentity(codepoint: number): void {
    this.appendText(String.fromCodePoint(codepoint));
  }

  protected startTag(name: string, attribs: Record<string, string>, selfClosing: boolean): void {
    // `<div/>` is an ordinary start tag in HTML; only SVG and MathML honour the slash.
    this.openElement(name === 'image' && this.foreignDepth === 0 ? 'img' : name, attribs, selfClosing && this.foreignDepth > 0);
  }

  override onclosetag(start: number, end: number): void {
    const name = this.html.slice(start, end).toLowerCase();
    // Browsers keep adding content to <body> after a stray </body> or </html> (pages assembled
    // from fragments have them mid-page), so these end tags close nothing.
    if (name === 'body' || name === 'html') return;
    if (name === 'br') {
      this.openElement('br', {}, true); // </br> is a <br> for browsers too
      return;
    }
    const swallowed = this.overflow.get(name);
    if (swallowed) {
      this.overflow.set(name, swallowed - 1);
      this.overflowOpen--;
      return;
    }
    if (!this.openCount.get(name)) return;
    const at = this.findOpen(name);
    if (at > 0) this.popTo(at);
  }

  private openElement(name: string, attribs: Record<string, string>, selfClosing: boolean): void {
    if (this.foreignDepth === 0) this.closeImplied(name);
    const element = new Element(name, attribs);
    const parent = this.stack[this.stack.length - 1]!;
    this.append(parent, element);
    if (VOID.has(name) || selfClosing) return;
    // The document node is on the stack, hence depth is its length less one.
    if (this.stack.length + this.overflowOpen > this.limits.maxDepth) throw new DomLimitError('depth', this.limits.maxDepth);
    // Past the cap an element becomes a leaf, except raw-text ones: their text (a script) must
    // stay inside them rather than flow into the page.
    if (this.stack.length > MAX_DEPTH && !RAW_TEXT.has(name)) {
      this.overflow.set(name, (this.overflow.get(name) ?? 0) + 1);
      this.overflowOpen++;
      return;
    }
    this.stack.push(element);
    this.openCount.set(name, (this.openCount.get(name) ?? 0) + 1);
    if (FOREIGN.has(name)) this.foreignDepth++;
  }

  private closeImplied(name: string): void {
    if (this.openCount.get('head') && !HEAD_CONTENT.has(name)) {
      const at = this.search('head', NO_STOP);
      if (at > 0) this.popTo(at);
    }
    const top = this.stack[this.stack.length - 1];
    if (HEADINGS.has(name) && top instanceof Element && HEADINGS.has(top.name)) this.popTo(this.stack.length - 1);
    if (CLOSES_P.has(name) && this.openCount.get('p')) {
      const at = this.search('p', SCOPE);
      if (at > 0) this.popTo(at);
    }
    const implied = IMPLIED_CLOSE.get(name);
    if (!implied) return;
    for (let i = this.stack.length - 1; i > 0; i--) {
      const open = (this.stack[i] as Element).name;
      if (implied.closes.has(open)) {
        this.popTo(i);
        return;
      }
      if (implied.stopAt.has(open)) return;
    }
  }

  /** Stack index of the open element an end tag closes, or -1 when the tag must be ignored. */
  private findOpen(name: string): number {
    if (this.foreignDepth > 0 || name === 'table') return this.search(name, NO_STOP);
    if (TABLE_PARTS.has(name)) return this.search(name, TABLE);
    return this.search(name, SPECIAL.has(name) ? SCOPE : SPECIAL);
  }

  /** Stack index of the innermost open `name` not hidden behind a `stopAt` element, or -1. */
  private search(name: string, stopAt: Set<string>): number {
    for (let i = this.stack.length - 1; i > 0; i--) {
      const open = (this.stack[i] as Element).name;
      if (open === name) return i;
      if (stopAt.has(open)) return -1;
    }
    return -1;
  }

  private popTo(index: number): void {
    while (this.stack.length > index) {
      const element = this.stack.pop() as Element;
      this.openCount.set(element.name, (this.openCount.get(element.name) ?? 1) - 1);
      if (FOREIGN.has(element.name)) this.foreignDepth--;
    }
    this.lastText = null;
  }

  private appendText(data: string): void {
    if (this.lastText) {
      this.lastText.data += data;
      return;
    }
    const text = new Text(data);
    this.append(this.stack[this.stack.length - 1]!, text);
    this.lastText = text;
  }

  private append(parent: ParentNode, node: Element | Text): void {
    if (++this.nodes > this.limits.maxNodes) throw new DomLimitError('nodes', this.limits.maxNodes);
    const previous = parent.children[parent.children.length - 1] ?? null;
    node.parent = parent;
    node.prev = previous;
    if (previous) previous.next = node;
    parent.children.push(node);
    this.lastText = null;
  }
}

/**
 * Parses a whole HTML page in time linear in the input (see MAX_DEPTH).
 * @throws DomLimitError as soon as the page passes one of `limits`; nothing else.
 */
export function parseHtml(html: string, limits: DomLimits = DEFAULT_DOM_LIMITS): Document {
  const builder = new TreeBuilder(html, limits);
  builder.read();
  return builder.document;
}

/**
 * The URL relative references of the page resolve against: the first <base href> (itself
 * resolved against the page URL), else the page URL. Only http(s) bases are honoured, so a
 * `<base href="javascript:…">` cannot turn links into scripts.
 */
export function baseUrl(doc: Document, pageUrl: string): string {
  // <base> belongs in <head>; looking there only spares a walk over the whole page.
  const head = findFirst(doc, (element) => element.name === 'head' || element.name === 'body');
  const scope = head?.name === 'head' ? head : doc;
  const base = findFirst(scope, (element) => element.name === 'base' && element.attribs.href !== undefined);
  if (!base) return pageUrl;
  try {
    const resolved = new URL(base.attribs.href!.trim(), pageUrl);
    return resolved.protocol === 'http:' || resolved.protocol === 'https:' ? resolved.href : pageUrl;
  } catch {
    return pageUrl;
  }
}

/** Depth-first, document-order search without recursion. */
export function findFirst(root: ParentNode, test: (element: Element) => boolean): Element | null {
  const pending: ParentNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    for (let i = node.children.length - 1; i >= 0; i--) {
      const child = node.children[i]!;
      if (child instanceof Element) pending.push(child);
    }
    if (node instanceof Element && test(node)) return node;
  }
  return null;
}
