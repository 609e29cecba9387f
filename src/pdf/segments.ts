import type { Segment, TextRun } from './page-text.js';

/**
 * A page's runs → segments: runs on one baseline, in writing order, joined while the gap between
 * them is no wider than a generous word space. A wider gap (a column gutter, the space between
 * table cells) starts a new segment, so that the reading order and table analysis can see it.
 */

/** Gap, in ems of the font size, past which two runs of a line are separate segments. */
const SEGMENT_GAP = 0.75;
/** Gap, in ems, past which two runs are separate words even when neither carries a space. */
const WORD_GAP = 0.15;
/** Baselines closer than this (in ems of the larger font) are one line: superscripts stay on their line. */
const SAME_LINE = 0.5;

/** The runs with visible text, grouped into lines (top to bottom) of segments (in writing order). */
export function segmentRows(runs: readonly TextRun[]): Segment[][] {
  const visible = runs.filter((run) => run.size > 0.5 && run.text.trim() !== '' && Number.isFinite(run.x + run.y + run.width));
  return rows(visible).map(segmentsOf);
}

/** Runs grouped by baseline: a run joins the line being built while its baseline is within SAME_LINE of the line's. */
export function rows<T extends { y: number; size: number }>(items: readonly T[]): T[][] {
  const sorted = [...items].sort((a, b) => a.y - b.y);
  const out: T[][] = [];
  let line: T[] = [];
  let lineY = 0;
  let lineSize = 0;
  for (const item of sorted) {
    if (line.length > 0 && item.y - lineY <= SAME_LINE * Math.max(item.size, lineSize)) {
      line.push(item);
      lineSize = Math.max(lineSize, item.size);
      continue;
    }
    if (line.length > 0) out.push(line);
    line = [item];
    lineY = item.y;
    lineSize = item.size;
  }
  if (line.length > 0) out.push(line);
  return out;
}

/** One line's runs as segments, in writing order: right to left when most of its characters are. */
function segmentsOf(line: TextRun[]): Segment[] {
  const rtlChars = line.reduce((sum, run) => sum + (run.rtl ? run.text.length : 0), 0);
  const rtl = rtlChars * 2 > line.reduce((sum, run) => sum + run.text.length, 0);
  const ordered = [...line].sort((a, b) => (rtl ? b.x + b.width - (a.x + a.width) : a.x - b.x));
  const segments: Segment[] = [];
  let current: Building | null = null;
  let previous: TextRun | null = null;
  for (const run of ordered) {
    // The same text drawn again at the same place: a fake bold or a shadow.
    if (previous && previous.text === run.text && Math.abs(previous.x - run.x) < 1 && Math.abs(previous.y - run.y) < 1) continue;
    previous = run;
    const gap = current ? (rtl ? current.x0 - (run.x + run.width) : run.x - current.x1) : 0;
    if (!current || gap > SEGMENT_GAP * Math.max(run.size, current.size)) {
      if (current) segments.push(finish(current));
      current = start(run, rtl);
      continue;
    }
    if (gap > WORD_GAP * run.size && !/\s$/.test(current.text) && !/^\s/.test(run.text)) current.text += ' ';
    current.text += run.text;
    current.x0 = Math.min(current.x0, run.x);
    current.x1 = Math.max(current.x1, run.x + run.width);
    count(current, run);
  }
  if (current) segments.push(finish(current));
  return segments;
}

interface Building {
  text: string;
  x0: number;
  x1: number;
  rtl: boolean;
  size: number;
  /** Characters per font and per size, for the segment's font and size: those of most characters. */
  fonts: Map<string, number>;
  sizes: Map<number, number>;
  /** Baseline of the runs at the largest size: a superscript does not move the line. */
  y: number;
  ySize: number;
}

function start(run: TextRun, rtl: boolean): Building {
  const building: Building = {
    text: run.text, x0: run.x, x1: run.x + run.width, rtl, size: run.size, fonts: new Map(), sizes: new Map(), y: run.y, ySize: run.size,
  };
  count(building, run);
  return building;
}

function count(building: Building, run: TextRun): void {
  const chars = run.text.trim().length;
  building.fonts.set(run.font, (building.fonts.get(run.font) ?? 0) + chars);
  const size = Math.round(run.size * 10) / 10;
  building.sizes.set(size, (building.sizes.get(size) ?? 0) + chars);
  building.size = Math.max(building.size, run.size);
  if (run.size > building.ySize) {
    building.y = run.y;
    building.ySize = run.size;
  }
}

function finish(building: Building): Segment {
  return {
    text: building.text.replace(/\s+/g, ' ').trim(),
    x0: building.x0,
    x1: building.x1,
    y: building.y,
    size: most(building.sizes),
    font: most(building.fonts),
    rtl: building.rtl,
  };
}

function most<K>(counts: Map<K, number>): K {
  let best: K | undefined;
  let bestCount = -1;
  for (const [key, value] of counts) {
    if (value > bestCount) {
      best = key;
      bestCount = value;
    }
  }
  return best!;
}
