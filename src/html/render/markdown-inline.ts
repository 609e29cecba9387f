import type { Inline } from '../blocks.js';

/**
 * Inline runs as CommonMark/GFM. Text is escaped so that it reads back as the same text and
 * never as markup; emphasis, links, images, code spans and breaks are the only markup written.
 * Expects runs from normalizeInlines (whitespace collapsed, URLs checked, no spaces at the
 * edges of emphasis).
 */

/** How a 'break' inline is spelled where the run goes: a paragraph line or a table cell. */
export type BreakStyle = 'hard' | 'html';

export interface InlineTarget {
  breaks: BreakStyle;
  /** The run starts a line, where "# ", "- ", "1. ", ">" or "===" would open a block. */
  lineStart: boolean;
}

export function renderInlines(nodes: readonly Inline[], target: InlineTarget): string {
  return render(settle(nodes, target.breaks, '', '', false), target.breaks, target.lineStart);
}

/** Length of the longest run of `char` in `text`; code spans and fences must be longer. */
export function longestRun(text: string, char: string): number {
  let longest = 0;
  let current = 0;
  for (let i = 0; i < text.length; i++) {
    current = text[i] === char ? current + 1 : 0;
    if (current > longest) longest = current;
  }
  return longest;
}

const BREAKS: Record<BreakStyle, string> = {
  // Backslash-newline rather than two trailing spaces, which editors and pipelines strip.
  hard: '\\\n',
  // GFM table cells cannot hold a line ending; <br> is the line break GitHub renders in a cell.
  html: '<br>',
};

/*
 * Emphasis is decided before anything is written. Markdown emphasis exists only where the
 * parser's flanking rules see it; where they would not (e.g. "a*(b)*c": the closer is not
 * right-flanking) the asterisks would stay as text or pair with later ones, so such emphasis
 * is unwrapped and its content kept plain. Likewise an emphasis right after an emphasis of the
 * other kind ("*a***b**": the delimiters fuse into one ambiguous run). Unwrapping can make
 * texts, code spans or emphasis of one kind adjacent; they are merged, because "`a``b`" or
 * "*a**b*" would misparse and text escaping must see whole texts ("1" + ". x" at a line start).
 *
 * The decisions need the characters on both sides of each delimiter run: the first and last
 * character of the content (an escape only ever adds a "\" before punctuation, so the raw
 * character has the same class as the written one) and the characters around the emphasis.
 * `before`/`after` are those around the run being settled; '' is a line edge. Delimiters of
 * enclosing emphasis are not counted: runs fuse, and the parser looks past the whole run.
 * `nested`: the run is inside an emphasis (of the current link text), see opens().
 */
function settle(nodes: readonly Inline[], breaks: BreakStyle, before: string, after: string, nested: boolean): Inline[] {
  const out: Inline[] = [];
  // Tracked rather than read from `out`: a merged text is a long concatenation, and reading
  // its last character would copy it each time.
  let previous = before;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    if (node.type === 'emphasis') {
      const next = leadingChar(nodes, i + 1, breaks, after);
      const inner = settle(node.children, breaks, previous, next, true);
      if (inner.length === 0) continue;
      const last = out[out.length - 1];
      const fused = last?.type === 'emphasis' && last.strong !== node.strong;
      if (!fused && opens(previous, edgeChar(inner, breaks, true), nested) && closes(edgeChar(inner, breaks, false), next)) {
        push(out, { type: 'emphasis', strong: node.strong, children: inner });
      } else {
        for (const child of inner) push(out, child);
      }
      previous = edgeChar(inner, breaks, false);
    } else {
      const settled: Inline = node.type === 'link' ? { type: 'link', href: node.href, children: settle(node.children, breaks, '[', ']', false) } : node;
      push(out, settled);
      previous = edgeChar([settled], breaks, false) || previous;
    }
  }
  return out;
}

/**
 * Appends to a settled run, merging texts, code spans and emphasis of one kind (see settle).
 * Emphasis in `out` was created by settle, so its children may grow in place.
 */
function push(out: Inline[], node: Inline): void {
  const last = out[out.length - 1];
  if (node.type === 'text' && last?.type === 'text') {
    out[out.length - 1] = { type: 'text', text: last.text + node.text };
  } else if (node.type === 'code' && last?.type === 'code') {
    out[out.length - 1] = { type: 'code', text: last.text + node.text };
  } else if (node.type === 'emphasis' && last?.type === 'emphasis' && last.strong === node.strong) {
    for (const child of node.children) push(last.children, child);
  } else {
    out.push(node);
  }
}

