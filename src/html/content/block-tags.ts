/**
 * Tag categories shared by text measurement and block conversion. "Block" elements start a
 * new run of text (a paragraph for the reader); everything else flows inline into the
 * nearest block ancestor, as browsers lay it out by default.
 */
export const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'center', 'dd', 'details', 'dir', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup',
  'hr', 'html', 'legend', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody',
  'thead', 'tfoot', 'tr', 'td', 'th', 'caption', 'ul', 'listing', 'xmp', 'plaintext', 'noscript',
]);

/** A Map, not an object literal: tag names come from the page, and "constructor" must not be a heading. */
export const HEADING_LEVEL = new Map<string, 1 | 2 | 3 | 4 | 5 | 6>([['h1', 1], ['h2', 2], ['h3', 3], ['h4', 4], ['h5', 5], ['h6', 6]]);
