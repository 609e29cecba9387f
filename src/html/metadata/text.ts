/**
 * A key for deciding whether two short texts (titles, site names, author names) say the same
 * thing: case, accents, punctuation and spacing differ between a page's <title>, its Open
 * Graph tags and its headings without changing what they name.
 */
export function comparable(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

const LEFTOVER_ENTITY = /&(?:#(\d{1,8})|#x([0-9a-f]{1,8})|(amp|lt|gt|quot|apos|nbsp));/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * A metadata value as plain text: whitespace collapsed, and character references decoded that
 * survived the parser's decoding. CMSes often escape twice (content="That&amp;#039;s"), and
 * a literal "&#039;" is never what a page means to say in a title or description.
 */
export function plainText(text: string): string {
  return text
    .replace(LEFTOVER_ENTITY, (_, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
      if (name) return NAMED[name.toLowerCase()]!;
      const code = decimal ? Number(decimal) : parseInt(hex!, 16);
      // NUL, surrogates and values beyond Unicode become U+FFFD, as in HTML's own decoding.
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\uFFFD' : String.fromCodePoint(code);
    })
    .replace(/\s+/g, ' ')
    .trim();
}