/** The first (or last) character a settled run writes, emphasis delimiters not counted. */
function edgeChar(nodes: readonly Inline[], breaks: BreakStyle, first: boolean): string {
  const node = nodes[first ? 0 : nodes.length - 1];
  switch (node?.type) {
    case undefined:
      return '';
    case 'text':
      return first ? firstChar(node.text) : lastChar(node.text);
    case 'code':
      return '`';
    case 'break':
      return first ? BREAKS[breaks][0]! : BREAKS[breaks].slice(-1);
    case 'image':
      return first ? '!' : ')';
    case 'link':
      return first ? '[' : ')';
    case 'emphasis':
      return edgeChar(node.children, breaks, first);
  }
}

/** The first character nodes[from...] write, or `after`; emphasis counts as its content. */
function leadingChar(nodes: readonly Inline[], from: number, breaks: BreakStyle, after: string): string {
  for (let i = from; i < nodes.length; i++) {
    const node = nodes[i]!;
    const char = node.type === 'emphasis' ? leadingChar(node.children, 0, breaks, '') : edgeChar([node], breaks, true);
    if (char) return char;
  }
  return after;
}

/** Writes a settled run. `lineStart`: the run begins a line (block markers must be escaped). */
function render(nodes: readonly Inline[], breaks: BreakStyle, lineStart: boolean): string {
  let out = '';
  let atLineStart = lineStart;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    switch (node.type) {
      case 'text':
        out += escapeText(node.text, atLineStart, nodes[i + 1]?.type === 'link');
        break;
      case 'code':
        out += codeSpan(node.text);
        break;
      case 'break':
        out += BREAKS[breaks];
        break;
      case 'image':
        out += `![${escapeText(node.alt, false, false)}](${destination(node.src)})`;
        break;
      case 'link':
        out += `[${render(node.children, breaks, false)}](${destination(node.href)})`;
        break;
      case 'emphasis': {
        const mark = node.strong ? '**' : '*';
        // Content right after the opening delimiter cannot open a block, but escaping as if it
        // could is harmless and keeps one rule.
        out += mark + render(node.children, breaks, atLineStart) + mark;
        break;
      }
    }
    atLineStart = node.type === 'break' && breaks === 'hard';
  }
  return out;
}

/*
 * CommonMark flanking for a run of "*" between the characters B (before) and A (after):
 * left-flanking (may open) when A is not whitespace and (A is not punctuation or B is
 * whitespace or punctuation); right-flanking (may close) mirrors it. A line edge counts as
 * whitespace. The character classes differ between spec versions (0.31 counts symbols such as
 * emoji as punctuation, 0.30 did not), so each test uses the class that holds in both: a
 * symbol is never taken as the punctuation that would allow a run, nor as the letter that
 * would. Every doubt drops the emphasis rather than writing asterisks that may not parse.
 *
 * A closer may also be left-flanking: tried as a closer first, it finds its own opener as the
 * nearest one. An opener inside another emphasis must not be right-flanking, or the parser
 * tries it as a closer first and pairs it with the enclosing emphasis' opener. Unmatched
 * openers never reach into link text, so inside a link a new scope begins.
 */
