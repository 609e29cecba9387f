import { bottom, median, top, type Segment } from './page-text.js';
import { rows } from './segments.js';

/**
 * A page's segments in reading order, as flows: runs of lines read top to bottom (a column, or
 * the whole page when it has one). A recursive cut, columns first:
 *
 * 1. Columns. A gutter is a vertical band, away from the page's edges, that almost no segment
 *    crosses, with prose lines on both sides. The segments that do cross it (a title over both
 *    columns, a wide figure caption) cut the region into bands; each band is read left column
 *    then right column, each crossing segment in its place between them. Two sides of short
 *    cells are a table, not columns: they stay together for the table analysis.
 * 2. Otherwise bands: the region is cut at its widest horizontal gaps, and each band is looked at
 *    again, since a part of a page can have columns that the whole has not.
 * 3. A region with neither is one flow. Bands read one after another join one flow again, so
 *    paragraphs and tables cut apart by step 2 are whole for the block analysis.
 */
export type Flow = Segment[][];

/** Below this width (in ems) a region is not split into columns. */
const MIN_COLUMNS_WIDTH = 16;
/** Narrowest gutter, in ems. */
const MIN_GUTTER = 0.6;
/** Segments each side of a gutter must typically be this wide (in ems): lines of prose, not cells. */
const MIN_LINE_WIDTH = 6;
/** Share of a region's segments that may cross a gutter (titles, captions, full-width paragraphs). */
const MAX_CROSSING = 0.25;
/** Recursion bound: a pathological page ends as one flow rather than a deep stack. */
const MAX_DEPTH = 40;

export function readingOrder(segments: readonly Segment[]): Flow[] {
  return order(segments, 0);
}

function order(segments: readonly Segment[], depth: number): Flow[] {
  if (segments.length < 3 || depth > MAX_DEPTH) return [flow(segments)];
  const split = splitColumns(segments);
  // Columns are read one after the other and never joined: each is a flow of its own.
  if (split?.kind === 'columns') return split.sides.flatMap((side) => order(side, depth + 1));
  if (split) return joinBands(split.parts.map((part) => (part.crossing ? [flow(part.segments)] : order(part.segments, depth + 1))));
  const bands = splitBands(segments);
  if (bands) return joinBands(bands.map((band) => order(band, depth + 1)));
  return [flow(segments)];
}

/** One flow's lines top to bottom, each line's segments in writing order. */
function flow(segments: readonly Segment[]): Flow {
  return rows(segments).map((line) => {
    const rtl = line.filter((s) => s.rtl).length * 2 > line.length;
    return line.sort((a, b) => (rtl ? b.x1 - a.x1 : a.x0 - b.x0));
  });
}

/**
 * Flows of parts read top to bottom. A part read as a single flow continues the flow before it
 * when that one was a single flow too; a part read as columns leaves its flows apart.
 */
function joinBands(parts: Flow[][]): Flow[] {
  const out: Flow[] = [];
  let open = false;
  for (const flows of parts) {
    const single = flows.length === 1;
    if (single && open) out[out.length - 1]!.push(...flows[0]!);
    else out.push(...flows);
    open = single;
  }
  return out;
}

type Split =
  | { kind: 'columns'; sides: Segment[][] }
  | { kind: 'bands'; parts: Array<{ crossing: boolean; segments: Segment[] }> };

