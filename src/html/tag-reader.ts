import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

/**
 * htmlparser2's Tokenizer callbacks assembled into start tags with their attributes, in time
 * linear in the input. htmlparser2's own Parser also tracks open elements, with an `unshift`
 * per element: quadratic on deep nesting (400,000 nested divs take a minute). The tree builder
 * (dom.ts), the crawler's link scan and its sitemap reader read tags through this.
 * Names are lower-cased and entities decoded, as Parser does in HTML.
 */
export abstract class TagReader implements TokenizerCallbacks {
  private tagName = '';
  private attribs: Record<string, string> = {};
  private attribName = '';
  private attribValue = '';

  /** `xmlMode` reads XML (sitemaps): no raw-text elements, <![CDATA[ sections everywhere. */
  constructor(protected readonly html: string, private readonly xmlMode = false) {}

  /** A start tag; `selfClosing` when written `<x/>` (which only SVG and MathML honour). */
  protected abstract startTag(name: string, attribs: Record<string, string>, selfClosing: boolean): void;

  /** Reads the whole of `html`, calling the reader back for each token. */
  read(): void {
    const tokenizer = new Tokenizer({ decodeEntities: true, xmlMode: this.xmlMode }, this);
    tokenizer.write(this.html);
    tokenizer.end();
  }

  /** Inside SVG or MathML the tokenizer reads <![CDATA[ sections; a reader that tracks them says so. */
  isInForeignContext(): boolean {
    return false;
  }

  onopentagname(start: number, end: number): void {
    this.tagName = this.html.slice(start, end).toLowerCase();
    this.attribs = {};
  }

  onattribname(start: number, end: number): void {
    this.attribName = this.html.slice(start, end).toLowerCase();
    this.attribValue = '';
  }

  onattribdata(start: number, end: number): void {
    this.attribValue += this.html.slice(start, end);
  }

  onattribentity(codepoint: number): void {
    this.attribValue += String.fromCodePoint(codepoint);
  }

  onattribend(): void {
    // Like browsers, the first of duplicated attributes wins. An attribute named __proto__
    // would reach the prototype of the plain attribs object, so it is dropped.
    if (this.attribName !== '__proto__' && !Object.hasOwn(this.attribs, this.attribName)) this.attribs[this.attribName] = this.attribValue;
    this.attribValue = '';
  }

  onopentagend(): void {
    this.startTag(this.tagName, this.attribs, false);
  }

  onselfclosingtag(): void {
    this.startTag(this.tagName, this.attribs, true);
  }

  // What a reader does not need is ignored; the tree builder reads text and end tags too.
  ontext(_start: number, _end: number): void {}
  ontextentity(_codepoint: number): void {}
  onclosetag(_start: number, _end: number): void {}
  oncomment(): void {}
  /** A <![CDATA[ section: its text is html.slice(start, endIndex - endOffset). */
  oncdata(_start: number, _endIndex: number, _endOffset: number): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}
  onend(): void {}
}