const SPACE = /^[\p{Zs}\t\n\f\r]$/u;
const PUNCTUATION = /^[!-/:-@[-`{-~\p{P}]$/u;
const ANY_SPACE = /^\s$/u;
const ANY_SPACE_OR_PUNCTUATION = /^[\s\p{P}\p{S}]$/u;

function opens(before: string, first: string, nested: boolean): boolean {
  const leftFlanking = isOther(first) || (!ANY_SPACE.test(first) && boundary(before));
  const notRightFlanking = before === '' || SPACE.test(before) || (PUNCTUATION.test(before) && isOther(first));
  return leftFlanking && (!nested || notRightFlanking);
}

function closes(last: string, after: string): boolean {
  return isOther(last) || (!ANY_SPACE.test(last) && boundary(after));
}

/** Whitespace or punctuation in every spec version, or a line edge. */
function boundary(char: string): boolean {
  return char === '' || SPACE.test(char) || PUNCTUATION.test(char);
}

/** Neither whitespace nor punctuation in any spec version: letters, digits, marks. */
function isOther(char: string): boolean {
  return char !== '' && !ANY_SPACE_OR_PUNCTUATION.test(char);
}

function firstChar(text: string): string {
  const code = text.codePointAt(0);
  return code === undefined ? '' : String.fromCodePoint(code);
}

function lastChar(text: string): string {
  const unit = text.charCodeAt(text.length - 1);
  const pair = unit >= 0xdc00 && unit <= 0xdfff && text.length > 1;
  return text.slice(pair ? -2 : -1);
}

/**
 * Escapes with a backslash every character that could start markup here:
 * - always: \ ` * [ ] < | ~ (code, emphasis, links, html and autolinks, tables, strikethrough
 *   and ~~~ fences); `_` unless between two ASCII letters/digits, where it cannot delimit;
 *   `&` only when it starts something shaped like an entity ("&amp;", "&#35;");
 *   `!` at the end when a link follows ("!" + "[" would make an image);
 * - at a line start: the character that would open a block (see blockMarker).
 */
function escapeText(text: string, lineStart: boolean, beforeLink: boolean): string {
  const marker = lineStart ? blockMarker(text) : -1;
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    if (i === marker || needsEscape(text, i, beforeLink)) {
      out += text.slice(from, i) + '\\';
      from = i;
    }
  }
  return out + text.slice(from);
}

function needsEscape(text: string, i: number, beforeLink: boolean): boolean {
  switch (text[i]) {
    case '\\':
    case '`':
    case '*':
    case '[':
    case ']':
    case '<':
    case '|':
    case '~':
      return true;
    case '_':
      return !(isWordChar(text[i - 1]) && isWordChar(text[i + 1]));
    case '&':
      return startsEntity(text, i + 1);
    case '!':
      return beforeLink && i === text.length - 1;
    default:
      return false;
  }
}

/**
 * Index of the character to escape so that a line starting with `text` stays a paragraph line:
 * ">" (quote), "#" run + space (heading), "-"/"+" + space (bullet), a line of only "-" or "="
 * and spaces (thematic break, setext underline), digits + "." or ")" + space (ordered list).
 * "*", "_", "`", "~", "<", "|" and "[" are escaped everywhere already. -1 when nothing is needed.
 */
function blockMarker(text: string): number {
  switch (text[0]) {
    case '>':
      return 0;
    case '#': {
      let end = 0;
      while (text[end] === '#') end++;
      return end === text.length || text[end] === ' ' ? 0 : -1;
    }
    case '-':
    case '+':
      if (text.length === 1 || text[1] === ' ') return 0;
      return text[0] === '-' && onlyOf(text, '-') ? 0 : -1;
    case '=':
      return onlyOf(text, '=') ? 0 : -1;
    default: {
      let end = 0;
      while (end < 10 && isDigit(text[end])) end++;
      if (end === 0 || end > 9) return -1;
      const after = text[end + 1];
      return (text[end] === '.' || text[end] === ')') && (after === undefined || after === ' ') ? end : -1;
    }
  }
}

function onlyOf(text: string, char: string): boolean {
  for (const c of text) if (c !== char && c !== ' ') return false;
  return true;
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && ((char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || isDigit(char));
}

/** Whether letters/digits/"#" and then ";" follow: the shape of an entity or numeric reference. */
function startsEntity(text: string, from: number): boolean {
  let end = from;
  while (isWordChar(text[end]) || text[end] === '#') end++;
  return end > from && text[end] === ';';
}

/**
 * A code span: delimited by one backtick more than the longest run inside, padded with a space
 * when the content starts or ends with a backtick or has spaces at both ends (the parser strips
 * one space from each side in that case, so the padding keeps the content exact).
 */
function codeSpan(text: string): string {
  const fence = '`'.repeat(longestRun(text, '`') + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || (text.startsWith(' ') && text.endsWith(' ')) ? ' ' : '';
  return fence + pad + text + pad + fence;
}

/**
 * A link destination. URLs come serialised by the URL policy, so whitespace and controls are
 * gone except spaces in mailto; parentheses, spaces, angle brackets and backslashes switch to
 * the <...> form, inside which <, > and \ are backslash-escaped. "&" is escaped when it could
 * be read as an entity, which destinations decode too.
 */
function destination(url: string): string {
  let plain = true;
  for (const c of url) {
    if (c === ' ' || c === '(' || c === ')' || c === '<' || c === '>' || c === '\\') {
      plain = false;
      break;
    }
  }
  let out = '';
  let from = 0;
  for (let i = 0; i < url.length; i++) {
    const c = url[i];
    const escape = c === '&' ? startsEntity(url, i + 1) : !plain && (c === '<' || c === '>' || c === '\\');
    if (escape) {
      out += url.slice(from, i) + '\\';
      from = i;
    }
  }
  out += url.slice(from);
  return plain ? out : `<${out}>`;
}
