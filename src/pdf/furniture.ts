import type { Segment } from './page-text.js';

/**
 * Page furniture: running headers and footers, and page numbers. They repeat the document's
 * title or chapter on every page and would otherwise cut paragraphs that run from one page to the
 * next. A segment is furniture when it sits in the top or bottom margin band of its page and is a
 * page number, or when the same text (digits aside) sits in the same band on at least half of the
 * pages, two at least.
 */

/** Share of the page height at the top and at the bottom where furniture sits. */
const MARGIN_BAND = 0.1;
/** "12", "- 12 -", "Page 12", "12 of 30", "12/30", "xii". */
const PAGE_NUMBER = /^[-–—\s]*(?:(?:page|p\.|seite|página|pagina|стр\.?)\s*)?(?:\d{1,5}|[ivxlcdm]{1,7})(?:\s*(?:of|\/|von|de|из)\s*\d{1,5})?[-–—\s]*$/i;

export interface PageSegments {
  height: number;
  rows: Segment[][];
}

/** The pages without their furniture; rows left empty are dropped. */
export function withoutFurniture(pages: readonly PageSegments[]): PageSegments[] {
  const keyOf = (segment: Segment, page: PageSegments): string | null => {
    const band = segment.y < page.height * MARGIN_BAND ? 'top' : segment.y > page.height * (1 - MARGIN_BAND) ? 'bottom' : null;
    if (band === null) return null;
    return `${band}:${segment.text.replace(/\d+/g, '#').toLowerCase()}`;
  };
  const pagesPerKey = new Map<string, number>();
  for (const page of pages) {
    const keys = new Set<string>();
    for (const row of page.rows) for (const segment of row) {
      const key = keyOf(segment, page);
      if (key !== null) keys.add(key);
    }
    for (const key of keys) pagesPerKey.set(key, (pagesPerKey.get(key) ?? 0) + 1);
  }
  const repeated = Math.max(2, Math.ceil(pages.length / 2));
  return pages.map((page) => ({
    height: page.height,
    rows: page.rows
      .map((row) => row.filter((segment) => {
        const key = keyOf(segment, page);
        return key === null || ((pagesPerKey.get(key) ?? 0) < repeated && !PAGE_NUMBER.test(segment.text));
      }))
      .filter((row) => row.length > 0),
  }));
}
