/**
 * The text of a PDF page as the layout analysis sees it: runs of text placed on the page, with
 * nothing of the PDF's own structure. src/pdf/load-pdf.ts reads them with pdf.js; everything
 * after that (segments, reading order, blocks) is plain computation on these values.
 */

/** A run of text as the PDF draws it (one pdf.js text item), in points from the page's top left corner. */
export interface TextRun {
  text: string;
  /** Left end of the run. */
  x: number;
  /** Its baseline, growing downward. */
  y: number;
  width: number;
  /** Font size: the text matrix's vertical scale. */
  size: number;
  /** pdf.js's name for the font resource: runs in the same font share it. */
  font: string;
  /** Written right to left (Arabic, Hebrew): pdf.js has put the run's own characters in logical order. */
  rtl: boolean;
}

export interface PageText {
  /** 1 for the first page. */
  number: number;
  width: number;
  height: number;
  runs: TextRun[];
}

/**
 * Runs of one line that belong together: the words of a line of a column, or a table cell. A line
 * of a two-column page is two segments; what separates them is a gap wider than a word space.
 */
export interface Segment {
  text: string;
  x0: number;
  x1: number;
  /** Baseline. */
  y: number;
  /** Size and font of most of its characters. */
  size: number;
  font: string;
  rtl: boolean;
}

/** Top of a segment's box: glyphs rise about 0.8 of the font size above the baseline. */
export function top(segment: Segment): number {
  return segment.y - 0.8 * segment.size;
}

/** Bottom of a segment's box: descenders reach about 0.25 of the font size below the baseline. */
export function bottom(segment: Segment): number {
  return segment.y + 0.25 * segment.size;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