/** The region cut at a column gutter (see above), or null when it has none. */
function splitColumns(segments: readonly Segment[]): Split | null {
  // Two lines a side at least.
  if (segments.length < 4) return null;
  const em = median(segments.map((s) => s.size));
  let minX = Infinity;
  let maxX = -Infinity;
  for (const s of segments) {
    minX = Math.min(minX, s.x0);
    maxX = Math.max(maxX, s.x1);
  }
  const width = maxX - minX;
  if (!(width >= MIN_COLUMNS_WIDTH * em) || width > 100_000) return null;

  // How many segments cover each point (1 pt bins) across the region.
  const bins = Math.ceil(width) + 1;
  const delta = new Int32Array(bins + 1);
  for (const s of segments) {
    delta[Math.max(0, Math.floor(s.x0 - minX))]! += 1;
    delta[Math.min(bins, Math.ceil(s.x1 - minX))]! -= 1;
  }
  const coverage = new Int32Array(bins);
  let running = 0;
  for (let i = 0; i < bins; i++) coverage[i] = running += delta[i]!;

  // Gutters lie away from the region's edges (a column is at least a tenth of it).
  const from = Math.floor(bins * 0.1);
  const to = Math.ceil(bins * 0.9);
  const maxCrossing = Math.floor(segments.length * MAX_CROSSING);
  let least = Infinity;
  for (let i = from; i < to; i++) least = Math.min(least, coverage[i]!);
  // Text across the whole width, as on most single-column pages: no gutter.
  if (least > maxCrossing) return null;
  const levels = [...new Set(coverage.subarray(from, to))].filter((c) => c <= maxCrossing).sort((a, b) => a - b);
  for (const level of levels.slice(0, 4)) {
    const gutter = widestRun(coverage, from, to, level);
    if (!gutter || gutter.end - gutter.start < MIN_GUTTER * em) continue;
    const g0 = minX + gutter.start;
    const g1 = minX + gutter.end;
    const left = segments.filter((s) => s.x1 <= g0 + 0.5);
    const right = segments.filter((s) => s.x0 >= g1 - 0.5);
    const crossing = segments.filter((s) => s.x1 > g0 + 0.5 && s.x0 < g1 - 0.5);
    // Every other segment crosses the whole gutter; one that ends inside it belongs to neither side.
    if (crossing.some((s) => s.x0 >= g0 || s.x1 <= g1) || crossing.length > maxCrossing) continue;
    if (!isColumn(left, em) || !isColumn(right, em)) continue;
    return crossing.length === 0 ? { kind: 'columns', sides: [left, right] } : { kind: 'bands', parts: aroundCrossing(segments, crossing) };
  }
  return null;
}

/** Lines of prose: at least two, typically MIN_LINE_WIDTH ems wide or more. */
function isColumn(side: readonly Segment[], em: number): boolean {
  return side.length >= 2 && median(side.map((s) => s.x1 - s.x0)) >= MIN_LINE_WIDTH * em;
}

/** The widest run of bins in [from, to) whose coverage is at most `level`. */
function widestRun(coverage: Int32Array, from: number, to: number, level: number): { start: number; end: number } | null {
  let best: { start: number; end: number } | null = null;
  let start = -1;
  for (let i = from; i <= to; i++) {
    const inside = i < to && coverage[i]! <= level;
    if (inside && start < 0) start = i;
    if (!inside && start >= 0) {
      if (!best || i - start > best.end - best.start) best = { start, end: i };
      start = -1;
    }
  }
  return best;
}

/**
 * A region with columns under and between segments that cross the gutter: the crossing
 * segments, top to bottom, cut it into bands; each band is a region again (whose columns now
 * split cleanly), each crossing segment a flow of its own in its place.
 */
function aroundCrossing(segments: readonly Segment[], crossing: readonly Segment[]): Array<{ crossing: boolean; segments: Segment[] }> {
  const across = new Set(crossing);
  const sorted = [...crossing].sort((a, b) => a.y - b.y);
  const bands: Segment[][] = sorted.map(() => []);
  bands.push([]);
  for (const s of segments) {
    if (across.has(s)) continue;
    const middle = (top(s) + bottom(s)) / 2;
    let band = 0;
    while (band < sorted.length && middle > sorted[band]!.y) band++;
    bands[band]!.push(s);
  }
  const parts: Array<{ crossing: boolean; segments: Segment[] }> = [];
  bands.forEach((band, i) => {
    if (band.length > 0) parts.push({ crossing: false, segments: band });
    if (i < sorted.length) parts.push({ crossing: true, segments: [sorted[i]!] });
  });
  return parts;
}

/**
 * The region cut at its widest horizontal gaps (those within a tenth of the widest, so that
 * equal line gaps are cut at once), or null when nothing separates its lines.
 */
function splitBands(segments: readonly Segment[]): Segment[][] | null {
  const sorted = [...segments].sort((a, b) => top(a) - top(b));
  const gaps: Array<{ after: number; size: number }> = [];
  let reach = bottom(sorted[0]!);
  for (let i = 1; i < sorted.length; i++) {
    const start = top(sorted[i]!);
    if (start > reach) gaps.push({ after: i, size: start - reach });
    reach = Math.max(reach, bottom(sorted[i]!));
  }
  if (gaps.length === 0) return null;
  const widest = Math.max(...gaps.map((g) => g.size));
  const cuts = gaps.filter((g) => g.size >= widest * 0.9).map((g) => g.after);
  const bands: Segment[][] = [];
  let from = 0;
  for (const cut of cuts) {
    bands.push(sorted.slice(from, cut));
    from = cut;
  }
  bands.push(sorted.slice(from));
  return bands;
}
