import type { Inline } from '../blocks.js';

/**
 * Inline runs flattened to plain text, for formats whose clients want no markup (json, and any
 * other that needs a cell or heading as a string). Whitespace is taken as it is: pass runs
 * through normalizeInlines first to get it collapsed the way the other formats show it.
 */

export interface LinkText {
  /** The link's text as inlineText gives it. */
  text: string;
  /** The link's address, already through the URL policy when the runs were normalized. */
  url: string;
}

/**
 * Text of the runs: links and emphasis by their content, code by its text, a line break as "\n",
 * an image by its alt text (inline images are mostly emoji and icons that stand for words).
 */
export function inlineText(inlines: readonly Inline[]): string {
  let text = '';
  for (const node of inlines) {
    switch (node.type) {
      case 'text':
      case 'code':
        text += node.text;
        break;
      case 'break':
        text += '\n';
        break;
      case 'image':
        text += node.alt;
        break;
      case 'link':
      case 'emphasis':
        text += inlineText(node.children);
        break;
    }
  }
  return text;
}

/** The links among the runs in reading order (those inside emphasis too), appended to `into`. */
export function inlineLinks(inlines: readonly Inline[], into: LinkText[] = []): LinkText[] {
  for (const node of inlines) {
    if (node.type === 'link') into.push({ text: inlineText(node.children), url: node.href });
    else if (node.type === 'emphasis') inlineLinks(node.children, into);
  }
  return into;
}
